// Tests of 115: CSR built concurrently by count, scan, scatter, in emulation and on the GPU, its
// CPU baseline (the same steps one edge at a time), and the library routes it is compared with.
#include <catch2/catch.hpp>
#include "../ch21_csr/115_csr_concurrent_construction_kernel.cu"
#include "../ch21_csr/proof/115_csr_concurrent_construction_kernel.cuh"
#include "edge_case_graphs.h"
#include "emulated_here.h"

namespace {
constexpr uint64_t kSweepSeed = 115;
constexpr int kGpuSweepGraphs = 200;

// What every correct build must satisfy, whatever order its atomics resolved in.
void require_correct_build(const GroupedEdges& built, const HostCoo& g) {
    const HostCsr baseline = csr_from_coo_by_stable_sort(g);
    REQUIRE(built.counts == row_lengths(baseline));
    REQUIRE(built.grouped.row_offsets == baseline.row_offsets);
    REQUIRE(same_row_multisets(built.grouped, g));
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
HostCsr build_csr_by_library_sort(const HostCoo& edges) {
    const DeviceCoo d(Here::gpu(), edges);
    GatherSortCsrBuild build(edges.num_rows, edges.num_cols, edges.nnz());
    build.run(d);
    return build.csr.download();
}
#endif

void require_equal_to_baseline(const HostCsr& built, const HostCoo& g) {
    const HostCsr baseline = csr_from_coo_by_stable_sort(g);
    REQUIRE(built.row_offsets == baseline.row_offsets);
    REQUIRE(built.col_idx == baseline.col_idx);
    REQUIRE(built.values == baseline.values);
}
}  // namespace

TEST_CASE("115: the book's orders A and B give the book's two layouts", "[115]") {
    const HostCoo edges = book_example_edges();
    const uint64_t seed = 3;
    CAPTURE(seed);
    const GroupedEdges a =
        build_csr(emulated(seed), Here::emulated(ThreadOrder::ascending()), edges);
    const GroupedEdges b =
        build_csr(emulated(seed + 1), Here::emulated(ThreadOrder::given(kBookOrderB)), edges);
    CHECK(a.counts == kBookDegree);
    CHECK(b.counts == kBookDegree);
    CHECK(a.grouped.row_offsets == kBookRowOffsets);
    CHECK(b.grouped.row_offsets == kBookRowOffsets);
    CHECK(a.grouped.col_idx == kBookColIdx);
    CHECK(a.grouped.values == kBookWeights);
    CHECK(b.grouped.col_idx == std::vector<int>{2, 1, 3, 2, 3, 4, 5, 4, 5});
    CHECK(b.grouped.values == std::vector<float>{1, 4, 5, 2, 8, 10, 6, 2, 3});
    CHECK(same_row_multisets(b.grouped, edges));
    CHECK(slots_that_differ(a.grouped, b.grouped) == 6);
    CHECK(slots_that_differ(a.grouped, csr_from_coo_by_stable_sort(edges)) == 0);
}

TEST_CASE("115: the CPU baseline is the book's layout A, and a stable sort by source", "[115]") {
    const GroupedEdges book = build_csr_cpu(book_example_edges());
    CHECK(book.counts == kBookDegree);
    CHECK(book.grouped.row_offsets == kBookRowOffsets);
    CHECK(book.grouped.col_idx == kBookColIdx);
    CHECK(book.grouped.values == kBookWeights);
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const GroupedEdges baseline = build_csr_cpu(g);
        REQUIRE(baseline.counts == row_lengths(baseline.grouped));
        require_equal_to_baseline(baseline.grouped, g);
    }
    const HostCoo star = make_star(100001, 0, 7);
    require_equal_to_baseline(build_csr_cpu(star).grouped, star);
}

TEST_CASE("115: emulated builds in shuffled orders are right row by row", "[115]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const uint64_t order_seed = mix_seed(kSweepSeed, 1000 + i);
        require_correct_build(build_csr(emulated(order_seed), emulated(order_seed + 1), g), g);
    }
}

TEST_CASE("115: an emulated hub with 10^5 edges", "[115]") {
    const uint64_t seed = 7;
    CAPTURE(seed);
    const HostCoo star = make_star(100001, 0, seed);
    const GroupedEdges built = build_csr(emulated(seed), emulated(seed + 1), star);
    CHECK(built.counts[0] == 100000);
    require_correct_build(built, star);
}

TEST_CASE("115: the emulated row sort sorts rows and keeps their multisets", "[115]") {
    const HostCoo edges = book_example_edges();
    const HostCsr layout_b =
        build_csr(emulated(1), Here::emulated(ThreadOrder::given(kBookOrderB)), edges).grouped;
    CHECK_FALSE(rows_sorted_by_column(layout_b));
    const HostCsr sorted_b = sorted_by_column(emulated(1), layout_b);
    CHECK(rows_sorted_by_column(sorted_b));
    CHECK(sorted_b.col_idx == kBookColIdx);
    CHECK(sorted_b.values == kBookWeights);

    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const HostCsr csr = sorted_by_column(emulated(i), build_csr(emulated(i), g).grouped);
        REQUIRE(rows_sorted_by_column(csr));
        REQUIRE(same_row_multisets(csr, g));
    }
}

TEST_CASE("115: the bytes that a build must move", "[115]") {
    const GroupingBytes bytes = grouping_bytes(999, 1000);
    CHECK(bytes.total() == 24.0 * 1000 + 20.0 * 1000);
    CHECK(bytes.count == 4.0 * 1000 + 4.0 * 1000);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("115 on the GPU: the book's example", "[115][gpu]") {
    const HostCoo edges = book_example_edges();
    const GroupedEdges built = build_csr(Here::gpu(), edges);
    CHECK(built.counts == kBookDegree);
    CHECK(built.grouped.row_offsets == kBookRowOffsets);
    CHECK(same_row_multisets(built.grouped, edges));
    const HostCsr by_sort = build_csr_by_library_sort(edges);
    CHECK(by_sort.row_offsets == kBookRowOffsets);
    CHECK(by_sort.col_idx == kBookColIdx);
    CHECK(by_sort.values == kBookWeights);
}

TEST_CASE("115 on the GPU: random graphs", "[115][gpu]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_correct_build(build_csr(Here::gpu(), g), g);
        require_equal_to_baseline(build_csr_by_library_sort(g), g);
    }
}

TEST_CASE("115 on the GPU: a hub with 10^5 edges", "[115][gpu]") {
    const uint64_t seed = 7;
    CAPTURE(seed);
    const HostCoo star = make_star(100001, 0, seed);
    require_correct_build(build_csr(Here::gpu(), star), star);
    require_equal_to_baseline(build_csr_by_library_sort(star), star);
}

TEST_CASE("115 on the GPU: the histogram gives the atomic count's degrees", "[115][gpu]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const DeviceCoo d(Here::gpu(), g);
        LibraryDegreeCount histogram(g.num_rows, d.nnz());
        histogram.degree.fill_bytes(0xFF);
        histogram.run(d.rows.data());
        REQUIRE(histogram.degree.download() == build_csr(Here::gpu(), g).counts);
    }
}
#endif

TEST_CASE("115 on the GPU: the segmented row sort", "[115][gpu]") {
    const HostCoo edges = book_example_edges();
    const HostCsr layout_b =
        build_csr(emulated(1), Here::emulated(ThreadOrder::given(kBookOrderB)), edges).grouped;
    const HostCsr sorted_b = sorted_by_column(Here::gpu(), layout_b);
    CHECK(sorted_b.col_idx == kBookColIdx);
    CHECK(sorted_b.values == kBookWeights);

    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const HostCsr built = build_csr(Here::gpu(), g).grouped;
        const HostCsr sorted = sorted_by_column(Here::gpu(), built);
        REQUIRE(rows_sorted_by_column(sorted));
        REQUIRE(same_row_multisets(sorted, g));
        REQUIRE(sorted.col_idx == sorted_by_column(emulated(i), built).col_idx);
    }
    const HostCoo star = make_star(100001, 0, 7);
    const HostCsr sorted_star = sorted_by_column(Here::gpu(), build_csr(Here::gpu(), star).grouped);
    CHECK(rows_sorted_by_column(sorted_star));
    CHECK(same_row_multisets(sorted_star, star));
}
