// Tests of 145 and format_checks.h: Fig. 14.1 in ELL, HYB, JDS and DIA as worked out from the
// figure; every conversion undone to the same multiset of entries on the real matrices of
// data/, on 1,200 random matrices and on the 10^5-entry hub; HYB's width rule and JDS's
// order by counting; DIA's offsets and padding on small matrices worked out by hand, its limit
// just under and just over, and its round trip on the Poisson stencils; and each format's kernel
// and CPU baseline against the double reference, emulated in shuffled orders and on a GPU.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>
#include "../ch14_spmv/145_regular_formats_kernel.cu"
#include "../ch14_spmv/proof/145_regular_formats_kernel.cuh"
#include "../common/stencils.h"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed145 = 145;

// Each format's conversion, undone, gives back exactly the input's entries; ELL only where it
// is affordable (the hub's would have 10^10 slots).
void require_round_trips(const HostCoo& input) {
    const std::vector<Entry> expected = sorted_entries(input);
    const HostCsr csr = csr_from_coo_by_stable_sort(input);
    if (ell_is_practical(csr)) {
        const HostEll ell = ell_from_csr(csr);
        REQUIRE(is_well_formed(ell));
        REQUIRE(ell.width == max_row_length(csr));
        REQUIRE(sorted_entries(coo_from_ell(ell)) == expected);
    }
    const HostHyb hyb = hyb_from_csr(csr);
    REQUIRE(is_well_formed(hyb.ell));
    REQUIRE(follows_hyb_rule(row_lengths(csr), hyb.ell.width));
    REQUIRE(sorted_entries(coo_from_hyb(hyb)) == expected);
    const HostJds jds = jds_from_csr(csr);
    REQUIRE(is_well_formed(jds));
    REQUIRE(sorted_longest_first(jds, row_lengths(csr)));
    REQUIRE(jds.num_diagonals() == max_row_length(csr));
    REQUIRE(sorted_entries(coo_from_jds(jds)) == expected);
}

// Each format's kernel, emulated, and HYB's and JDS's baselines, against the reference.
void require_emulated_spmv(const HostCoo& input, uint64_t seed) {
    const auto [csr, x, y0, reference] = spmv_case(input);
    const Here here = Here::emulated(ThreadOrder::shuffled(seed));
    if (ell_is_practical(csr))
        REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_ell, ell_from_csr(csr), x, y0),
                             reference));
    const HostHyb hyb = hyb_from_csr(csr);
    const HostJds jds = jds_from_csr(csr);
    REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_hyb, hyb, x, y0), reference));
    REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_jds, jds, x, y0), reference));
    std::vector<float> y_hyb_cpu = y0, y_jds_cpu = y0;
    spmv_hyb_cpu(hyb, x, y_hyb_cpu);
    spmv_jds_cpu(jds, x, y_jds_cpu);
    REQUIRE(spmv_matches(y_hyb_cpu, reference));
    REQUIRE(spmv_matches(y_jds_cpu, reference));
    // A JDS thread adds its row's entries in the order that the baseline does: the same bits.
    REQUIRE(spmv_on_device(here, launch_spmv_jds, jds, x, y0) == y_jds_cpu);
}

// DIA's offsets counted here, with a set: one per distinct column - row.
int distinct_diagonals(const HostCoo& input) {
    std::set<long long> offsets;
    for (size_t k = 0; k < input.nnz(); ++k)
        offsets.insert(static_cast<long long>(input.cols[k]) - input.rows[k]);
    return static_cast<int>(offsets.size());
}

// DIA, built whatever its size (the limit is the program's choice, not the format's), undone to
// the matrix: the entries of one place added, zeros left out. Where the input has neither
// duplicates nor zeros that is its own list of entries, which is checked directly.
void require_dia_round_trip(const HostCoo& input) {
    const HostCsr csr = csr_from_coo_by_stable_sort(input);
    const HostDia dia = dia_from_csr(csr);
    REQUIRE(is_well_formed(dia));
    REQUIRE(dia.num_diagonals() == distinct_diagonals(input));
    REQUIRE(dia.num_slots() == static_cast<size_t>(input.num_rows) * dia.num_diagonals());
    REQUIRE(dia_size(csr).bytes == 4 * (input.num_rows + size_t{1}) * dia.num_diagonals());
    REQUIRE(sorted_entries(coo_from_dia(dia)) == summed_entries(csr));
    const std::vector<Entry> entries = sorted_entries(input);
    bool distinct_nonzero = true;
    for (size_t k = 0; k < entries.size(); ++k)
        distinct_nonzero = distinct_nonzero && std::get<2>(entries[k]) != 0.0f &&
                           (k == 0 || std::get<0>(entries[k]) != std::get<0>(entries[k - 1]) ||
                            std::get<1>(entries[k]) != std::get<1>(entries[k - 1]));
    if (distinct_nonzero) REQUIRE(sorted_entries(coo_from_dia(dia)) == entries);
}

// DIA's kernel, emulated, and its baseline against the reference; the two add a row's
// diagonals in the same order, so they agree to the bit.
void require_emulated_dia_spmv(const HostCoo& input, uint64_t seed) {
    const auto [csr, x, y0, reference] = spmv_case(input);
    const HostDia dia = dia_from_csr(csr);
    const std::vector<float> y =
        spmv_on_device(Here::emulated(ThreadOrder::shuffled(seed)), launch_spmv_dia<>, dia, x, y0);
    std::vector<float> y_cpu = y0;
    spmv_dia_cpu(dia, x, y_cpu);
    REQUIRE(spmv_matches(y, reference));
    REQUIRE(spmv_matches(y_cpu, reference));
    REQUIRE(y == y_cpu);
}

// The Poisson matrices of 2^0 to 2^12 points, in 2D and in 3D.
std::vector<StencilShape> stencil_shapes() {
    std::vector<StencilShape> all;
    for (StencilKind kind : {StencilKind::two_d, StencilKind::three_d})
        for (int scale : {0, 1, 2, 3, 6, 9, 12}) all.push_back(stencil_shape(kind, scale));
    return all;
}

// A square matrix of n rows: its main diagonal full, and one entry on each of `extra` more
// diagonals (offsets 1, 2, ...), so DIA has 1 + extra diagonals for n + extra entries.
HostCoo diagonal_and_singles(int n, int extra) {
    HostCoo a;
    a.num_rows = a.num_cols = n;
    for (int r = 0; r < n; ++r) {
        a.rows.push_back(r);
        a.cols.push_back(r);
        a.values.push_back(2.0f);
    }
    for (int e = 1; e <= extra; ++e) {
        a.rows.push_back(0);
        a.cols.push_back(e);
        a.values.push_back(-1.0f);
    }
    return a;
}

}  // namespace

TEST_CASE("145: Fig. 14.1 in ELL, HYB and JDS", "[145][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    REQUIRE(csr.row_offsets == kFigRowOffsets);
    // The figure's rows, r0 [1 7 . .], r1 [5 . 3 9], r2 [. 2 8 .], r3 [. . . 6], padded to 3
    // entries and read down the columns of the padded table.
    const HostEll ell = ell_from_csr(csr);
    CHECK(ell.width == 3);
    CHECK(ell.nnz_per_row == std::vector<int>{2, 3, 2, 1});
    CHECK(ell.values == std::vector<float>{1, 5, 2, 6, 7, 3, 8, 0, 0, 9, 0, 0});
    CHECK(ell.col_idx == std::vector<int>{0, 0, 1, 3, 1, 2, 2, -1, -1, 3, -1, -1});
    // 3 of the 4 rows have two or more entries, only row 1 has three: width 2, and row 1's
    // third entry (9, in column 3) goes to COO.
    const HostHyb hyb = hyb_from_csr(csr);
    CHECK(hyb.ell.width == 2);
    CHECK(hyb.ell.values == std::vector<float>{1, 5, 2, 6, 7, 3, 8, 0});
    CHECK(hyb.coo.rows == std::vector<int>{1});
    CHECK(hyb.coo.cols == std::vector<int>{3});
    CHECK(hyb.coo.values == std::vector<float>{9});
    // Sorted by length: r1 (3), r0 (2), r2 (2), r3 (1). Diagonal 0: 5 1 2 6; 1: 3 7 8; 2: 9.
    const HostJds jds = jds_from_csr(csr);
    CHECK(jds.row_perm == std::vector<int>{1, 0, 2, 3});
    CHECK(jds.diag_ptrs == std::vector<int>{0, 4, 7, 8});
    CHECK(jds.values == std::vector<float>{5, 1, 2, 6, 3, 7, 8, 9});
    CHECK(jds.col_idx == std::vector<int>{0, 0, 1, 3, 2, 1, 2, 3});
    // y = A * x for x = 1 2 3 4: 1 + 14, 5 + 9 + 36, 4 + 24, 24.
    const std::vector<float> x = {1, 2, 3, 4}, zeros(4, 0.0f);
    const std::vector<float> expected = {15, 50, 28, 24};
    for (uint64_t seed : {1u, 2u, 145u}) {
        const Here here = Here::emulated(ThreadOrder::shuffled(seed));
        CHECK(spmv_on_device(here, launch_spmv_ell, ell, x, zeros) == expected);
        CHECK(spmv_on_device(here, launch_spmv_hyb, hyb, x, zeros) == expected);
        CHECK(spmv_on_device(here, launch_spmv_jds, jds, x, zeros) == expected);
    }
    std::vector<float> y_ell = zeros, y_hyb = zeros, y_jds = zeros;
    spmv_ell_cpu(ell, x, y_ell);
    spmv_hyb_cpu(hyb, x, y_hyb);
    spmv_jds_cpu(jds, x, y_jds);
    CHECK(y_ell == expected);
    CHECK(y_hyb == expected);
    CHECK(y_jds == expected);
}

TEST_CASE("145: DIA of Fig. 14.1, worked out from the figure", "[145][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    // column - row: r0 0 1, r1 -1 1 2, r2 -1 0, r3 0. Diagonal -1 holds 5 (r1) and 2 (r2), r0's
    // slot being outside; diagonal 0: 1 . 8 6; diagonal 1: 7 3 . and r3 outside; 2: . 9, r2 and
    // r3 outside.
    const HostDia dia = dia_from_csr(csr);
    CHECK(dia.offsets == std::vector<int>{-1, 0, 1, 2});
    CHECK(dia.data == std::vector<float>{0, 5, 2, 0, 1, 0, 8, 6, 7, 3, 0, 0, 0, 9, 0, 0});
    CHECK(dia_bytes(4, 4) == 80);  // 16 slots and 4 offsets
    CHECK(dia_size(csr).bytes == 80);
    CHECK(dia_size(csr).practical());
    const std::vector<float> x = {1, 2, 3, 4}, zeros(4, 0.0f);
    const std::vector<float> expected = {15, 50, 28, 24};
    for (uint64_t seed : {1u, 2u, 145u})
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(seed)), launch_spmv_dia<>, dia, x,
                             zeros) == expected);
    std::vector<float> y = zeros;
    spmv_dia_cpu(dia, x, y);
    CHECK(y == expected);
}

TEST_CASE("145: DIA's offsets and padding on small matrices", "[145][emulation]") {
    SECTION(
        "a tridiagonal matrix: three diagonals, one padding slot at each end of the outer two") {
        HostCoo a;
        a.num_rows = a.num_cols = 5;
        for (int r = 0; r < 5; ++r)
            for (int c = std::max(0, r - 1); c <= std::min(4, r + 1); ++c) {
                a.rows.push_back(r);
                a.cols.push_back(c);
                a.values.push_back(r == c ? 2.0f : static_cast<float>(-1 - r));
            }
        const HostDia dia = dia_from_csr(csr_from_coo_by_stable_sort(a));
        CHECK(dia.offsets == std::vector<int>{-1, 0, 1});
        CHECK(dia.data == std::vector<float>{0, -2, -3, -4, -5, 2, 2, 2, 2, 2, -1, -2, -3, -4, 0});
        CHECK(dia_bytes(5, 3) < csr_bytes(csr_from_coo_by_stable_sort(a)));  // 72 against 128
        const std::vector<float> x = {1, 1, 1, 1, 1};
        // Row r: a(r, r - 1) + 2 + a(r, r + 1), the off-diagonal entries of row r being -1 - r.
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(5)), launch_spmv_dia<>, dia, x,
                             zeros(5)) == std::vector<float>{1, -2, -4, -6, -3});
    }
    SECTION("a 1 x 1 matrix, with its entry and without") {
        const HostDia one = dia_from_csr(csr_from_coo_by_stable_sort(coo_of(1, 1, {0}, {0}, {3})));
        CHECK(one.offsets == std::vector<int>{0});
        CHECK(one.data == std::vector<float>{3});
        const HostDia none = dia_from_csr(csr_from_coo_by_stable_sort(coo_of(1, 1, {}, {}, {})));
        CHECK(none.offsets.empty());
        CHECK(none.data.empty());
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(1)), launch_spmv_dia<>, none, {2},
                             {0.5f}) == std::vector<float>{0.5f});
    }
    SECTION("one row: a diagonal per entry, one slot each") {
        const HostDia dia =
            dia_from_csr(csr_from_coo_by_stable_sort(coo_of(1, 6, {0, 0}, {4, 1}, {7, 5})));
        CHECK(dia.offsets == std::vector<int>{1, 4});
        CHECK(dia.data == std::vector<float>{5, 7});
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(1)), launch_spmv_dia<>, dia,
                             {1, 2, 3, 4, 5, 6}, {0}) == std::vector<float>{5 * 2 + 7 * 5});
    }
    SECTION("an empty matrix, with and without columns") {
        for (int cols : {0, 3}) {
            const HostDia dia =
                dia_from_csr(csr_from_coo_by_stable_sort(coo_of(0, cols, {}, {}, {})));
            CHECK(dia.offsets.empty());
            CHECK(dia.data.empty());
            CHECK(is_well_formed(dia));
            CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(1)), launch_spmv_dia<>, dia,
                                 zeros(cols), {})
                      .empty());
        }
    }
    SECTION("duplicates add into one slot, and an explicit zero is padding") {
        // (0, 0) three times: 1 + 2 + 4; (1, 0) an explicit zero.
        const HostCsr csr =
            csr_from_coo_by_stable_sort(coo_of(2, 2, {0, 1, 0, 0}, {0, 0, 0, 0}, {1, 0, 2, 4}));
        const HostDia dia = dia_from_csr(csr);
        CHECK(dia.offsets == std::vector<int>{-1, 0});
        CHECK(dia.data == std::vector<float>{0, 0, 7, 0});
        CHECK(sorted_entries(coo_from_dia(dia)) == std::vector<Entry>{{0, 0, 7.0f}});
        CHECK(summed_entries(csr) == std::vector<Entry>{{0, 0, 7.0f}});
    }
    SECTION("a malformed DIA is told apart") {
        HostDia dia = dia_from_csr(csr_from_coo_by_stable_sort(fig14_1()));
        REQUIRE(is_well_formed(dia));
        HostDia outside = dia;
        outside.data[outside.slot(0, 0)] = 1.0f;  // row 0's column on diagonal -1 is -1
        CHECK_FALSE(is_well_formed(outside));
        HostDia unsorted = dia;
        std::swap(unsorted.offsets[0], unsorted.offsets[1]);
        CHECK_FALSE(is_well_formed(unsorted));
    }
}

TEST_CASE("145: DIA is not built past 1.5 times the CSR's bytes, just under and just over",
          "[145][emulation]") {
    // 5 x 5, one entry on each of D diagonals: DIA 4 x 6 x D bytes, CSR 8 x D + 24. D = 3: 72
    // against 48, exactly 1.5 times, built; D = 4: 96 against 56, 1.71 times, not built.
    const DiaSize at_limit =
        dia_size(csr_from_coo_by_stable_sort(coo_of(5, 5, {0, 0, 0}, {0, 1, 2}, {1, 1, 1})));
    CHECK(at_limit.bytes == 72);
    CHECK(at_limit.csr_bytes == 48);
    CHECK(at_limit.to_csr_bytes() == kDiaBytesLimit);
    CHECK(at_limit.practical());
    const HostCsr over =
        csr_from_coo_by_stable_sort(coo_of(5, 5, {0, 0, 0, 0}, {0, 1, 2, 3}, {1, 1, 1, 1}));
    CHECK(dia_size(over).bytes == 96);
    CHECK(dia_size(over).csr_bytes == 56);
    CHECK_FALSE(dia_is_practical(over));
    CHECK_FALSE(dia_if_practical(over).has_value());
    // 8 x 8, the main diagonal and single entries on more: DIA 36 x D bytes, CSR 92 + 8 x D.
    // D = 5: 180 against 132 (1.36 times), built; D = 6: 216 against 140 (1.54 times), not.
    const HostCsr under = csr_from_coo_by_stable_sort(diagonal_and_singles(8, 4));
    CHECK(dia_size(under).bytes == 180);
    CHECK(dia_size(under).csr_bytes == 132);
    REQUIRE(dia_if_practical(under).has_value());
    CHECK(dia_if_practical(under)->num_diagonals() == 5);
    const HostCsr just_over = csr_from_coo_by_stable_sort(diagonal_and_singles(8, 5));
    CHECK(dia_size(just_over).bytes == 216);
    CHECK(dia_size(just_over).csr_bytes == 140);
    CHECK_FALSE(dia_if_practical(just_over).has_value());
    // The reason names the diagonals, the bytes on both sides, the ratio and the limit.
    const std::string why = dia_not_built(dia_size(just_over));
    CHECK(why ==
          "DIA is not built: its 6 diagonals of 8 slots would take 216 bytes (216 bytes), "
          "1.5 times the CSR's 140 bytes; the limit is 1.5 times");
    // The hub's 10^5 entries lie on 10^5 diagonals: 40 GB of slots.
    CHECK_FALSE(dia_is_practical(csr_from_coo_by_stable_sort(make_star(100001, 0, kSeed145))));
}

TEST_CASE("145: DIA on the Poisson stencils: 5 or 7 diagonals, a round trip, the kernel",
          "[145][emulation][stencil]") {
    for (const StencilShape& shape : stencil_shapes()) {
        const HostCoo input = make_stencil(shape);
        CAPTURE(shape.name(), shape.side);
        const HostCsr csr = csr_from_coo_by_stable_sort(input);
        const HostDia dia = dia_from_csr(csr);
        // A point's neighbours along the axes are 1, side (and side^2 in 3D) rows away, in both
        // directions, where the grid has a second point along that axis.
        std::vector<int> expected = {0};
        if (shape.side > 1)
            for (int d = 0, step = 1; d < shape.dimensions(); ++d, step *= shape.side)
                expected.insert(expected.end(), {-step, step});
        std::sort(expected.begin(), expected.end());
        CHECK(dia.offsets == expected);
        CHECK(dia_is_practical(csr));
        require_dia_round_trip(input);
        require_emulated_dia_spmv(input, kSeed145);
    }
}

TEST_CASE("145: conversions round-trip on the real matrices of data/", "[145][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo input = read_data_file(name);
        require_round_trips(input);
        require_emulated_spmv(input, kSeed145);
        require_dia_round_trip(input);
        require_emulated_dia_spmv(input, kSeed145);
    }
}

TEST_CASE("145: conversions round-trip on 1,200 random matrices and the hub",
          "[145][emulation][random]") {
    INFO("seed " << kSeed145);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed145);
        CAPTURE(g, input.num_rows, input.nnz());
        require_round_trips(input);
        require_dia_round_trip(input);
    }
    const HostCoo star = make_star(100001, 0, kSeed145);
    CHECK_FALSE(ell_is_practical(csr_from_coo_by_stable_sort(star)));
    require_round_trips(star);
    // HYB on the star: width 0 (no row but the hub has an entry), all 10^5 entries in COO.
    CHECK(hyb_from_csr(csr_from_coo_by_stable_sort(star)).coo.nnz() == 100000);
}

TEST_CASE("145: conversions round-trip on matrices large enough to be shared among the cores",
          "[145][emulation]") {
    // A 3D stencil of 2^17 rows (DIA and ELL practical), and R-MAT of 2^14 rows with a = 0.25
    // and 0.80: each conversion, its way back and the program's own check of the way back
    // (InputEntries) see every entry, whichever core converts it.
    for (const HostCoo& input :
         {make_stencil(stencil_shape(StencilKind::three_d, 17)), make_rmat(14, 16, 0.25, kSeed145),
          make_rmat(14, 16, 0.80, kSeed145)}) {
        CAPTURE(input.num_rows, input.nnz());
        require_round_trips(input);
        const HostCsr csr = csr_from_coo_by_stable_sort(input);
        if (dia_is_practical(csr)) require_dia_round_trip(input);
        const InputEntries entries(input);
        CHECK(entries.held_by(coo_from_hyb(hyb_from_csr(csr))));
        CHECK(entries.held_by(coo_from_jds(jds_from_csr(csr))));
        if (ell_is_practical(csr)) CHECK(entries.held_by(coo_from_ell(ell_from_csr(csr))));
        HostJds moved = jds_from_csr(csr);  // an entry's column changed
        moved.col_idx[moved.nnz() / 2] = (moved.col_idx[moved.nnz() / 2] + 1) % input.num_cols;
        CHECK_FALSE(entries.held_by(coo_from_jds(moved)));
    }
}

TEST_CASE("145: an ELL of a given width keeps each row's first entries", "[145][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    for (int width = 0; width <= 4; ++width) {
        CAPTURE(width);
        const HostEll ell = ell_from_csr(csr, width);
        REQUIRE(is_well_formed(ell));
        size_t kept = 0;
        for (int r = 0; r < 4; ++r)
            kept += std::min(width, kFigRowOffsets[r + 1] - kFigRowOffsets[r]);
        CHECK(coo_from_ell(ell).nnz() == kept);
    }
}

TEST_CASE("145: HYB's width rule on random row lengths", "[145][emulation][random]") {
    SplitMix64 rng(kSeed145);
    for (int trial = 0; trial < 1000; ++trial) {
        std::vector<int> lengths(rng.below(60));
        for (int& n : lengths) n = static_cast<int>(rng.below(trial % 2 ? 5 : 200));
        CAPTURE(trial, lengths.size());
        const int width = hyb_ell_width(lengths);
        REQUIRE(follows_hyb_rule(lengths, width));
    }
    CHECK(hyb_ell_width({}) == 0);
    CHECK(hyb_ell_width({7}) == 7);
    CHECK(hyb_ell_width({0, 0, 9}) == 9);     // a third of 3 rows is 1 row
    CHECK(hyb_ell_width({0, 0, 0, 9}) == 0);  // a third of 4 rows is 2 rows
}

TEST_CASE("145: the emulated ELL, HYB and JDS bodies match the reference",
          "[145][emulation][random]") {
    INFO("seed " << kSeed145);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed145);
        CAPTURE(g, input.num_rows, input.nnz());
        require_emulated_spmv(input, mix_seed(kSeed145, g));
        require_emulated_dia_spmv(input, mix_seed(kSeed145, g));
    }
    require_emulated_spmv(make_star(100001, 0, kSeed145), kSeed145);
}

TEST_CASE("145: GPU kernels of ELL, HYB and JDS on 200 random matrices, 0 rows and the hub",
          "[145][gpu][random]") {
    INFO("seed " << kSeed145);
    std::vector<HostCoo> inputs = {fig14_1(), make_uniform_random(0, 0, 1),
                                   make_uniform_random(7, 0, 1), make_star(100001, 0, kSeed145),
                                   make_uniform_random(3000, 100000, kSeed145)};
    for (int g = 0; g < 200; ++g) inputs.push_back(edge_case_graph(g, kSeed145));
    for (size_t g = 0; g < inputs.size(); ++g) {
        const HostCoo& input = inputs[g];
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        if (ell_is_practical(csr))
            REQUIRE(spmv_matches(
                spmv_on_device(Here::gpu(), launch_spmv_ell, ell_from_csr(csr), x, y0), reference));
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_hyb, hyb_from_csr(csr), x, y0),
                             reference));
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_jds, jds_from_csr(csr), x, y0),
                             reference));
        REQUIRE(cudaGetLastError() == cudaSuccess);
    }
}

TEST_CASE("145: DIA's GPU kernel on 200 random matrices, 0 rows, Fig. 14.1 and the stencils",
          "[145][gpu][random][stencil]") {
    INFO("seed " << kSeed145);
    std::vector<HostCoo> inputs;
    for (const StencilShape& shape : stencil_shapes()) inputs.push_back(make_stencil(shape));
    for (const HostCoo& extra :
         {fig14_1(), make_uniform_random(0, 0, 1), make_uniform_random(7, 0, 1),
          make_uniform_random(300, 2000, kSeed145)})
        inputs.push_back(extra);
    for (int g = 0; g < 200; ++g) inputs.push_back(edge_case_graph(g, kSeed145));
    for (size_t g = 0; g < inputs.size(); ++g) {
        const HostCoo& input = inputs[g];
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        REQUIRE(spmv_matches(
            spmv_on_device(Here::gpu(), launch_spmv_dia<>, dia_from_csr(csr), x, y0), reference));
        REQUIRE(cudaGetLastError() == cudaSuccess);
    }
}
