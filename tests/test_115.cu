// Tests of 115: CSR built concurrently by count, scan, scatter, in emulation and on the GPU.
#include <catch2/catch.hpp>
#include <numeric>
#include <utility>
#define LESSON_WITHOUT_MAIN
#include "../ch21_csr/115_csr_concurrent_construction_kernel.cu"
#include "edge_case_graphs.h"

namespace {
constexpr uint64_t kSweepSeed = 115;
constexpr int kGpuSweepGraphs = 200;

ThreadOrder input_order(size_t num_edges) {
    std::vector<int> order(num_edges);
    std::iota(order.begin(), order.end(), 0);
    return ThreadOrder::given(order);
}

// What every correct build must satisfy, whatever order its atomics resolved in.
void require_correct_build(const CsrBuild& built, const HostCoo& g) {
    const HostCsr baseline = csr_from_coo_by_stable_sort(g);
    REQUIRE(built.degree == degrees_of(baseline));
    REQUIRE(built.csr.row_offsets == baseline.row_offsets);
    REQUIRE(same_row_multisets(built.csr, g));
}
}  // namespace

TEST_CASE("115: the book's orders A and B give the book's two layouts", "[115]") {
    const HostCoo edges = book_example_edges();
    const uint64_t seed = 3;
    CAPTURE(seed);
    const CsrBuild a =
        build_csr_emulated(edges, ThreadOrder::shuffled(seed), input_order(edges.nnz()));
    const CsrBuild b = build_csr_emulated(edges, ThreadOrder::shuffled(seed + 1),
                                          ThreadOrder::given(kBookOrderB));
    CHECK(a.degree == kBookDegree);
    CHECK(b.degree == kBookDegree);
    CHECK(a.csr.row_offsets == kBookRowOffsets);
    CHECK(b.csr.row_offsets == kBookRowOffsets);
    CHECK(a.csr.col_idx == kBookColIdx);
    CHECK(a.csr.values == kBookWeights);
    CHECK(b.csr.col_idx == std::vector<int>{2, 1, 3, 2, 3, 4, 5, 4, 5});
    CHECK(b.csr.values == std::vector<float>{1, 4, 5, 2, 8, 10, 6, 2, 3});
    CHECK(same_row_multisets(b.csr, edges));
}

TEST_CASE("115: emulated builds in shuffled orders are right row by row", "[115]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const uint64_t order_seed = mix_seed(kSweepSeed, 1000 + i);
        const CsrBuild built = build_csr_emulated(g, ThreadOrder::shuffled(order_seed),
                                                  ThreadOrder::shuffled(order_seed + 1));
        require_correct_build(built, g);
    }
}

TEST_CASE("115: an emulated hub with 10^5 edges", "[115]") {
    const uint64_t seed = 7;
    CAPTURE(seed);
    const HostCoo star = make_star(100001, 0, seed);
    const CsrBuild built =
        build_csr_emulated(star, ThreadOrder::shuffled(seed), ThreadOrder::shuffled(seed + 1));
    CHECK(built.degree[0] == 100000);
    require_correct_build(built, star);
}

TEST_CASE("115: the host row sort sorts rows and keeps their multisets", "[115]") {
    const HostCoo edges = book_example_edges();
    HostCsr layout_b = build_csr_emulated(edges, ThreadOrder::shuffled(1),
                                          ThreadOrder::given(kBookOrderB)).csr;
    CHECK_FALSE(rows_sorted_by_column(layout_b));
    sort_rows_by_column_host(layout_b);
    CHECK(rows_sorted_by_column(layout_b));
    CHECK(layout_b.col_idx == kBookColIdx);
    CHECK(layout_b.values == kBookWeights);

    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        HostCsr csr =
            build_csr_emulated(g, ThreadOrder::shuffled(i), ThreadOrder::shuffled(i + 1)).csr;
        sort_rows_by_column_host(csr);
        REQUIRE(rows_sorted_by_column(csr));
        REQUIRE(same_row_multisets(csr, g));
    }
}

TEST_CASE("115 on the GPU: the book's example", "[115][gpu]") {
    const HostCoo edges = book_example_edges();
    const CsrBuild built = build_csr_gpu(edges);
    CHECK(built.degree == kBookDegree);
    CHECK(built.csr.row_offsets == kBookRowOffsets);
    CHECK(same_row_multisets(built.csr, edges));
    const HostCsr by_sort = build_csr_by_sort_gpu(edges);
    CHECK(by_sort.row_offsets == kBookRowOffsets);
    CHECK(by_sort.col_idx == kBookColIdx);
    CHECK(by_sort.values == kBookWeights);
}

TEST_CASE("115 on the GPU: random graphs", "[115][gpu]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_correct_build(build_csr_gpu(g), g);
        const HostCsr baseline = csr_from_coo_by_stable_sort(g);
        const HostCsr by_sort = build_csr_by_sort_gpu(g);
        REQUIRE(by_sort.row_offsets == baseline.row_offsets);
        REQUIRE(by_sort.col_idx == baseline.col_idx);
        REQUIRE(by_sort.values == baseline.values);
    }
}

TEST_CASE("115 on the GPU: a hub with 10^5 edges", "[115][gpu]") {
    const uint64_t seed = 7;
    CAPTURE(seed);
    const HostCoo star = make_star(100001, 0, seed);
    require_correct_build(build_csr_gpu(star), star);
    const HostCsr baseline = csr_from_coo_by_stable_sort(star);
    const HostCsr by_sort = build_csr_by_sort_gpu(star);
    CHECK(by_sort.row_offsets == baseline.row_offsets);
    CHECK(by_sort.col_idx == baseline.col_idx);
    CHECK(by_sort.values == baseline.values);
}

TEST_CASE("115 on the GPU: the segmented row sort", "[115][gpu]") {
    const HostCoo edges = book_example_edges();
    const HostCsr layout_b =
        build_csr_emulated(edges, ThreadOrder::shuffled(1), ThreadOrder::given(kBookOrderB)).csr;
    const HostCsr sorted_b = sort_rows_by_column_gpu(layout_b);
    CHECK(sorted_b.col_idx == kBookColIdx);
    CHECK(sorted_b.values == kBookWeights);

    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const HostCsr built = build_csr_gpu(g).csr;
        const HostCsr sorted = sort_rows_by_column_gpu(built);
        REQUIRE(rows_sorted_by_column(sorted));
        REQUIRE(same_row_multisets(sorted, g));
        HostCsr sorted_on_host = built;
        sort_rows_by_column_host(sorted_on_host);
        REQUIRE(sorted.col_idx == sorted_on_host.col_idx);
    }
    const HostCoo star = make_star(100001, 0, 7);
    const HostCsr sorted_star = sort_rows_by_column_gpu(build_csr_gpu(star).csr);
    CHECK(rows_sorted_by_column(sorted_star));
    CHECK(same_row_multisets(sorted_star, star));
}
