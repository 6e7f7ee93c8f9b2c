// Tests of 116: the flat COO sum and the nested CSR sum of the edge weights.
#include <catch2/catch.hpp>
#include <numeric>
#include "../ch21_csr/116_coo_vs_csr_sum_cpu_baseline.cpp"

namespace {
// The reference: the weights added in double by the standard library, with no loop of the
// program's and no CSR involved.
double accumulated_weights(const HostCoo& g) {
    return std::accumulate(g.values.begin(), g.values.end(), 0.0);
}
}  // namespace

TEST_CASE("116: both loops give the book's total, 41", "[116]") {
    const HostCoo edges = book_example_edges();
    CHECK(total_weight_coo_cpu(edges) == kBookTotalWeight);
    CHECK(total_weight_csr_cpu(csr_from_coo_by_stable_sort(edges)) == kBookTotalWeight);
}

TEST_CASE("116: both loops equal an independent sum on random graphs", "[116][random]") {
    const uint64_t seed = 116;
    CAPTURE(seed);
    SplitMix64 sizes(seed);
    size_t self_loops = 0, duplicates = 0, isolated_last = 0, empty_graphs = 0;
    for (int trial = 0; trial < 1200; ++trial) {
        // Few vertices and many edges force duplicates and self-loops; 0 vertices come up on
        // their own, edgeless graphs are forced now and then, and every fourth graph gets an
        // extra last vertex with no edges at all.
        const int num_vertices = static_cast<int>(sizes.below(40));
        const size_t num_edges = num_vertices == 0 || trial % 50 == 1 ? 0 : sizes.below(600);
        const uint64_t graph_seed = mix_seed(seed, static_cast<uint64_t>(trial));
        HostCoo g = make_uniform_random(num_vertices, num_edges, graph_seed);
        if (trial % 4 == 0) {
            g.num_rows = g.num_cols = num_vertices + 1;
            ++isolated_last;
        }
        CAPTURE(trial, num_vertices, num_edges, graph_seed);
        const double expected = accumulated_weights(g);
        REQUIRE(total_weight_coo_cpu(g) == expected);
        REQUIRE(total_weight_csr_cpu(csr_from_coo_by_stable_sort(g)) == expected);

        empty_graphs += g.nnz() == 0;
        for (size_t e = 0; e < g.nnz(); ++e) self_loops += g.rows[e] == g.cols[e];
        const auto entries = sorted_entries(g);
        for (size_t k = 1; k < entries.size(); ++k)
            duplicates += std::get<0>(entries[k]) == std::get<0>(entries[k - 1]) &&
                          std::get<1>(entries[k]) == std::get<1>(entries[k - 1]);
    }
    CHECK(self_loops > 0);
    CHECK(duplicates > 0);
    CHECK(isolated_last > 0);
    CHECK(empty_graphs > 0);
}

TEST_CASE("116: the 10^5-edge star, all of it in one vertex's slice", "[116][hub]") {
    const HostCoo star = make_star(100001, 0, 116);
    const HostCsr csr = csr_from_coo_by_stable_sort(star);
    REQUIRE(csr.row_offsets[1] == 100000);
    const double expected = accumulated_weights(star);
    CHECK(total_weight_coo_cpu(star) == expected);
    CHECK(total_weight_csr_cpu(csr) == expected);
}
