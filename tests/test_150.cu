// Tests of 150: vector CSR, G lanes a row. Every group size's y against the CPU baseline in the
// kernel's shape (bit for bit in the emulator, which runs the same float operations in the same
// order) and against the double reference of chapter_inputs.h, computed from the COO without the
// kernel's idea: on the edge-case sweep, on a hub row of 10^5 entries, on many empty rows, on the
// Poisson stencils (down to a 1 x 1 grid) and on a matrix of one row; the baseline at G = 1 and
// G = 32 against 143's row loop and 144's warp-per-row baseline, bit for bit. The facts that the
// rule reads, on matrices whose facts are known; and the rule's choice, clause by clause, on
// stencils, long uniform rows, R-MAT and stars, and at each clause's edge.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>
#include "../ch14_spmv/144_coalescing_kernel.cu"
#include "../ch14_spmv/150_spmv_vector_csr_kernel.cu"
#include "../ch14_spmv/proof/150_spmv_vector_csr_kernel.cuh"
#include "../common/stencils.h"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed150 = 150150;
// The sweep's first graphs, for the emulator: each of its patterns occurs many times.
constexpr int kEmulatedSweep = 300;

// Rows of the given lengths; entry k of row r in column column(r, k), its value -3 .. 3.
template <class Column>
HostCoo rows_of_lengths(const std::vector<int>& lengths, int num_cols, Column column) {
    HostCoo a = coo_of(static_cast<int>(lengths.size()), num_cols, {}, {}, {});
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = 0; k < lengths[r]; ++k) {
            a.rows.push_back(r);
            a.cols.push_back(column(r, k));
            a.values.push_back(static_cast<float>((r + k) % 7 - 3));
        }
    return a;
}

HostCoo stencil(StencilKind kind, int side) {
    StencilShape shape = stencil_shape(kind, 0);
    shape.side = side;
    return make_stencil(shape);
}

// The inputs beyond the sweep: a hub row of `hub_entries` among short rows, many empty rows with
// one entry in the last, a star (one full row, every other empty), the Poisson stencils at
// several sides, 1 included (a 1 x 1 matrix), and a matrix of one row.
std::vector<std::pair<std::string, HostCoo>> edge_cases(int hub_entries) {
    const auto spread = [](int r, int k) { return (r + 7 * k) % 997; };
    std::vector<std::pair<std::string, HostCoo>> cases = {
        {"no rows", coo_of(0, 0, {}, {}, {})},
        {"a hub row among short ones", rows_of_lengths({3, hub_entries, 0, 5, 1}, 997, spread)},
        {"many empty rows, one entry in the last", coo_of(5000, 3, {4999}, {2}, {1.5f})},
        {"a star", make_star(hub_entries / 10 + 1, 7, kSeed150)},
        {"one row", rows_of_lengths({37}, 997, spread)},
        {"uniform random", make_uniform_random(3001, 20003, kSeed150)}};
    for (int side : {1, 2, 3, 16, 45}) {
        cases.emplace_back("2D stencil, side " + std::to_string(side),
                           stencil(StencilKind::two_d, side));
        if (side <= 16)
            cases.emplace_back("3D stencil, side " + std::to_string(side),
                               stencil(StencilKind::three_d, side));
    }
    return cases;
}

// Every group size's y and its CPU baseline's within the double reference's float32 bound; in
// the emulator, also equal bit for bit.
void check_group_sizes(const Here& here, const SpmvCase& c) {
    for (int g : kGroupSizes) {
        CAPTURE(g);
        std::vector<float> y_cpu = c.y0;
        spmv_csr_vector_cpu(c.csr, g, c.x, y_cpu);
        REQUIRE(spmv_matches(y_cpu, c.reference));
        const std::vector<float> y = spmv_on_device(here, csr_vector_launch(g), c.csr, c.x, c.y0);
        REQUIRE(spmv_matches(y, c.reference));
        if (!here.on_gpu()) REQUIRE(y == y_cpu);
    }
}

RowFacts facts_of(const HostCoo& a) {
    return row_facts(csr_from_coo_by_stable_sort(a));
}

// 64 rows of 2 and 6 entries in turn: mean 4, standard deviation 2, CV 0.5.
std::vector<int> two_and_six() {
    std::vector<int> lengths;
    for (int r = 0; r < 64; ++r) lengths.push_back(r % 2 == 0 ? 2 : 6);
    return lengths;
}

}  // namespace

TEST_CASE("150: every group size in the emulator on the edge-case sweep",
          "[150][emulation][random]") {
    INFO("seed " << kSeed150);
    for (int g = 0; g < kEmulatedSweep; ++g) {
        const SpmvCase c = spmv_case(edge_case_graph(g, kSeed150));
        CAPTURE(g, c.csr.num_rows, c.csr.nnz());
        check_group_sizes(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed150, g))), c);
    }
}

TEST_CASE("150: every group size in the emulator on a hub, empty rows, stencils and one row",
          "[150][emulation]") {
    for (const auto& [name, input] : edge_cases(100000)) {
        CAPTURE(name);
        check_group_sizes(Here::emulated(ThreadOrder::shuffled(9)), spmv_case(input));
    }
}

TEST_CASE("150: every group size in the emulator on the data files", "[150][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        check_group_sizes(Here::emulated(ThreadOrder::shuffled(10)),
                          spmv_case(read_data_file(name)));
    }
}

TEST_CASE("150: the CPU baseline at G = 1 and G = 32 adds as 143's row loop and 144's warp do",
          "[150][random]") {
    for (int g = 0; g < kSweepGraphs; ++g) {
        const SpmvCase c = spmv_case(edge_case_graph(g, kSeed150));
        CAPTURE(g);
        std::vector<float> y_one = c.y0, y_row = c.y0, y_all = c.y0, y_warp = c.y0;
        spmv_csr_vector_cpu(c.csr, 1, c.x, y_one);
        spmv_csr_cpu(c.csr, c.x, y_row);
        spmv_csr_vector_cpu(c.csr, kWarpSize, c.x, y_all);
        spmv_csr_warp_per_row_cpu(c.csr, c.x, y_warp);
        REQUIRE(y_one == y_row);
        REQUIRE(y_all == y_warp);
    }
}

TEST_CASE("150: the facts on matrices whose facts are known", "[150]") {
    const RowFacts two_six = facts_of(
        rows_of_lengths(two_and_six(), 64 * 64, [](int r, int k) { return (r * 8 + k) * 8; }));
    CHECK(two_six.mean == 4.0);
    CHECK(two_six.longest_over_mean == 1.5);
    CHECK(choose_group_size(two_six).group_size == 1);
    // Fig. 14.1: rows of 2, 3, 2 and 1 entries.
    const RowFacts fig = facts_of(fig14_1());
    CHECK(fig.mean == 2.0);
    CHECK(fig.longest_over_mean == 1.5);
    CHECK(choose_group_size(fig).group_size == 1);
    const RowFacts none = facts_of(coo_of(0, 0, {}, {}, {}));
    CHECK(none.mean == 0.0);
    CHECK(choose_group_size(none).group_size == 1);
}

// The rule, clause by clause, on the kinds of matrix that the sweep times: the Poisson stencils
// (short rows: one lane), R-MAT rows of 16 on the mean with no hub (16 lanes) and with hubs of
// thousands of mean rows (a warp), and at each clause's edge.
TEST_CASE("150: the rule on stencils, long uniform rows, R-MAT and stars", "[150]") {
    for (StencilKind kind : {StencilKind::two_d, StencilKind::three_d}) {
        const StencilShape shape = stencil_shape(kind, 12);
        const RowFacts f = facts_of(make_stencil(shape));
        CAPTURE(shape.name());
        CHECK(f.mean == Approx(static_cast<double>(shape.nnz()) / shape.rows()));
        CHECK(choose_group_size(f).group_size == 1);
    }
    // 400 entries a row, nearly even: past 8 on the mean, no hub.
    const RowFacts uniform = facts_of(make_uniform_random(64, 64 * 400, kSeed150));
    CHECK(uniform.mean == 400.0);
    CHECK(choose_group_size(uniform).group_size == kMiddleGroupSize);
    // R-MAT at scale 12, 16 entries a row on the mean, its longest row under 5,000 mean rows.
    const RowFacts rmat = facts_of(make_rmat(12, kEdgeFactor, 0.57, kSeed150));
    CHECK(rmat.mean == 16.0);
    CHECK(rmat.longest_over_mean < kHubMeanRows);
    CHECK(choose_group_size(rmat).group_size == kMiddleGroupSize);
    // At the edges: a mean of exactly 8 is short, and a hub exactly 5,000 mean rows long a hub.
    CHECK(choose_group_size({8.0, 1.0}).group_size == 1);
    CHECK(choose_group_size({8.5, 1.0}).group_size == kMiddleGroupSize);
    CHECK(choose_group_size({16.0, 5000.0}).group_size == kWarpSize);
    CHECK(choose_group_size({16.0, 4999.0}).group_size == kMiddleGroupSize);
    // A star: one row of 10,000 entries, the rest empty; the hub sets the time, whatever the mean.
    const RowFacts star = facts_of(make_star(10001, 0, kSeed150));
    CHECK(star.longest_over_mean == Approx(10001.0));
    CHECK(choose_group_size(star).group_size == kWarpSize);
    // A star of 4,001 rows: its hub under 5,000 mean rows, and the mean row under 1 entry.
    const RowFacts small_star = facts_of(make_star(4001, 0, kSeed150));
    CHECK(small_star.longest_over_mean == Approx(4001.0));
    CHECK(choose_group_size(small_star).group_size == 1);
}

TEST_CASE("150: every group size on the GPU, on the sweep, the edge cases and the data files",
          "[150][gpu]") {
    INFO("seed " << kSeed150);
    for (int g = 0; g < kSweepGraphs; ++g) {
        CAPTURE(g);
        check_group_sizes(Here::gpu(), spmv_case(edge_case_graph(g, kSeed150)));
    }
    for (const auto& [name, input] : edge_cases(1000000)) {
        CAPTURE(name);
        check_group_sizes(Here::gpu(), spmv_case(input));
    }
    for (int scale : {16, 20}) {
        CAPTURE(scale);
        check_group_sizes(Here::gpu(),
                          spmv_case(make_stencil(stencil_shape(StencilKind::two_d, scale))));
        check_group_sizes(Here::gpu(),
                          spmv_case(make_stencil(stencil_shape(StencilKind::three_d, scale))));
    }
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        check_group_sizes(Here::gpu(), spmv_case(read_data_file(name)));
    }
}
