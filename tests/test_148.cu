// Tests of 148: CSR SpMV by merge path. The split is checked as a property (every step once,
// equal steps per thread); y against the double reference of chapter_inputs.h, computed from
// the COO, without either kernel's idea, for several step counts, so that rows split across
// many threads, and threads that close many rows, both occur; the CPU baseline's walk against
// 143's row loop, which adds each row's products in the same order. Every version that 148 times
// (the per-thread walk and each step of the block kernel) is held to the CPU baseline on the
// inputs that tiles trip on, and on NaN, inf and -0.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>
#include "../ch14_spmv/148_spmv_merge_path_kernel.cu"
#include "../ch14_spmv/proof/148_spmv_merge_path_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed148 = 148148;
// The sweep's first graphs, for the emulator's slow blocks: they hold each of its patterns (no
// vertices, no edges, an isolated last vertex, self-loops, duplicates) more than once.
constexpr int kEmulatedSweep = 120;

// The per-thread walk, `steps` steps a thread.
std::vector<float> per_thread_y(const Here& here, const HostCsr& a, const std::vector<float>& x,
                                const std::vector<float>& y0, int steps = kStepsPerThread) {
    DeviceCsr d(here, a);
    MergePathCarries carries(here, a, steps);
    return spmv_on_device(here, x, y0, [&](const float* dx, float* dy) {
        launch_spmv_merge_path(here, d, carries, dx, dy);
    });
}

// Every version that 148 times, under its timing name: the per-thread walk, then each step of the
// block kernel, from staged to csr_merge_path.
std::vector<std::pair<std::string, std::vector<float>>> every_version(
    const Here& here, const HostCsr& a, const std::vector<float>& x, const std::vector<float>& y0) {
    std::vector<std::pair<std::string, std::vector<float>>> ys = {
        {"csr_merge_path_per_thread", per_thread_y(here, a, x, y0)}};
    DeviceCsr d(here, a);
    MergePathTiles tiles(here, a);
    for (size_t i = 0; i < std::size(kMergeTileSteps); ++i)
        ys.emplace_back(kTileStepTimings[i].first,
                        spmv_on_device(here, x, y0, [&](const float* dx, float* dy) {
                            kMergeTileSteps[i].launch(here, d, tiles, dx, dy);
                        }));
    return ys;
}

// True when y0 and every product are multiples of 1/8 and each row's |y0| + sum of |products| is
// below 2^21: then every partial sum has at most 24 significant bits, float adds the row exactly
// in any order, and a kernel's y must equal the CPU baseline's exactly. The bound alone could
// not see a lost carry in a long row: it allows n * 2^-23 of the row's magnitude. The sweep's
// values are integers (random_weight), lesson_x's entries eighths and lesson_y0's halves.
bool sums_are_exact(const SpmvCase& c) {
    const auto in_eighths = [](double v) {
        return std::ldexp(v, 3) == std::floor(std::ldexp(v, 3));
    };
    for (int i = 0; i < c.csr.num_rows; ++i) {
        double magnitude = std::fabs(c.y0[i]);
        if (!in_eighths(c.y0[i])) return false;
        for (int k = c.csr.row_offsets[i]; k < c.csr.row_offsets[i + 1]; ++k) {
            const double product = static_cast<double>(c.csr.values[k]) * c.x[c.csr.col_idx[k]];
            if (!in_eighths(product)) return false;
            magnitude += std::fabs(product);
        }
        if (magnitude >= std::ldexp(1.0, 21)) return false;
    }
    return true;
}

// Each version's y and the CPU baseline's, both within the double reference's float32 bound, as
// the program claims; and, where the sums are exact, equal.
void check_every_version(const Here& here, const SpmvCase& c) {
    std::vector<float> y_cpu = c.y0;
    merge_path_cpu(c.csr, c.x, y_cpu);
    REQUIRE(spmv_matches(y_cpu, c.reference));
    const bool exact = sums_are_exact(c);
    for (const auto& version : every_version(here, c.csr, c.x, c.y0)) {
        CAPTURE(version.first, exact);
        REQUIRE(spmv_matches(version.second, c.reference));
        if (exact) REQUIRE(version.second == y_cpu);
    }
}

// Rows of the given lengths, their values -3 .. 3: sums of either sign, and stored zeros.
HostCoo rows_of_lengths(const std::vector<int>& lengths, int num_cols) {
    HostCoo a = coo_of(static_cast<int>(lengths.size()), num_cols, {}, {}, {});
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = 0; k < lengths[r]; ++k) {
            a.rows.push_back(r);
            a.cols.push_back((r + 7 * k) % num_cols);
            a.values.push_back(static_cast<float>((r + k) % 7 - 3));
        }
    return a;
}

// Row 0 ends with tile 0's last step, row 1 fills tile 1 and ends as tile 2 begins, then short
// rows and empty ones.
HostCoo rows_ending_at_tile_ends() {
    std::vector<int> lengths = {kMergeTile - 1, kMergeTile};
    lengths.resize(lengths.size() + 100, 3);
    lengths.resize(lengths.size() + 5, 0);
    return rows_of_lengths(lengths, 301);
}

// Two rows whose path is two tiles and one step: the last tile only closes row 1.
HostCoo last_tile_of_one_step() {
    return rows_of_lengths({10, 2 * kMergeTile - 11}, 64);
}

int rows_before(const HostCsr& a, int diagonal) {
    return merge_path_rows_before(diagonal, a.row_offsets.data(), a.num_rows, a.nnz());
}

// The inputs that the block kernel's tiles trip on, sized in tiles (kMergeTile steps) so that
// they follow the kernel's shape.
std::vector<std::pair<std::string, HostCoo>> tile_edge_cases(int hub_entries) {
    std::vector<std::pair<std::string, HostCoo>> cases = {
        {"no rows", coo_of(0, 0, {}, {}, {})},
        {"rows over three tiles, no entries", coo_of(2 * kMergeTile + 5, 3, {}, {}, {})},
        {"one entry, in the last of many empty rows",
         coo_of(3 * kMergeTile, 3, {3 * kMergeTile - 1}, {2}, {1.5f})},
        {"one row holding every entry", rows_of_lengths({5 * kMergeTile + 3}, 97)},
        {"a hub, every other row empty", make_star(hub_entries + 1, 7, kSeed148)},
        {"rows ending at tile ends", rows_ending_at_tile_ends()},
        {"a last tile of one step", last_tile_of_one_step()},
        {"uniform random", make_uniform_random(3001, 20003, kSeed148)}};
    for (double skew : {0.25, 0.45, 0.57, 0.70, 0.80, 0.95})
        cases.emplace_back("R-MAT, skew " + std::to_string(skew),
                           make_rmat(11, 16, skew, kSeed148));
    return cases;
}

// The CPU baseline's y where the bound cannot judge: NaN where it has NaN, elsewhere its value,
// -0 equal to +0.
bool same_values(const std::vector<float>& y, const std::vector<float>& y_cpu) {
    if (y.size() != y_cpu.size()) return false;
    for (size_t i = 0; i < y.size(); ++i)
        if (std::isnan(y_cpu[i]) ? !std::isnan(y[i]) : !(y[i] == y_cpu[i])) return false;
    return true;
}

// A NaN and an inf in x, reached by a hub row across tiles (its carries NaN), by short rows, and
// by a row adding inf and -inf; a row whose products cancel; y0 = -0 on empty rows and on the
// cancelling row. Then every version must give the CPU baseline's y, and NaN where it does.
void check_special_values(const Here& here) {
    const int num_rows = kMergeTile + 40, num_cols = 600, nan_col = 598, inf_col = 599;
    HostCoo a = coo_of(num_rows, num_cols, {}, {}, {});
    const auto add = [&](int row, int col, float value) {
        a.rows.push_back(row);
        a.cols.push_back(col);
        a.values.push_back(value);
    };
    for (int k = 0; k < 3 * kMergeTile; ++k) add(0, k % nan_col, 1.0f);
    for (int k = 0; k < 2 * kMergeTile; ++k)
        add(1, k == kMergeTile + 5 ? nan_col : k % nan_col, 2.0f);
    add(2, 5, 3.0f);
    add(2, 5, -3.0f);
    add(3, nan_col, 1.0f);
    add(4, inf_col, 1.0f);
    add(5, inf_col, 1.0f);
    add(5, inf_col, -1.0f);
    std::vector<float> x = lesson_x(num_cols), y0 = lesson_y0(num_rows);
    x[nan_col] = std::numeric_limits<float>::quiet_NaN();
    x[inf_col] = std::numeric_limits<float>::infinity();
    y0[2] = -0.0f;
    for (int i = 6; i < num_rows; i += 2) y0[i] = -0.0f;
    const HostCsr csr = csr_from_coo_by_stable_sort(a);
    std::vector<float> y_cpu = y0;
    merge_path_cpu(csr, x, y_cpu);
    REQUIRE((std::isnan(y_cpu[1]) && std::isnan(y_cpu[3]) && std::isinf(y_cpu[4]) &&
             std::isnan(y_cpu[5]) && y_cpu[2] == 0.0f && std::isfinite(y_cpu[0])));
    for (const auto& version : every_version(here, csr, x, y0)) {
        CAPTURE(version.first);
        CHECK(same_values(version.second, y_cpu));
    }
}

}  // namespace

TEST_CASE("148: Fig. 14.1 split 4 steps to a thread", "[148][emulation]") {
    const HostCsr a = csr_from_coo_by_stable_sort(fig14_1());
    const std::vector<ThreadShare> shares = merge_path_shares(a, 4);
    REQUIRE(shares.size() == 3);
    // By hand: steps nnz0 nnz1 end0 nnz2 | nnz3 nnz4 end1 nnz5 | nnz6 end2 nnz7 end3.
    CHECK(shares[0].first_row == 0);
    CHECK(shares[1].first_row == 1);
    CHECK(shares[2].first_row == 2);
    CHECK(shares[2].rows_closed == 2);
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    for (uint64_t seed : {1u, 2u, 148u})
        CHECK(per_thread_y(Here::emulated(ThreadOrder::shuffled(seed)), a, x, y0, 4) ==
              book_product(x, y0));
    for (const auto& version :
         every_version(Here::emulated(ThreadOrder::shuffled(148)), a, x, y0)) {
        CAPTURE(version.first);
        CHECK(version.second == book_product(x, y0));
    }
}

TEST_CASE("148: 1,200 random matrices, several step counts, and the hub",
          "[148][emulation][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed148);
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        for (int steps : {1, 3, 16}) {
            CAPTURE(steps);
            REQUIRE(shares_cover_the_path(csr, steps));
            const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed148, g)));
            REQUIRE(spmv_matches(per_thread_y(here, csr, x, y0, steps), reference));
        }
    }
    // One row of 10^5 entries, split over thousands of threads, each leaving a carry.
    const HostCoo star = make_star(100001, 7, kSeed148);
    const auto [csr, x, y0, reference] = spmv_case(star);
    CHECK(shares_cover_the_path(csr, 16));
    CHECK(spmv_matches(per_thread_y(Here::emulated(ThreadOrder::shuffled(5)), csr, x, y0),
                       reference));
}

TEST_CASE("148: the CPU baseline's walk adds each row as 143's row loop does, bit for bit",
          "[148][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        CAPTURE(g, csr.num_rows, csr.nnz());
        std::vector<float> walked = y0, row_loop = y0;
        merge_path_cpu(csr, x, walked);
        spmv_csr_cpu(csr, x, row_loop);
        REQUIRE(walked == row_loop);
        REQUIRE(spmv_matches(walked, reference));
    }
}

TEST_CASE("148: the data files", "[148][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const auto [csr, x, y0, reference] = spmv_case(read_data_file(name));
        CHECK(spmv_matches(per_thread_y(Here::emulated(ThreadOrder::shuffled(6)), csr, x, y0),
                           reference));
    }
}

TEST_CASE("148: on the GPU, random matrices, the hub and the data files", "[148][gpu]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < 200; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        for (int steps : {1, 16})
            REQUIRE(spmv_matches(per_thread_y(Here::gpu(), csr, x, y0, steps), reference));
    }
    const auto [csr, x, y0, reference] = spmv_case(make_star(100001, 7, kSeed148));
    CHECK(spmv_matches(per_thread_y(Here::gpu(), csr, x, y0), reference));
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const auto [c, dx, dy0, ref] = spmv_case(read_data_file(name));
        CHECK(spmv_matches(per_thread_y(Here::gpu(), c, dx, dy0), ref));
    }
}

// The block kernel's steps: the sweep's matrices fit one tile, so the edge cases make rows that
// cross tiles (the hub crosses hub_entries / kMergeTile of them), tiles that only close empty
// rows, tiles inside one row, a tile that ends at a row end and a last tile of one step.
TEST_CASE("148: every version in the emulator, on the sweep and the tiles' edge cases",
          "[148][emulation][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < kEmulatedSweep; ++g) {
        const SpmvCase c = spmv_case(edge_case_graph(g, kSeed148));
        CAPTURE(g, c.csr.num_rows, c.csr.nnz());
        REQUIRE(sums_are_exact(c));
        check_every_version(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed148, g))), c);
    }
    for (const auto& [name, input] : tile_edge_cases(20000)) {
        CAPTURE(name);
        const SpmvCase c = spmv_case(input);
        REQUIRE(sums_are_exact(c));
        check_every_version(Here::emulated(ThreadOrder::shuffled(7)), c);
    }
}

TEST_CASE("148: the tiles' edge cases are what their names say", "[148][emulation]") {
    const HostCsr ends = csr_from_coo_by_stable_sort(rows_ending_at_tile_ends());
    CHECK(rows_before(ends, kMergeTile - 1) == 0);
    CHECK(rows_before(ends, kMergeTile) == 1);
    CHECK(rows_before(ends, 2 * kMergeTile) == 1);
    CHECK(rows_before(ends, 2 * kMergeTile + 1) == 2);
    const HostCsr one_step = csr_from_coo_by_stable_sort(last_tile_of_one_step());
    CHECK(merge_path_tiles(one_step.num_rows, one_step.nnz()) == 3);
    CHECK(rows_before(one_step, 2 * kMergeTile) == 1);
    // The hub's row spans whole tiles, which the registers step sums without a walk.
    const int hub_entries = 20000;
    const HostCsr hub = csr_from_coo_by_stable_sort(make_star(hub_entries + 1, 7, kSeed148));
    const int tiles = merge_path_tiles(hub.num_rows, hub.nnz()), path = hub.num_rows + hub.nnz();
    int inside_one_row = 0;
    for (int t = 0; t < tiles; ++t)
        inside_one_row += rows_before(hub, t * kMergeTile) ==
                          rows_before(hub, std::min(path, (t + 1) * kMergeTile));
    CHECK(inside_one_row >= hub_entries / kMergeTile - 1);
}

TEST_CASE("148: every version in the emulator keeps NaN, inf and -0 as the CPU baseline does",
          "[148][emulation]") {
    check_special_values(Here::emulated(ThreadOrder::shuffled(kSeed148)));
}

TEST_CASE("148: every version in the emulator on the data files", "[148][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        check_every_version(Here::emulated(ThreadOrder::shuffled(8)),
                            spmv_case(read_data_file(name)));
    }
}

TEST_CASE("148: every version on the GPU, on the sweep, the tiles' edge cases and the data files",
          "[148][gpu]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < 300; ++g) {
        const SpmvCase c = spmv_case(edge_case_graph(g, kSeed148));
        CAPTURE(g, c.csr.num_rows, c.csr.nnz());
        check_every_version(Here::gpu(), c);
    }
    for (const auto& [name, input] : tile_edge_cases(100000)) {
        CAPTURE(name);
        check_every_version(Here::gpu(), spmv_case(input));
    }
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        check_every_version(Here::gpu(), spmv_case(read_data_file(name)));
    }
}

TEST_CASE("148: every version on the GPU keeps NaN, inf and -0 as the CPU baseline does",
          "[148][gpu]") {
    check_special_values(Here::gpu());
}
