// Tests of 118: CSC by count, scan, scatter keyed on the destination, in emulation and on the GPU,
// against the CSR of the reversed edges and against cuSPARSE's CSR-to-CSC conversion.
#include <algorithm>
#include <catch2/catch.hpp>
#include <utility>
#include <vector>
#include "../ch21_csr/118_csc_construction_kernel.cu"
#include "../ch21_csr/proof/118_csc_construction_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed118 = 118118;

// Column v's entries as sorted (source, weight) pairs.
std::vector<std::pair<int, float>> column(const HostCsr& csc, int v) {
    std::vector<std::pair<int, float>> c;
    for (int k = csc.row_offsets[v]; k < csc.row_offsets[v + 1]; ++k)
        c.emplace_back(csc.col_idx[k], csc.values[k]);
    std::sort(c.begin(), c.end());
    return c;
}

// The in-degrees counted straight off the edge list, with no grouping at all.
std::vector<int> in_degrees_by_counting(const HostCoo& g) {
    std::vector<int> d(g.num_cols, 0);
    for (int v : g.cols) ++d[v];
    return d;
}

// The count and the scatter, each emulated in an order of its own.
GroupedEdges build_csc_in_orders(const HostCoo& g, const ThreadOrder& count_order,
                                 const ThreadOrder& scatter_order) {
    return build_csc(Here::emulated(count_order), Here::emulated(scatter_order), g);
}

bool csc_matches_baseline(const GroupedEdges& built, const HostCoo& g) {
    const HostCsr expected = build_csc_cpu(g).grouped;
    return built.counts == in_degrees_by_counting(g) &&
           built.grouped.row_offsets == expected.row_offsets &&
           same_row_multisets(built.grouped, expected);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
HostCsr csc_by_cusparse(const HostCsr& csr) {
    CusparseCsrToCsc library(csr);
    library.run();
    return library.csc.download();
}
#endif

void require_reversed_csr(const HostCoo& g) {
    const GroupedEdges baseline = build_csc_cpu(g);
    const HostCsr reversed = csr_from_coo_by_stable_sort(transposed(g));
    REQUIRE(baseline.counts == in_degrees_by_counting(g));
    REQUIRE(baseline.grouped.row_offsets == reversed.row_offsets);
    REQUIRE(baseline.grouped.col_idx == reversed.col_idx);
    REQUIRE(baseline.grouped.values == reversed.values);
}

}  // namespace

TEST_CASE("118: the CPU baseline is the CSR of the reversed edges, slot by slot",
          "[118][emulation]") {
    INFO("seed " << kSeed118);
    require_reversed_csr(book_example_edges());
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo g = edge_case_graph(i, kSeed118);
        CAPTURE(i, g.num_rows, g.nnz());
        require_reversed_csr(g);
    }
    const HostCoo star = make_star(100001, 0, 5);
    require_reversed_csr(star);
    require_reversed_csr(transposed(star));
}

TEST_CASE("118: emulated CSC of the book's example", "[118][emulation]") {
    const HostCoo g = book_example_edges();
    for (uint64_t seed : {1u, 2u, 3u, 118u}) {
        CAPTURE(seed);
        const GroupedEdges built =
            build_csc_in_orders(g, ThreadOrder::shuffled(seed), ThreadOrder::shuffled(seed + 7));
        CHECK(built.counts == std::vector<int>{0, 1, 2, 2, 2, 2});
        CHECK(built.grouped.row_offsets == std::vector<int>{0, 0, 1, 3, 5, 7, 9});
        REQUIRE(is_well_formed(built.grouped));
        using Column = std::vector<std::pair<int, float>>;
        CHECK(column(built.grouped, 0).empty());
        CHECK(column(built.grouped, 1) == Column{{0, 4}});
        CHECK(column(built.grouped, 2) == Column{{0, 1}, {1, 2}});
        CHECK(column(built.grouped, 3) == Column{{1, 5}, {2, 8}});
        CHECK(column(built.grouped, 4) == Column{{2, 10}, {3, 2}});
        CHECK(column(built.grouped, 5) == Column{{3, 6}, {4, 3}});
        CHECK(edges_seen_from_csc(built.grouped) == sorted_entries(g));
    }
}

TEST_CASE("118: the CSC's triples are the CSR's, read the other way", "[118][emulation]") {
    const HostCoo g = make_uniform_random(40, 500, 9);
    const GroupedEdges built =
        build_csc_in_orders(g, ThreadOrder::shuffled(1), ThreadOrder::shuffled(2));
    CHECK(edges_seen_from_csc(built.grouped) == sorted_entries(csr_from_coo_by_stable_sort(g)));
    HostCsr moved = built.grouped;  // one source moved to another column must be noticed
    REQUIRE(moved.nnz() > 0);
    moved.col_idx[0] = (moved.col_idx[0] + 1) % g.num_rows;
    CHECK(edges_seen_from_csc(moved) != sorted_entries(g));
}

TEST_CASE("118: emulated CSC equals the reversed graph's CSR on 1,000 random graphs",
          "[118][emulation]") {
    INFO("seed " << kSeed118);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo g = edge_case_graph(i, kSeed118);
        CAPTURE(i, g.num_rows, g.nnz());
        const GroupedEdges built =
            build_csc_in_orders(g, ThreadOrder::shuffled(mix_seed(kSeed118, i)),
                                ThreadOrder::shuffled(mix_seed(kSeed118, ~i)));
        REQUIRE(csc_matches_baseline(built, g));
    }
}

TEST_CASE("118: a star's hub has 10^5 out-edges, and one entry in each of 10^5 columns",
          "[118][emulation][hub]") {
    const HostCoo star = make_star(100001, 0, 5);
    const GroupedEdges built =
        build_csc_in_orders(star, ThreadOrder::shuffled(11), ThreadOrder::shuffled(12));
    REQUIRE(csc_matches_baseline(built, star));
    CHECK(built.counts[0] == 0);
    CHECK(std::all_of(built.counts.begin() + 1, built.counts.end(), [](int d) { return d == 1; }));
    CHECK(std::all_of(built.grouped.col_idx.begin(), built.grouped.col_idx.end(),
                      [](int u) { return u == 0; }));
}

TEST_CASE("118: a reversed star puts all 10^5 edges in one column", "[118][emulation][hub]") {
    const HostCoo into_hub = transposed(make_star(100001, 0, 6));
    const GroupedEdges built =
        build_csc_in_orders(into_hub, ThreadOrder::shuffled(13), ThreadOrder::shuffled(14));
    REQUIRE(csc_matches_baseline(built, into_hub));
    CHECK(built.counts[0] == 100000);
    CHECK(built.grouped.row_offsets[1] == 100000);
    CHECK(built.grouped.row_offsets.back() == 100000);
    std::vector<int> sources = built.grouped.col_idx;
    std::sort(sources.begin(), sources.end());
    for (int k = 0; k < 100000; ++k) REQUIRE(sources[k] == k + 1);
}

TEST_CASE("118: emulated CSC of the data files", "[118][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo g = read_data_file(name);
        const GroupedEdges built =
            build_csc_in_orders(g, ThreadOrder::shuffled(21), ThreadOrder::shuffled(22));
        CHECK(csc_matches_baseline(built, g));
        CHECK(edges_seen_from_csc(built.grouped) == sorted_entries(g));
    }
}

TEST_CASE("118: GPU CSC of the book's example", "[118][gpu]") {
    const GroupedEdges built = build_csc(Here::gpu(), Here::gpu(), book_example_edges());
    CHECK(built.counts == std::vector<int>{0, 1, 2, 2, 2, 2});
    CHECK(built.grouped.row_offsets == std::vector<int>{0, 0, 1, 3, 5, 7, 9});
    CHECK(same_row_multisets(built.grouped, build_csc_cpu(book_example_edges()).grouped));
}

TEST_CASE("118: GPU CSC on 200 random graphs, 0 vertices and the hubs", "[118][gpu]") {
    INFO("seed " << kSeed118);
    for (int i = 0; i < 200; ++i) {
        const HostCoo g = edge_case_graph(i, kSeed118);
        CAPTURE(i, g.num_rows, g.nnz());
        REQUIRE(csc_matches_baseline(build_csc(Here::gpu(), Here::gpu(), g), g));
    }
    const HostCoo empty = make_uniform_random(0, 0, 1);
    const GroupedEdges none = build_csc(Here::gpu(), Here::gpu(), empty);
    CHECK(none.counts.empty());
    CHECK(none.grouped.row_offsets == std::vector<int>{0});
    const HostCoo star = make_star(100001, 0, 5);
    CHECK(csc_matches_baseline(build_csc(Here::gpu(), Here::gpu(), star), star));
    const HostCoo into_hub = transposed(star);
    CHECK(csc_matches_baseline(build_csc(Here::gpu(), Here::gpu(), into_hub), into_hub));
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("118: cuSPARSE's CSR-to-CSC conversion agrees with the baseline", "[118][gpu]") {
    INFO("seed " << kSeed118);
    const HostCoo book = book_example_edges();
    CHECK(same_row_multisets(csc_by_cusparse(csr_from_coo_by_stable_sort(book)),
                             build_csc_cpu(book).grouped));
    for (int i = 0; i < 50; ++i) {
        const HostCoo g = edge_case_graph(i, kSeed118);
        CAPTURE(i, g.num_rows, g.nnz());
        REQUIRE(same_row_multisets(csc_by_cusparse(csr_from_coo_by_stable_sort(g)),
                                   build_csc_cpu(g).grouped));
    }
    const HostCoo star = make_star(100001, 0, 5);
    CHECK(same_row_multisets(csc_by_cusparse(csr_from_coo_by_stable_sort(star)),
                             build_csc_cpu(star).grouped));
    const HostCoo into_hub = transposed(star);
    CHECK(same_row_multisets(csc_by_cusparse(csr_from_coo_by_stable_sort(into_hub)),
                             build_csc(Here::gpu(), Here::gpu(), into_hub).grouped));
}
#endif
