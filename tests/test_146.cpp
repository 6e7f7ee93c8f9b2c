// Tests of 146: the table's facts on Fig. 14.1, worked out from the figure (bytes, insertion costs,
// lookup reads, row-length balance), and its properties on random matrices (an insertion keeps
// every format's entries plus the new one, CSR moves exactly the later rows' entries, column-
// major ELL moves none, every lookup finds exactly what the entry list holds, every kernel's
// access model reads each entry once, every format's CPU SpMV is within the reference's bound),
// DIA's column among them: its bytes, insertions, lookups and access model worked out by hand on
// Fig. 14.1, and on the stencils and random matrices checked against the matrix's values.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "../ch14_spmv/146_design_considerations_cpu_baseline.cpp"
#include "../ch14_spmv/format_checks.h"
#include "../common/stencils.h"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed146 = 146;

std::vector<Entry> with_entry(const HostCoo& input, int row, int col, float value) {
    std::vector<Entry> e = sorted_entries(input);
    e.emplace_back(row, col, value);
    std::sort(e.begin(), e.end());
    return e;
}

bool in_entry_list(const HostCoo& a, int row, int col) {
    for (size_t k = 0; k < a.nnz(); ++k)
        if (a.rows[k] == row && a.cols[k] == col) return true;
    return false;
}

// The place's value in the matrix, its entries added in input order: what DIA holds there.
float matrix_value(const HostCoo& a, int row, int col) {
    float sum = 0.0f;
    for (size_t k = 0; k < a.nnz(); ++k)
        if (a.rows[k] == row && a.cols[k] == col) sum += a.values[k];
    return sum;
}

}  // namespace

TEST_CASE("146: bytes of each format on Fig. 14.1", "[146]") {
    const Formats f = build_formats(fig14_1());
    REQUIRE(f.ell_built);
    // 8 entries, 4 rows: COO 3 x 8 x 4; CSR 2 x 8 x 4 + 5 x 4; ELL 4 x 3 slots x 8 + 4 x 4;
    // HYB width 2: 4 x 2 x 8 + 4 x 4, and one COO entry of 12; JDS 2 x 8 x 4 + 4 x 4 + 4 x 4.
    CHECK(built_bytes(f.coo) == 96);
    CHECK(built_bytes(f.csr) == 84);
    CHECK(built_bytes(f.ell) == 112);
    CHECK(built_bytes(f.hyb) == 92);
    CHECK(built_bytes(f.jds) == 96);
    CHECK(ell_bytes(4, 3) == 112);
    CHECK(hyb_bytes(f.hyb) == 92);
    CHECK(jds_bytes(f.jds) == 96);
    // DIA: diagonals -1, 0, 1 and 2, a slot per row each and 4 offsets: 4 x 4 x 4 + 4 x 4.
    REQUIRE(f.dia_built);
    CHECK(built_bytes(f.dia) == 80);
    CHECK(std::count(f.dia.data.begin(), f.dia.data.end(), 0.0f) == 8);
}

TEST_CASE("146: DIA's column on Fig. 14.1: insertions, lookups, access and balance", "[146]") {
    Formats f = build_formats(fig14_1());
    REQUIRE(f.dia_built);
    // (1, 1) is on diagonal 0, where row 1 has no entry: its padding slot takes it.
    const InsertCost padding = insert_into_dia(f.dia, 1, 1, 1.0f);
    CHECK(padding.moved == 0);
    CHECK(padding.written == 1);
    CHECK(padding.index_updates == 0);
    // (0, 0) holds 1 already: the new value is added to it.
    insert_into_dia(f.dia, 0, 0, 1.0f);
    CHECK(f.dia.data[f.dia.slot(0, 1)] == 2.0f);
    // (2, 0) is on diagonal -2, none yet: a new first diagonal of 4 slots (the entry and 3
    // padding), the other 4 diagonals' 9 values (the 8 entries and (1, 1)) move 4 slots along,
    // and the new offset and the 4 after it change places.
    const InsertCost new_diagonal = insert_into_dia(f.dia, 2, 0, 1.0f);
    CHECK(new_diagonal.moved == 9);
    CHECK(new_diagonal.written == 4);
    CHECK(new_diagonal.index_updates == 5);
    CHECK(f.dia.offsets == std::vector<int>{-2, -1, 0, 1, 2});
    CHECK(is_well_formed(f.dia));

    const Formats g = build_formats(fig14_1());
    // Row 2 meets diagonals -1, 0 and 1 (column 4 of diagonal 2 is outside): the first offset
    // >= -2 takes 3 probes of the 4 offsets (indices 2, 1, 0), the first >= 2 takes 2 (2, 3),
    // then its 3 slots. (2, 2) is on diagonal 0: 3 probes (2, 1, 0), then its slot.
    CHECK(find_in_dia(g.dia, 2, 2).reads_to_row == 8);
    CHECK(find_in_dia(g.dia, 2, 2).reads_to_element == 4);
    CHECK(find_in_dia(g.dia, 2, 2).found);
    CHECK_FALSE(find_in_dia(g.dia, 3, 0).found);
    CHECK_FALSE(find_in_dia(g.dia, 1, 1).found);  // diagonal 0 exists, row 1's slot is padding

    const KernelModels m = model_kernels(g);
    REQUIRE(m.dia_modelled);
    // One request per diagonal (4 rows, one warp); 12 of the 16 slots are inside the matrix
    // (rows 0..3 meet 3, 4, 3 and 2 diagonals), each read once, 4 of them padding zeros.
    CHECK(m.stats[kDia].requests == 4);
    CHECK(m.stats[kDia].reads == 12);
    CHECK(m.stats[kDia].contiguous_fraction() == 1.0);
    CHECK(m.stats[kDia].lanes_busy() == Approx(12.0 / 16));
    CHECK(m.stats[kDia].max_work == 4);
    CHECK(m.stats[kDia].mean_work() == 3.0);
}

TEST_CASE("146: DIA's column on the Poisson stencils", "[146][stencil]") {
    for (StencilKind kind : {StencilKind::two_d, StencilKind::three_d})
        for (int scale : {4, 6, 10}) {  // sides of 3 or more: a point with all its neighbours
            const StencilShape shape = stencil_shape(kind, scale);
            CAPTURE(shape.name(), shape.side);
            const Formats f = build_formats(make_stencil(shape));
            REQUIRE(f.dia_built);
            const int diagonals = 1 + 2 * shape.dimensions();
            CHECK(f.dia.num_diagonals() == diagonals);
            // Every slot inside the matrix but those that a face of the grid cuts off holds an
            // entry: the zeros inside are the slots of points on a face, on the diagonal that
            // would cross it.
            const size_t rows = static_cast<size_t>(shape.rows());
            const size_t padding = rows * diagonals - static_cast<size_t>(shape.nnz());
            CHECK(static_cast<size_t>(std::count(f.dia.data.begin(), f.dia.data.end(), 0.0f)) ==
                  padding);
            CHECK(built_bytes(f.dia) == 4 * (rows + 1) * diagonals);
            CHECK(built_bytes(f.dia) < built_bytes(f.csr));
            const KernelModels m = model_kernels(f);
            CHECK(m.stats[kDia].contiguous_fraction() == 1.0);
            CHECK(m.stats[kDia].max_work == static_cast<size_t>(diagonals));
            const std::vector<float> x = lesson_x(f.csr.num_cols), y0(f.csr.num_rows, 0.25f);
            std::vector<float> y = y0;
            spmv_dia_cpu(f.dia, x, y);
            CHECK(spmv_matches(y, spmv_reference(f.coo, x, y0)));
        }
}

TEST_CASE("146: adding an entry to Fig. 14.1's rows, counted", "[146]") {
    Formats f = build_formats(fig14_1());
    // Row 2 ends at offset 7; only row 3's one entry lies after it; offsets 3 and 4 grow.
    const InsertCost csr = insert_into_csr(f.csr, 2, 0, 1.0f);
    CHECK(csr.moved == 1);
    CHECK(csr.index_updates == 2);
    // Row 2 has 2 entries and ELL is 3 wide: a free slot.
    const InsertCost ell_free = insert_into_ell(f.ell, 2, 0, 1.0f);
    CHECK(ell_free.moved == 0);
    CHECK(ell_free.written == 1);
    // Row 1 is full: one more column of 4 slots (the entry and 3 padding); nothing moves.
    const InsertCost ell_full = insert_into_ell(f.ell, 1, 1, 1.0f);
    CHECK(ell_full.moved == 0);
    CHECK(ell_full.written == 4);
    CHECK(f.ell.width == 4);
    // Row 2 (sorted position 2, length 2) must pass row 0 (position 1, length 2): both rows'
    // 2 entries change places; the new entry ends the last diagonal, with nothing after it.
    const InsertCost jds = insert_into_jds(f.jds, 2, 0, 1.0f);
    CHECK(jds.moved == 4);
    CHECK(f.jds.row_perm == std::vector<int>{1, 2, 0, 3});
    CHECK(f.jds.diag_ptrs == std::vector<int>{0, 4, 7, 9});
    // HYB is 2 wide and row 2 is full there: the entry goes to the COO part.
    const InsertCost hyb = insert_into_hyb(f.hyb, 2, 0, 1.0f);
    CHECK(hyb.moved == 0);
    CHECK(f.hyb.coo.nnz() == 2);
    CHECK(insert_into_coo(f.coo, 2, 0, 1.0f).moved == 0);
}

TEST_CASE("146: reads to reach row 2 and (2, 2) of Fig. 14.1", "[146]") {
    const Formats f = build_formats(fig14_1());
    // CSR: two offsets, then columns 1 and 2 of the row.
    CHECK(find_in_csr(f.csr, 2, 2).reads_to_row == 2);
    CHECK(find_in_csr(f.csr, 2, 2).reads_to_element == 4);
    // ELL: the row's length, then its two slots.
    CHECK(find_in_ell(f.ell, 2, 2).reads_to_element == 3);
    // COO as stored: all 8 row indices for the row; for the entry, rows 0-6 (7 reads) and the
    // columns of entries 5 and 6.
    CHECK(find_in_coo(f.coo, 2, 2).reads_to_row == 8);
    CHECK(find_in_coo(f.coo, 2, 2).reads_to_element == 9);
    // JDS: row 2 is at sorted position 2 (3 reads of row_perm), diag_ptrs[0], then diagonals 0
    // and 1 reach position 2 and diagonal 2 (1 entry) does not: 3 more reads.
    CHECK(find_in_jds(f.jds, 2, 2).reads_to_row == 7);
    CHECK(find_in_jds(f.jds, 2, 2).reads_to_element == 8);
    for (const Lookup& l :
         {find_in_coo(f.coo, 2, 2), find_in_csr(f.csr, 2, 2), find_in_ell(f.ell, 2, 2),
          find_in_hyb(f.hyb, 2, 2), find_in_jds(f.jds, 2, 2),
          find_in_row_sorted_coo(sorted_by_row(f.coo), 2, 2)})
        CHECK(l.found);
    CHECK_FALSE(find_in_csr(f.csr, 3, 0).found);
}

TEST_CASE("146: row-length balance of Fig. 14.1", "[146]") {
    // Lengths 2 3 2 1: mean 2, variance (0 + 1 + 0 + 1) / 4 = 1/2.
    const Balance b = row_length_balance({2, 3, 2, 1});
    CHECK(b.max == 3);
    CHECK(b.mean == 2);
    CHECK(b.cv == Approx(std::sqrt(0.5) / 2));
    CHECK(row_length_balance({}).mean == 0);
}

TEST_CASE("146: the kernels' access model of Fig. 14.1", "[146]") {
    const KernelModels m = model_kernels(build_formats(fig14_1()));
    CHECK(m.reads_each_entry_once);
    // The notes' tables: COO reads value[0..7] in one request. CSR's threads start a row apart:
    // of its three requests only the last, one lane alone (value[4]), is contiguous.
    CHECK(m.stats[kCoo].requests == 1);
    CHECK(m.stats[kCsr].requests == 3);
    CHECK(m.stats[kCsr].contiguous_fraction() == Approx(1.0 / 3));
    for (Kernel k : {kCoo, kEll, kHyb, kJds}) CHECK(m.stats[k].contiguous_fraction() == 1.0);
    CHECK(m.stats[kCsr].max_work == 3);
    CHECK(m.stats[kHyb].max_work == 2);
    CHECK(m.stats[kHyb].threads == 5);
}

TEST_CASE("146: insertions and lookups on 1,200 random matrices", "[146][random]") {
    INFO("seed " << kSeed146);
    SplitMix64 rng(kSeed146);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed146);
        CAPTURE(g, input.num_rows, input.nnz());
        if (input.num_rows == 0) continue;
        const int row = static_cast<int>(rng.below(input.num_rows));
        const int col = static_cast<int>(rng.below(input.num_cols));
        CAPTURE(row, col);
        const Formats f = build_formats(input);
        REQUIRE(f.ell_built);
        // DIA is built here whatever its size: the limit is the program's choice.
        const HostDia dia = dia_from_csr(f.csr);

        const bool present = in_entry_list(input, row, col);
        REQUIRE(find_in_coo(f.coo, row, col).found == present);
        REQUIRE(find_in_row_sorted_coo(sorted_by_row(f.coo), row, col).found == present);
        REQUIRE(find_in_csr(f.csr, row, col).found == present);
        REQUIRE(find_in_ell(f.ell, row, col).found == present);
        REQUIRE(find_in_hyb(f.hyb, row, col).found == present);
        REQUIRE(find_in_jds(f.jds, row, col).found == present);
        REQUIRE(find_in_dia(dia, row, col).found == (matrix_value(input, row, col) != 0.0f));
        REQUIRE(find_in_csr(f.csr, row, col).reads_to_row == 2);
        REQUIRE(find_in_coo(f.coo, row, col).reads_to_row == input.nnz());

        Formats grown = f;
        const std::vector<Entry> expected = with_entry(input, row, col, 3.0f);
        REQUIRE(insert_into_coo(grown.coo, row, col, 3.0f).moved == 0);
        REQUIRE(sorted_entries(grown.coo) == expected);
        REQUIRE(insert_into_csr(grown.csr, row, col, 3.0f).moved ==
                f.csr.nnz() - static_cast<size_t>(f.csr.row_offsets[row + 1]));
        REQUIRE(is_well_formed(grown.csr));
        REQUIRE(sorted_entries(grown.csr) == expected);
        REQUIRE(insert_into_ell(grown.ell, row, col, 3.0f).moved == 0);
        REQUIRE(is_well_formed(grown.ell));
        REQUIRE(sorted_entries(coo_from_ell(grown.ell)) == expected);
        insert_into_hyb(grown.hyb, row, col, 3.0f);
        REQUIRE(is_well_formed(grown.hyb.ell));
        REQUIRE(sorted_entries(coo_from_hyb(grown.hyb)) == expected);
        insert_into_jds(grown.jds, row, col, 3.0f);
        REQUIRE(is_well_formed(grown.jds));
        REQUIRE(sorted_entries(coo_from_jds(grown.jds)) == expected);
        HostDia grown_dia = dia;
        const size_t values_before = coo_from_dia(dia).nnz();
        const InsertCost dia_cost = insert_into_dia(grown_dia, row, col, 3.0f);
        REQUIRE(is_well_formed(grown_dia));
        REQUIRE(sorted_entries(coo_from_dia(grown_dia)) == summed_entries(grown.csr));
        // A new diagonal moves every value on a later diagonal; a slot that exists moves none.
        if (grown_dia.num_diagonals() > dia.num_diagonals())
            REQUIRE(dia_cost.moved <= values_before);
        else
            REQUIRE(dia_cost.moved == 0);
        const KernelModels m = model_kernels(f);
        REQUIRE(m.reads_each_entry_once);
        for (Kernel k : {kCoo, kEll, kHyb, kJds}) REQUIRE(m.stats[k].contiguous_fraction() == 1.0);
        REQUIRE(m.stats[kCsr].max_work == static_cast<size_t>(max_row_length(f.csr)));
        std::vector<int> grown_lengths = row_lengths(f.csr);
        ++grown_lengths[row];
        for (size_t t = 1; t < grown.jds.row_perm.size(); ++t)
            REQUIRE(grown_lengths[grown.jds.row_perm[t - 1]] >=
                    grown_lengths[grown.jds.row_perm[t]]);
    }
}

TEST_CASE("146: each format's CPU SpMV matches the reference on random matrices and the hub",
          "[146][random]") {
    INFO("seed " << kSeed146);
    std::vector<HostCoo> inputs = {make_star(100001, 0, kSeed146)};
    for (int g = 0; g < kSweepGraphs; ++g) inputs.push_back(edge_case_graph(g, kSeed146));
    for (size_t g = 0; g < inputs.size(); ++g) {
        CAPTURE(g);
        const HostCoo& input = inputs[g];
        const Formats f = build_formats(input);
        const std::vector<float> x = lesson_x(input.num_cols);
        const std::vector<float> y0(input.num_rows, 0.25f);
        const SpmvReference reference = spmv_reference(input, x, y0);
        std::vector<float> y_coo = y0, y_csr = y0, y_ell = y0, y_hyb = y0, y_jds = y0, y_dia = y0;
        spmv_coo_cpu(f.coo, x, y_coo);
        spmv_csr_cpu(f.csr, x, y_csr);
        spmv_hyb_cpu(f.hyb, x, y_hyb);
        spmv_jds_cpu(f.jds, x, y_jds);
        REQUIRE(spmv_matches(y_coo, reference));
        REQUIRE(spmv_matches(y_csr, reference));
        REQUIRE(spmv_matches(y_hyb, reference));
        REQUIRE(spmv_matches(y_jds, reference));
        if (input.num_rows <= 100000) {  // the hub's DIA would have 10^10 slots
            spmv_dia_cpu(dia_from_csr(f.csr), x, y_dia);
            REQUIRE(spmv_matches(y_dia, reference));
        }
        REQUIRE(f.dia_built == dia_is_practical(f.csr));
        REQUIRE(f.ell_built == ell_is_practical(f.csr));
        if (!f.ell_built) continue;
        spmv_ell_cpu(f.ell, x, y_ell);
        REQUIRE(spmv_matches(y_ell, reference));
    }
}

TEST_CASE("146: the format rule picks DIA on few diagonals for the mean row, CSR elsewhere",
          "[146]") {
    auto pick = [](const HostCoo& a) {
        return recommend_format(structure_facts(a), a.num_rows).format;
    };
    // The stencils: 5 and 7 diagonals for mean rows of about 5 and 7.
    CHECK(pick(make_stencil(stencil_shape(StencilKind::two_d, 10))) == "DIA (145)");
    CHECK(pick(make_stencil(stencil_shape(StencilKind::three_d, 12))) == "DIA (145)");
    // A tridiagonal matrix: 3 diagonals for a mean row of about 3.
    HostCoo tridiagonal;
    tridiagonal.num_rows = tridiagonal.num_cols = 100;
    for (int r = 0; r < 100; ++r)
        for (int c = std::max(0, r - 1); c <= std::min(99, r + 1); ++c) {
            tridiagonal.rows.push_back(r);
            tridiagonal.cols.push_back(c);
            tridiagonal.values.push_back(1.0f);
        }
    CHECK(pick(tridiagonal) == "DIA (145)");
    // R-MAT's rows spread over thousands of diagonals.
    CHECK(pick(make_rmat(10, 16, 0.57, kSeed146)) == "CSR by merge path (148)");
    // The bandwidth does not decide: one entry a row, on 5 diagonals within a bandwidth of 2, is
    // past the limit for a mean row of 1 (1.5 x (2 x 100 / 101 + 1) = 4.47 diagonals).
    HostCoo scattered;
    scattered.num_rows = scattered.num_cols = 100;
    for (int r = 2; r < 98; ++r) {
        scattered.rows.push_back(r);
        scattered.cols.push_back(r + r % 5 - 2);
        scattered.values.push_back(1.0f);
    }
    CHECK(structure_facts(scattered).bandwidth == 2);
    CHECK(pick(scattered) == "CSR by merge path (148)");
    // Where DIA's bytes pass its limit, the rule says CSR, and DIA is not built.
    for (const HostCoo& a : {tridiagonal, scattered, make_rmat(10, 16, 0.57, kSeed146)})
        CHECK((pick(a) == "DIA (145)") == dia_is_practical(csr_from_coo_by_stable_sort(a)));
}
