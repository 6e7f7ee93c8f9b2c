// Tests of 112: an adjacency list flattened into CSR, against the stable-sort CSR of the same
// edges.
#include <catch2/catch.hpp>
#include <vector>
#include "../ch21_csr/112_csr_conversion_cpu_baseline.cpp"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed112 = 112112;

// Both routes keep the arrival order within a row, so the arrays must agree exactly.
bool flattening_matches_stable_sort(const HostCoo& g) {
    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr_cpu(build_adjacency_list(g), row_offsets, col_idx);
    const HostCsr expected = csr_from_coo_by_stable_sort(g);
    return row_offsets == expected.row_offsets && col_idx == expected.col_idx;
}

}  // namespace

TEST_CASE("112: the book's example flattens into the book's arrays", "[112]") {
    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr_cpu(build_adjacency_list(book_example_edges()), row_offsets, col_idx);
    CHECK(row_offsets == kBookRowOffsets);
    CHECK(col_idx == kBookColIdx);
}

TEST_CASE("112: the adjacency list keeps each vertex's edges in arrival order", "[112]") {
    const AdjacencyList adj = build_adjacency_list(book_example_edges());
    REQUIRE(adj.size() == 6);
    CHECK(adj[0] == std::vector<int>{1, 2});
    CHECK(adj[2] == std::vector<int>{3, 4});
    CHECK(adj[5].empty());
}

TEST_CASE("112: flattening equals the stable-sort CSR on 1,000 random graphs", "[112]") {
    INFO("seed " << kSeed112);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo g = edge_case_graph(i, kSeed112);
        CAPTURE(i, g.num_rows, g.nnz());
        REQUIRE(flattening_matches_stable_sort(g));
    }
}

TEST_CASE("112: no vertices, and vertices with no edges", "[112]") {
    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr_cpu(build_adjacency_list(make_uniform_random(0, 0, 1)), row_offsets, col_idx);
    CHECK(row_offsets == std::vector<int>{0});
    CHECK(col_idx.empty());
    adjacency_to_csr_cpu(build_adjacency_list(make_uniform_random(4, 0, 1)), row_offsets, col_idx);
    CHECK(row_offsets == std::vector<int>{0, 0, 0, 0, 0});
    CHECK(col_idx.empty());
}

TEST_CASE("112: the 10^5-edge star flattens into one long row", "[112][hub]") {
    const HostCoo star = make_star(100001, 0, 3);
    CHECK(flattening_matches_stable_sort(star));
    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr_cpu(build_adjacency_list(star), row_offsets, col_idx);
    CHECK(row_offsets[1] == 100000);
    CHECK(row_offsets.back() == 100000);
}
