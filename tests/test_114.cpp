// Tests of 114: the sequential count, scan, scatter build of CSR from a raw edge list.
#include <catch2/catch.hpp>
#include <utility>
#include "../ch21_csr/114_csr_construction_cpu_baseline.cpp"
#include "edge_case_graphs.h"

namespace {
constexpr uint64_t kSweepSeed = 114;

bool equal_exactly(const HostCsr& a, const HostCsr& b) {
    return a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.row_offsets == b.row_offsets &&
           a.col_idx == b.col_idx && a.values == b.values;
}
}  // namespace

TEST_CASE("114: the sequential build reproduces the book's arrays", "[114]") {
    const HostCoo edges = book_example_edges();
    const CsrConstruction built = csr_construction_cpu(edges);
    CHECK(built.degree == kBookDegree);
    const HostCsr& csr = built.csr;
    CHECK(csr.row_offsets == kBookRowOffsets);
    CHECK(csr.col_idx == kBookColIdx);
    CHECK(csr.values == kBookWeights);
}

TEST_CASE("114: on random graphs the build equals the stable-sort CSR exactly", "[114]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const CsrConstruction built = csr_construction_cpu(g);
        const HostCsr& csr = built.csr;
        REQUIRE(equal_exactly(csr, csr_from_coo_by_stable_sort(g)));
        REQUIRE(same_row_multisets(csr, g));
        REQUIRE(std::vector<int>(csr.row_offsets.begin() + 1, csr.row_offsets.end()) ==
                built.cursor);
        // The slot that the narration reports for each edge is where that edge was written.
        for (size_t e = 0; e < g.nnz(); ++e) {
            const int slot = built.slot_of_edge[e];
            REQUIRE(csr.row_offsets[g.rows[e]] <= slot);
            REQUIRE(slot < csr.row_offsets[g.rows[e] + 1]);
            REQUIRE(csr.col_idx[slot] == g.cols[e]);
            REQUIRE(csr.values[slot] == g.values[e]);
        }
    }
}

TEST_CASE("114: a hub with 10^5 edges", "[114]") {
    const uint64_t seed = 7;
    CAPTURE(seed);
    const HostCoo star = make_star(100001, 0, seed);
    const HostCsr csr = csr_construction_cpu(star).csr;
    CHECK(csr.row_offsets[1] == 100000);
    CHECK(csr.row_offsets.back() == 100000);
    CHECK(equal_exactly(csr, csr_from_coo_by_stable_sort(star)));
}
