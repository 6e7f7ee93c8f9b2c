// Tests of 117: the edge-parallel total over COO, emulated in several orders and, on a GPU, by
// one atomic per edge, by warp aggregation and by cub::DeviceReduce.
#include <catch2/catch.hpp>
#include <numeric>
#include "../ch21_csr/117_coo_edge_parallel_reduce_kernel.cu"
#include "../ch21_csr/proof/reduction_proof.cuh"
#include "run_program.h"

namespace {
// The reference: the weights added in double by the standard library, in edge order.
double accumulated_weights(const HostCoo& g) {
    return std::accumulate(g.values.begin(), g.values.end(), 0.0);
}

// A random graph of a random size: few vertices make self-loops and duplicate edges common,
// 0 vertices and 0 edges come up among the sizes, and edge counts are rarely multiples of 32.
HostCoo random_graph(SplitMix64& sizes, uint64_t graph_seed, size_t max_edges) {
    const int num_vertices = static_cast<int>(sizes.below(50));
    const size_t num_edges =
        num_vertices == 0 ? 0 : sizes.below(static_cast<uint32_t>(max_edges) + 1);
    return make_uniform_random(num_vertices, num_edges, graph_seed);
}

// Edge counts around warp and block boundaries, none of the odd ones a multiple of 32.
const std::vector<size_t> kAwkwardEdgeCounts = {1, 2, 31, 33, 63, 255, 257, 1000, 4097, 100003};
}  // namespace

TEST_CASE("117: the emulated per-edge atomic gives 41 in orders A, B, reverse and shuffled",
          "[117]") {
    const HostCoo edges = book_example_edges();
    for (const ThreadOrder& order : {ThreadOrder::ascending(), ThreadOrder::repeating(kBookOrderB),
                                     ThreadOrder::descending()})
        CHECK(total_by_atomics(Here::emulated(order), edges) == kBookTotalWeight);
    for (uint64_t seed : {1u, 2u, 117u, 999983u}) {
        CAPTURE(seed);
        CHECK(total_by_atomics(Here::emulated(ThreadOrder::shuffled(seed)), edges) ==
              kBookTotalWeight);
    }
    CHECK(total_weight_coo_cpu(edges) == kBookTotalWeight);
}

TEST_CASE("117: order B is only ever the book's order B; the other replayed order is reverse",
          "[117]") {
    const ProgramRun run = run_program("117_coo_edge_parallel_reduce_kernel", {"--order", "B"});
    INFO(run.out);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("  order A (increasing edge index): total = 41\n") != std::string::npos);
    CHECK(run.out.find("  reverse (decreasing edge index): total = 41\n") != std::string::npos);
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
        const size_t at = line.find("order B");
        if (at != std::string::npos)
            CHECK(line.compare(at, 28, "order B (the book's order B ") == 0);
    }
}

TEST_CASE("117: the emulated per-edge atomic equals an independent sum on random graphs",
          "[117][random]") {
    const uint64_t seed = 117;
    CAPTURE(seed);
    SplitMix64 sizes(seed);
    size_t empty_graphs = 0;
    for (int trial = 0; trial < 1200; ++trial) {
        const uint64_t graph_seed = mix_seed(seed, static_cast<uint64_t>(trial));
        const HostCoo g = random_graph(sizes, graph_seed, 800);
        CAPTURE(trial, g.num_rows, g.nnz(), graph_seed);
        const double expected = accumulated_weights(g);
        REQUIRE(total_by_atomics(Here::emulated(ThreadOrder::shuffled(graph_seed)), g) == expected);
        REQUIRE(total_weight_coo_cpu(g) == expected);
        empty_graphs += g.nnz() == 0;
    }
    CHECK(empty_graphs > 0);

    const HostCoo star = make_star(100001, 0, seed);
    CHECK(total_by_atomics(Here::emulated(ThreadOrder::shuffled(seed)), star) ==
          accumulated_weights(star));
}

TEST_CASE("117: the emulated warp-aggregated and block reductions on random graphs and the "
          "awkward edge counts",
          "[117][emulation][random]") {
    const uint64_t seed = 1171;
    CAPTURE(seed);
    SplitMix64 sizes(seed);
    for (int trial = 0; trial < 300; ++trial) {
        const uint64_t graph_seed = mix_seed(seed, static_cast<uint64_t>(trial));
        const HostCoo g = random_graph(sizes, graph_seed, 800);
        CAPTURE(trial, g.nnz(), graph_seed);
        const Here here = Here::emulated(ThreadOrder::shuffled(graph_seed));
        REQUIRE(total_warp_aggregated(here, g) == accumulated_weights(g));
        REQUIRE(total_by_block_reduce(here, g) == accumulated_weights(g));
    }
    for (size_t num_edges : kAwkwardEdgeCounts) {
        CAPTURE(num_edges);
        const HostCoo g = make_uniform_random(1000, num_edges, num_edges);
        const Here here = Here::emulated(ThreadOrder::shuffled(num_edges));
        CHECK(total_warp_aggregated(here, g) == accumulated_weights(g));
        CHECK(total_by_block_reduce(here, g) == accumulated_weights(g));
    }
    const HostCoo star = make_star(20001, 0, seed);
    CHECK(total_by_block_reduce(Here::emulated(ThreadOrder::shuffled(3)), star) ==
          accumulated_weights(star));
}

TEST_CASE("117: the atomic counts are E for one per edge, ceil(E/32) for one per warp, and "
          "the resident blocks for one per block",
          "[117]") {
    const Here here = Here::emulated(ThreadOrder::shuffled(3));
    CHECK(atomics_issued(here, 0).per_warp == 0);
    CHECK(atomics_issued(here, 0).per_block == 0);
    CHECK(atomics_issued(here, 9).per_edge == 9);
    CHECK(atomics_issued(here, 9).per_warp == 1);
    CHECK(atomics_issued(here, 9).per_block == 1);
    CHECK(atomics_issued(here, 64).per_warp == 2);
    CHECK(atomics_issued(here, 65).per_warp == 3);
    // The emulator stands for an H200: 132 SMs of 2,048 threads, 8 blocks of 256 each.
    const GpuLimits& limits = here.limits();
    const size_t resident = static_cast<size_t>(limits.multiprocessors) *
                            (limits.threads_per_multiprocessor / kReduceThreads);
    CHECK(atomics_issued(here, 1 << 24).per_block == resident);
    CHECK(atomics_issued(here, 300 * kReduceThreads).per_block == std::min<size_t>(300, resident));
}

TEST_CASE("117: a right total is exact for whole weights, within rounding otherwise", "[117]") {
    const HostCoo book = book_example_edges();
    const RightTotal book_total = right_total(true, book, total_weight_coo_cpu(book));
    CHECK(book_total.holds(41));
    CHECK_FALSE(book_total.holds(41.000001));

    const HostCoo whole = make_uniform_random(50, 3000, 117);
    const double whole_sum = accumulated_weights(whole);
    const RightTotal exact = right_total(false, whole, whole_sum);
    CHECK(exact.tolerance == 0);
    CHECK(exact.holds(whole_sum));
    CHECK_FALSE(exact.holds(whole_sum + 1));

    HostCoo fractional = whole;
    for (float& w : fractional.values) w = w / 3 + 0.1f;
    const double sum = accumulated_weights(fractional);
    const RightTotal close = right_total(false, fractional, sum);
    CHECK(close.tolerance > 0);
    CHECK(close.holds(sum * (1 + 1e-15)));
    CHECK(close.holds(total_by_atomics(Here::emulated(ThreadOrder::shuffled(5)), fractional)));
    CHECK_FALSE(close.holds(sum + 1));
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("117: all four GPU reductions give 41 on the book's example", "[117][gpu]") {
    const HostCoo edges = book_example_edges();
    CHECK(total_by_atomics(Here::gpu(), edges) == kBookTotalWeight);
    CHECK(total_warp_aggregated(Here::gpu(), edges) == kBookTotalWeight);
    CHECK(total_by_cub<DeviceEdgeTotal>(edges) == kBookTotalWeight);
    CHECK(total_by_block_reduce(Here::gpu(), edges) == kBookTotalWeight);
}

TEST_CASE("117: the GPU reductions equal an independent sum on random graphs",
          "[117][gpu][random]") {
    const uint64_t seed = 1170;
    CAPTURE(seed);
    SplitMix64 sizes(seed);
    for (int trial = 0; trial < 200; ++trial) {
        const uint64_t graph_seed = mix_seed(seed, static_cast<uint64_t>(trial));
        const HostCoo g = random_graph(sizes, graph_seed, 5000);
        CAPTURE(trial, g.num_rows, g.nnz(), graph_seed);
        const double expected = accumulated_weights(g);
        REQUIRE(total_by_atomics(Here::gpu(), g) == expected);
        REQUIRE(total_warp_aggregated(Here::gpu(), g) == expected);
        REQUIRE(total_by_cub<DeviceEdgeTotal>(g) == expected);
        REQUIRE(total_by_block_reduce(Here::gpu(), g) == expected);
    }
}

TEST_CASE("117: with 0 edges every GPU total is 0 and nothing is launched empty", "[117][gpu]") {
    for (int num_vertices : {0, 5}) {
        CAPTURE(num_vertices);
        const HostCoo g = make_uniform_random(num_vertices, 0, 1);
        CHECK(total_by_atomics(Here::gpu(), g) == 0.0);
        CHECK(total_warp_aggregated(Here::gpu(), g) == 0.0);
        CHECK(total_by_cub<DeviceEdgeTotal>(g) == 0.0);  // CUB overwrote the NaN it was given
        CHECK(total_by_block_reduce(Here::gpu(), g) == 0.0);
        CHECK(cudaGetLastError() == cudaSuccess);
    }
}

TEST_CASE("117: edge counts that are not multiples of 32 (a partial last warp)", "[117][gpu]") {
    for (size_t num_edges : kAwkwardEdgeCounts) {
        CAPTURE(num_edges);
        const HostCoo g = make_uniform_random(1000, num_edges, num_edges);
        const double expected = accumulated_weights(g);
        CHECK(total_by_atomics(Here::gpu(), g) == expected);
        CHECK(total_warp_aggregated(Here::gpu(), g) == expected);
        CHECK(total_by_cub<DeviceEdgeTotal>(g) == expected);
        CHECK(total_by_block_reduce(Here::gpu(), g) == expected);
    }
}

TEST_CASE("117: the 10^5-edge star", "[117][gpu][hub]") {
    const HostCoo star = make_star(100001, 0, 117);
    const double expected = accumulated_weights(star);
    CHECK(total_by_atomics(Here::gpu(), star) == expected);
    CHECK(total_warp_aggregated(Here::gpu(), star) == expected);
    CHECK(total_by_cub<DeviceEdgeTotal>(star) == expected);
    CHECK(total_by_block_reduce(Here::gpu(), star) == expected);
}

TEST_CASE("117: totals past 2^24, where a float accumulator would round, stay exact",
          "[117][gpu]") {
    const HostCoo g = make_uniform_random(1 << 16, 3000001, 24);
    const double expected = accumulated_weights(g);
    REQUIRE(expected > 16777216.0);
    CHECK(total_by_atomics(Here::gpu(), g) == expected);
    CHECK(total_warp_aggregated(Here::gpu(), g) == expected);
    CHECK(total_by_cub<DeviceEdgeTotal>(g) == expected);
    CHECK(total_by_block_reduce(Here::gpu(), g) == expected);
}

TEST_CASE(
    "117: the block reduction's grid-stride loop, over more edges than its capped grid has "
    "threads",
    "[117][gpu]") {
    // T threads, as many as the GPU holds at once in blocks of 256 (270,336 on an H200). With
    // 1,000,003 edges each thread adds about one float4 and the last three weights go to block
    // 0. With 4 * (3 * 4 + 1) * T + 23 edges the loop that keeps four loads in flight turns three
    // times, the one-load loop once more, five threads take one more float4, and three weights
    // are left over.
    const Here gpu = Here::gpu();
    const size_t blocks = block_reduce_blocks(gpu, size_t{1} << 30);
    for (size_t num_edges : {size_t{1000003}, 4 * 13 * blocks * kReduceThreads + 23}) {
        CAPTURE(num_edges, blocks);
        const HostCoo g = make_uniform_random(1000, num_edges, 117);
        double expected = 0;
        for (float w : g.values) expected += w;
        CHECK(atomics_issued(gpu, g.nnz()).per_block == blocks);
        CHECK(total_by_block_reduce(Here::gpu(), g) == expected);
        CHECK(total_by_cub<DeviceEdgeTotal>(g) == expected);
    }
}
#endif
