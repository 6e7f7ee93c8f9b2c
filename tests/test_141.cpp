// Tests of 141: Fig. 14.1 from its dense array to COO and CSR, the three CPU SpMVs (141's dense
// loop, 142's COO loop and 143's CSR loop), the program's products as it prints them, and the
// byte counts of the three layouts.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include "../ch14_spmv/141_spmv_formats_cpu_baseline.cpp"
#include "run_program.h"

namespace {

constexpr uint64_t kSeed141 = 141141;

// A random dense matrix: some rows and columns all zero, the rest with a random share of
// nonzeros, values small whole numbers of either sign (never a zero that looks like an entry).
DenseMatrix random_dense(SplitMix64& rng) {
    DenseMatrix d;
    d.num_rows = static_cast<int>(rng.below(13));
    d.num_cols = static_cast<int>(rng.below(13));
    d.values.assign(static_cast<size_t>(d.num_rows) * d.num_cols, 0.0f);
    const double share = rng.uniform();
    const int empty_row = static_cast<int>(rng.below(14)) - 1;
    for (int r = 0; r < d.num_rows; ++r)
        for (int c = 0; c < d.num_cols; ++c)
            if (r != empty_row && rng.uniform() < share) {
                const float magnitude = static_cast<float>(1 + rng.below(9));
                d.values[static_cast<size_t>(r) * d.num_cols + c] =
                    rng.below(2) ? magnitude : -magnitude;
            }
    return d;
}

// The nonzeros collected column by column, the opposite scan to the program's; compared as
// sorted entries, the two must still list the same (row, column, value) triples.
HostCoo nonzeros_by_columns(const DenseMatrix& d) {
    HostCoo a;
    a.num_rows = d.num_rows;
    a.num_cols = d.num_cols;
    for (int c = 0; c < d.num_cols; ++c)
        for (int r = 0; r < d.num_rows; ++r)
            if (d.at(r, c) != 0.0f) {
                a.rows.push_back(r);
                a.cols.push_back(c);
                a.values.push_back(d.at(r, c));
            }
    return a;
}

// The array that the program printed under `label`, as its text "[ ... ]", or "" if none.
std::string printed_array(const std::string& out, const std::string& label) {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line))
        if (line.rfind("  " + label + " ", 0) == 0 && line.find(" = [") != std::string::npos)
            return line.substr(line.find('['));
    return "";
}

std::vector<float> some_y0(int n) {
    std::vector<float> y(n);
    for (int i = 0; i < n; ++i) y[i] = static_cast<float>(i % 5) - 2.0f;
    return y;
}

}  // namespace

TEST_CASE("141: Fig. 14.1's dense array gives the notes' COO arrays", "[141]") {
    const HostCoo coo = dense_to_coo(fig14_1_dense());
    const HostCoo notes = fig14_1();
    CHECK(coo.values == std::vector<float>{1, 7, 5, 3, 9, 2, 8, 6});
    CHECK(coo.cols == std::vector<int>{0, 1, 0, 2, 3, 1, 2, 3});
    CHECK(coo.rows == std::vector<int>{0, 0, 1, 1, 1, 2, 2, 3});
    CHECK(coo.values == notes.values);
    CHECK(coo.cols == notes.cols);
    CHECK(coo.rows == notes.rows);
}

TEST_CASE("141: Fig. 14.1's dense array gives the notes' CSR arrays", "[141]") {
    const HostCsr csr = dense_to_csr(fig14_1_dense());
    CHECK(csr.row_offsets == kFigRowOffsets);
    CHECK(csr.row_offsets == std::vector<int>{0, 2, 5, 7, 8});
    CHECK(csr.values == fig14_1().values);
    CHECK(csr.col_idx == fig14_1().cols);
    CHECK(same_row_multisets(csr, fig14_1()));
}

TEST_CASE("141: the three SpMVs agree with the double reference on Fig. 14.1", "[141]") {
    const DenseMatrix d = fig14_1_dense();
    const std::vector<float> x = lesson_x(4), y0 = lesson_y0(4);
    REQUIRE(x == std::vector<float>{1, 1.125f, 1.25f, 1.375f});
    REQUIRE(y0 == std::vector<float>{0, 0.5f, 1, 0});
    std::vector<float> y_dense = y0, y_coo = y0, y_csr = y0;
    spmv_dense_cpu(d, x, y_dense);
    spmv_coo_cpu(dense_to_coo(d), x, y_coo);
    spmv_csr_cpu(dense_to_csr(d), x, y_csr);
    // By hand from the figure's rows: row 0 = 0 + 1 * 1 + 7 * 1.125, and so on; exact in float.
    const std::vector<float> by_hand = {0.0f + 1 + 7.875f, 0.5f + 5 + 3.75f + 12.375f,
                                        1.0f + 2.25f + 10.0f, 0.0f + 8.25f};
    CHECK(by_hand == std::vector<float>{8.875f, 21.625f, 13.25f, 8.25f});
    CHECK(y_dense == by_hand);
    CHECK(y_coo == by_hand);
    CHECK(y_csr == by_hand);
    CHECK(spmv_matches(y_coo, spmv_reference(fig14_1(), x, y0)));
}

TEST_CASE("141: the program's three products start from the chapter's x and y0", "[141]") {
    const ProgramRun run = run_program("141_spmv_formats_cpu_baseline", {});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(printed_array(run.out, "x") == bracketed(lesson_x(4)));
    CHECK(printed_array(run.out, "y0") == bracketed(lesson_y0(4)));
    const std::vector<float> by_hand = {8.875f, 21.625f, 13.25f, 8.25f};
    CHECK(spmv_matches(by_hand, spmv_reference(fig14_1(), lesson_x(4), lesson_y0(4))));
    for (const char* y : {"y_dense", "y_coo", "y_csr"}) {
        CAPTURE(y);
        CHECK(printed_array(run.out, y) == bracketed(by_hand));
    }
}

TEST_CASE("141: conversions and SpMVs on 1,200 random dense matrices", "[141][random]") {
    INFO("seed " << kSeed141);
    SplitMix64 rng(kSeed141);
    int empty_matrices = 0, all_zero = 0;
    for (int trial = 0; trial < 1200; ++trial) {
        const DenseMatrix d = random_dense(rng);
        CAPTURE(trial, d.num_rows, d.num_cols);
        const HostCoo expected = nonzeros_by_columns(d);
        const HostCoo coo = dense_to_coo(d);
        const HostCsr csr = dense_to_csr(d);
        REQUIRE(sorted_entries(coo) == sorted_entries(expected));
        REQUIRE(same_row_multisets(csr, expected));
        REQUIRE(csr.row_offsets == csr_from_coo_by_stable_sort(expected).row_offsets);

        const std::vector<float> x = lesson_x(d.num_cols), y0 = some_y0(d.num_rows);
        const SpmvReference reference = spmv_reference(expected, x, y0);
        std::vector<float> y_dense = y0, y_coo = y0, y_csr = y0;
        spmv_dense_cpu(d, x, y_dense);
        spmv_coo_cpu(coo, x, y_coo);
        spmv_csr_cpu(csr, x, y_csr);
        REQUIRE(spmv_matches(y_dense, reference));
        REQUIRE(spmv_matches(y_coo, reference));
        REQUIRE(spmv_matches(y_csr, reference));
        empty_matrices += d.num_rows == 0 || d.num_cols == 0;
        all_zero += expected.nnz() == 0;
    }
    CHECK(empty_matrices > 0);
    CHECK(all_zero > empty_matrices);
}

TEST_CASE("the SpMV bound: underflow's absolute error passes, a few ulps of a normal sum fail",
          "[141][bound][underflow]") {
    const float smallest_normal = std::numeric_limits<float>::min();
    const float ulp_of_one = std::ldexp(1.0f, -23);
    // Row 0 holds one subnormal entry, row 1 one entry of 1; x = 1, y0 = 0.
    HostCoo a;
    a.num_rows = a.num_cols = 2;
    a.rows = {0, 1};
    a.cols = {0, 1};
    a.values = {1e-40f, 1.0f};
    const SpmvReference reference = spmv_reference(a, ones(2), zeros(2));
    // Kept, as the CPU keeps it, or flushed, as a GPU's global atomics flush it.
    CHECK(spmv_matches({1e-40f, 1.0f}, reference));
    CHECK(spmv_matches({0.0f, 1.0f}, reference));
    // Row 1's rounding bound is (1 + 2) * 2^-23 of its one product: three ulps of 1 pass, and
    // four fail, however many smallest normals underflow adds.
    CHECK(spmv_matches({0.0f, 1.0f + 3 * ulp_of_one}, reference));
    CHECK_FALSE(spmv_matches({0.0f, 1.0f + 4 * ulp_of_one}, reference));
    CHECK_FALSE(spmv_matches({0.0f, 1.0f - 4 * ulp_of_one}, reference));
    // Row 0 may lose its entry (below FLT_MIN) and no more: its allowance is 4 FLT_MIN, for one
    // multiply-add's three flushes (x_0 = 1) and y0's.
    CHECK(spmv_matches({-3 * smallest_normal, 1.0f}, reference));
    CHECK_FALSE(spmv_matches({5 * smallest_normal, 1.0f}, reference));
}

TEST_CASE("141: byte counts of Fig. 14.1 and where COO and CSR start to pay off", "[141]") {
    const StorageBytes fig = storage_bytes(4, 4, 8);
    CHECK(fig.dense == 64);
    CHECK(fig.coo == 96);
    CHECK(fig.csr == 84);
    CHECK(coo_break_even_density() == Approx(1.0 / 3.0));
    CHECK(largest_nnz_where_coo_is_smaller(4, 4) == 5);
    // The rule and the byte count must agree on every count, for several shapes.
    for (int rows : {1, 3, 4, 7, 30})
        for (int cols : {1, 2, 4, 9, 30}) {
            CAPTURE(rows, cols);
            const double cells = static_cast<double>(rows) * cols;
            for (int nnz = 0; nnz <= rows * cols; ++nnz) {
                const StorageBytes s = storage_bytes(rows, cols, nnz);
                REQUIRE((s.coo < s.dense) == (nnz / cells < coo_break_even_density()));
                REQUIRE((s.csr < s.dense) == (nnz / cells < csr_break_even_density(rows, cols)));
            }
        }
    const StorageBytes one_percent = storage_bytes(1000, 1000, 10000);
    CHECK(one_percent.coo / one_percent.dense == Approx(0.03));
}
