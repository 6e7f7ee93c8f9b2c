// What 146 prints and checks: the five considerations' tables and claims, and the rule's pick.
#pragma once
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../../common/text.h"
#include "../chapter_inputs.h"
#include "../format_checks.h"
#include "../request_model.h"

inline ProgramDescription design_considerations_program() {
    return ProgramDescription(
               "146 (14.1) CPU baseline: the five design considerations, measured",
               {"make 146_design_considerations_cpu_baseline",
                "build/146_design_considerations_cpu_baseline",
                "build/146_design_considerations_cpu_baseline --scale 16",
                "build/146_design_considerations_cpu_baseline --matrix data/west2021.mtx"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_memory({260, 528, 200e6});
}

// printf's text as a string: a table's cells.
template <class... Args>
std::string cells(const char* format, Args... args) {
    char text[256];
    std::snprintf(text, sizeof text, format, args...);
    return text;
}

// A table row, or for a format left unbuilt (ELL, DIA) dashes and "not built".
inline void table_row(const std::string& head, bool built, const std::string& row_cells,
                      int dashes) {
    std::string unbuilt;
    for (int i = 0; i < dashes; ++i) unbuilt += cells(" %13s", "-");
    std::printf("  %s%s\n", head.c_str(),
                built ? row_cells.c_str() : (unbuilt + "   not built").c_str());
}

inline void show_matrix_summary(const Formats& f, const Balance& rows) {
    const HostCsr& csr = f.csr;
    print_wrapped(with_separators(csr.num_rows) + " x " + with_separators(csr.num_cols) + ", " +
                  counted(csr.nnz(), "entry", "entries") + "; row lengths: max " +
                  with_separators(static_cast<size_t>(rows.max)) + ", mean " +
                  fixed_text(rows.mean, 2) + ", coefficient of variation " +
                  fixed_text(rows.cv, 2));
    print_wrapped("ELL width " + with_separators(max_row_length(csr)) + " (the longest row)" +
                  (f.ell_built ? "" : ", not built: see space") + "; HYB width " +
                  with_separators(f.hyb.ell.width) + " (a third of the rows reach it); JDS " +
                  counted(f.jds.num_diagonals(), "diagonal") + "; DIA " +
                  counted(dia_size(csr).num_diagonals, "diagonal") + " (column - row of an entry)" +
                  (f.dia_built ? "" : ", not built: see space") + "\n");
}

// Each built format but COO, as a list of entries, holds `entries`; DIA the CSR's summed ones.
inline bool holds_entries(const Formats& f, const std::vector<Entry>& entries) {
    return sorted_entries(f.csr) == entries &&
           (!f.ell_built || sorted_entries(coo_from_ell(f.ell)) == entries) &&
           sorted_entries(coo_from_hyb(f.hyb)) == entries &&
           sorted_entries(coo_from_jds(f.jds)) == entries &&
           (!f.dia_built || sorted_entries(coo_from_dia(f.dia)) == summed_entries(f.csr));
}

// Each format's bytes by 145's formulas (unbuilt ones computed), then held to the built arrays.
inline void show_and_check_space(const Formats& f, const std::vector<Entry>& input_entries,
                                 SelfCheck& check) {
    const HostCsr& csr = f.csr;
    const size_t nnz = csr.nnz(), rows = static_cast<size_t>(csr.num_rows);
    const size_t ell_bytes_computed = ell_bytes(csr.num_rows, max_row_length(csr));
    const DiaSize dia = dia_size(csr);
    const size_t dia_padding = rows * dia.num_diagonals - summed_entries(csr).size();
    std::printf(
        "space: bytes of the arrays (4-byte indices and values)\n  %-6s %15s %7s %14s   %s\n",
        "format", "bytes", "x CSR", "padding slots", "arrays");
    auto row = [&](const char* name, size_t bytes, size_t padding, const char* arrays) {
        std::printf("  %-6s %15s %7.2f %14s   %s\n", name, with_separators(bytes).c_str(),
                    static_cast<double>(bytes) / csr_bytes(csr), with_separators(padding).c_str(),
                    arrays);
    };
    row("COO", 12 * nnz, 0, "rows, cols, values: 3 x nnz");
    row("CSR", csr_bytes(csr), 0, "row_offsets: rows + 1; col_idx, values: nnz");
    row("ELL", ell_bytes_computed, rows * max_row_length(csr) - nnz,
        f.ell_built ? "nnz_per_row: rows; col_idx, values: rows x width"
                    : "computed, not built: its padding passes 8x CSR");
    row("HYB", hyb_bytes(f.hyb), f.hyb.ell.num_slots() - (nnz - f.hyb.coo.nnz()),
        "ELL part: rows x its width; COO part");
    row("JDS", jds_bytes(f.jds), 0, "row_perm: rows; diag_ptrs; col_idx, values: nnz");
    row("DIA", dia.bytes, dia_padding,
        f.dia_built ? "offsets: diagonals; data: rows x diagonals"
                    : "computed, not built: passes 1.5x CSR");
    std::printf("\n");

    const std::vector<int> lengths = row_lengths(csr);
    check.claim("the row lengths add up to nnz (" + with_separators(nnz) + ")",
                std::accumulate(lengths.begin(), lengths.end(), size_t{0}) == nnz);
    check.claim("COO's arrays take 12 x nnz bytes and CSR's 8 x nnz + 4 x (rows + 1)",
                built_bytes(f.coo) == 12 * nnz && built_bytes(csr) == csr_bytes(csr) &&
                    csr_bytes(csr) == 8 * nnz + 4 * (rows + 1));
    const size_t ell_slots = rows * f.ell.width;
    const std::string ell_claim = "ELL's arrays take rows x width x 8 + rows x 4 bytes";
    if (f.ell_built)
        check.claim(ell_claim + ", and rows x width - nnz of its slots are padding",
                    built_bytes(f.ell) == 8 * ell_slots + 4 * rows &&
                        built_bytes(f.ell) == ell_bytes_computed &&
                        std::count(f.ell.col_idx.begin(), f.ell.col_idx.end(), kEllPadding) ==
                            static_cast<long>(ell_slots - nnz));
    else
        check.skip(ell_claim, "ELL is not built: " + readable_bytes(double(ell_bytes_computed)) +
                                  ", " + readable_ratio(ell_to_csr_bytes(csr)) +
                                  " the CSR's bytes");
    check.claim("HYB's arrays take what its formula says, and its two parts hold nnz entries",
                built_bytes(f.hyb) == hyb_bytes(f.hyb) &&
                    coo_from_ell(f.hyb.ell).nnz() + f.hyb.coo.nnz() == nnz);
    check.claim(
        "JDS's arrays take 8 x nnz + 4 x rows + 4 x (diagonals + 1) bytes; it has one "
        "diagonal per entry of the longest row",
        built_bytes(f.jds) == jds_bytes(f.jds) &&
            jds_bytes(f.jds) == 8 * nnz + 4 * rows + 4 * (f.jds.num_diagonals() + size_t{1}) &&
            f.jds.num_diagonals() == max_row_length(csr));
    const std::string dia_claim = "DIA's arrays take 4 x (rows + 1) x diagonals bytes";
    if (f.dia_built)
        check.claim(
            dia_claim +
                ", and rows x diagonals - the matrix's nonzeros of its slots are padding zeros",
            built_bytes(f.dia) == dia.bytes &&
                built_bytes(f.dia) == 4 * (rows + 1) * f.dia.num_diagonals() &&
                static_cast<size_t>(std::count(f.dia.data.begin(), f.dia.data.end(), 0.0f)) ==
                    dia_padding);
    else
        check.skip(dia_claim, dia_not_built(dia));
    if (nnz >= kAnnouncedSize) announce("comparing each format's entries with the input's");
    check.claim(
        "each format, converted back to a list of entries, holds the input's (as a multiset); "
        "DIA the matrix's (the entries of one place added, zeros left out)",
        holds_entries(f, input_entries));
}

// A matrix without rows or columns has no place to add an entry to or look one up, and says so.
inline bool check_room_for_an_entry(const Formats& f, SelfCheck& check) {
    if (f.csr.num_rows > 0 && f.csr.num_cols > 0) return true;
    const std::string missing = f.csr.num_rows == 0 ? "rows" : "columns";
    print_wrapped("flexibility, accessibility: the matrix has no " + missing +
                  ", so there is no place to add an entry to or look one up\n");
    check.skip("after adding one entry, every format holds the input's entries and the new one",
               "the matrix has no " + missing);
    return false;
}

// (row, 0) = 1 added to a copy of each format, and the work; the copies go to check_flexibility.
inline Formats show_flexibility(const Formats& f, int row) {
    if (f.csr.nnz() >= kAnnouncedSize) announce("adding an entry to a copy of each format");
    std::printf(
        "flexibility: add the entry (%d, 0) = 1 to row %d, the middle row, in each "
        "format; counted\n  %-6s %13s %13s %13s   %s\n",
        row, row, "format", "entries moved", "slots written", "index updates", "how");
    auto show = [](const char* name, bool built, const InsertCost& c) {
        table_row(cells("%-6s", name), built,
                  cells(" %13s %13s %13s   %s", with_separators(c.moved).c_str(),
                        with_separators(c.written).c_str(),
                        with_separators(c.index_updates).c_str(), c.how.c_str()),
                  3);
    };
    Formats grown = f;
    show("COO", true, insert_into_coo(grown.coo, row, 0, 1.0f));
    show("CSR", true, insert_into_csr(grown.csr, row, 0, 1.0f));
    show("ELL", f.ell_built, f.ell_built ? insert_into_ell(grown.ell, row, 0, 1.0f) : InsertCost());
    show("HYB", true, insert_into_hyb(grown.hyb, row, 0, 1.0f));
    show("JDS", true, insert_into_jds(grown.jds, row, 0, 1.0f));
    show("DIA", f.dia_built, f.dia_built ? insert_into_dia(grown.dia, row, 0, 1.0f) : InsertCost());
    std::printf("\n");
    return grown;
}

inline void check_flexibility(const Formats& grown, int row, std::vector<Entry> entries,
                              SelfCheck& check) {
    if (grown.csr.nnz() >= kAnnouncedSize) announce("comparing their entries with the input's");
    entries.emplace_back(row, 0, 1.0f);
    std::sort(entries.begin(), entries.end());
    check.claim(
        "after adding the entry, every format holds the input's entries and the new "
        "one (as a multiset; DIA the grown CSR's matrix), and is still well formed",
        sorted_entries(grown.coo) == entries && holds_entries(grown, entries) &&
            is_well_formed(grown.csr) && (!grown.ell_built || is_well_formed(grown.ell)) &&
            is_well_formed(grown.hyb.ell) && is_well_formed(grown.jds) &&
            (!grown.dia_built || is_well_formed(grown.dia)));
}

// Looks up the row's last entry, so a scan goes all the way; DIA finds only a nonzero sum.
inline void check_accessibility(const Formats& f, int row, SelfCheck& check) {
    const HostCsr& csr = f.csr;
    const bool row_empty = csr.row_offsets[row] == csr.row_offsets[row + 1];
    const int col = row_empty ? 0 : csr.col_idx[csr.row_offsets[row + 1] - 1];
    std::printf(
        "accessibility: reads of the format's arrays to know where all of row %d's entries "
        "are,\n  and to find (%d, %d)%s; counted\n  %-19s %13s %13s\n",
        row, row, col, row_empty ? " (not there: the row is empty)" : "", "format", "to row",
        "to entry");
    if (f.coo.nnz() >= kAnnouncedSize) announce("sorting a copy of the COO by row");
    const std::vector<Entry> values = summed_entries(csr);
    const bool has_value = std::any_of(values.begin(), values.end(), [&](const Entry& e) {
        return std::get<0>(e) == row && std::get<1>(e) == col;
    });
    bool all_found = true;
    auto show = [&](const char* name, bool built, const Lookup& l, bool present) {
        table_row(cells("%-19s", name), built,
                  cells(" %13s %13s", with_separators(l.reads_to_row).c_str(),
                        with_separators(l.reads_to_element).c_str()),
                  2);
        all_found = all_found && (!built || l.found == present);
    };
    show("COO, as stored", true, find_in_coo(f.coo, row, col), !row_empty);
    show("COO, sorted by row", true, find_in_row_sorted_coo(sorted_by_row(f.coo), row, col),
         !row_empty);
    show("CSR", true, find_in_csr(csr, row, col), !row_empty);
    show("ELL", f.ell_built, f.ell_built ? find_in_ell(f.ell, row, col) : Lookup(), !row_empty);
    show("HYB", true, find_in_hyb(f.hyb, row, col), !row_empty);
    show("JDS", true, find_in_jds(f.jds, row, col), !row_empty);
    show("DIA", f.dia_built, f.dia_built ? find_in_dia(f.dia, row, col) : Lookup(), has_value);
    std::printf("\n");
    check.claim(row_empty
                    ? "no format finds an entry in the empty row"
                    : "every format finds the entry (" + std::to_string(row) + ", " +
                          std::to_string(col) + ")" +
                          (has_value ? "" : ", and DIA, whose value there adds up to 0, does not"),
                all_found);
}

// The kernels' warp requests (request_model.h) and their threads' work, a row each.
inline void show_memory_access_and_load_balance(const KernelModels& m) {
    // One row per kernel; DIA's is a dash row where its model was not run.
    auto rows_of = [&](auto row_cells) {
        for (int k = 0; k < kNumKernels; ++k)
            table_row(cells("%-6s %-24s", kKernelNames[k][0], kKernelNames[k][1]),
                      k != kDia || m.dia_modelled, row_cells(m.stats[k]), 1);
        std::printf("\n");
    };
    std::printf(
        "memory access: the SpMV kernel's reads of the values, per warp request, in the\n"
        "  model of request_model.h (4-byte values, 32-byte sectors; ELL's from its row lengths;\n"
        "  DIA's reads are its slots inside the matrix, padding zeros included)\n"
        "  %-6s %-24s %13s %11s %12s %10s %10s\n",
        "format", "kernel", "requests", "sectors/req", "fetched/used", "contiguous", "lanes busy");
    rows_of([](const AccessStats& s) {
        return cells(" %13s %11.2f %12.2f %9.1f%% %9.1f%%", with_separators(s.requests).c_str(),
                     s.sectors_per_request(), s.fetched_per_used(), 100 * s.contiguous_fraction(),
                     100 * s.lanes_busy());
    });
    std::printf(
        "load balance: entries per thread of the SpMV kernel\n  %-6s %-24s %13s %13s %10s %8s\n",
        "format", "kernel", "threads", "max", "mean", "CV");
    rows_of([](const AccessStats& s) {
        return cells(" %13s %13s %10.2f %8.2f", with_separators(s.threads).c_str(),
                     with_separators(s.max_work).c_str(), s.mean_work(), s.work_cv());
    });
}

inline void check_access(const Formats& f, const KernelModels& m, SelfCheck& check) {
    const std::vector<AccessStats>& stats = m.stats;
    check.claim("every format's kernel reads each stored entry exactly once, and no padding",
                m.reads_each_entry_once);
    check.claim(
        "every COO, ELL, HYB and JDS request is contiguous in the model",
        stats[kCoo].contiguous_fraction() == 1.0 && stats[kEll].contiguous_fraction() == 1.0 &&
            stats[kHyb].contiguous_fraction() == 1.0 && stats[kJds].contiguous_fraction() == 1.0);
    const size_t longest = static_cast<size_t>(max_row_length(f.csr)), nnz = f.csr.nnz();
    // Each row keeps at most the width in HYB's ELL part: its longest row there is the shorter.
    const size_t hyb_ell_longest = std::min(static_cast<size_t>(f.hyb.ell.width), longest);
    check.claim(
        "a thread's most work is the longest row for CSR, ELL and JDS, 1 entry for COO, "
        "and for HYB the ELL part's longest row (or 1)",
        stats[kCsr].max_work == longest && stats[kEll].max_work == longest &&
            stats[kJds].max_work == longest && stats[kCoo].max_work == (nnz > 0 ? 1u : 0u) &&
            stats[kHyb].max_work == std::max(hyb_ell_longest, f.hyb.coo.nnz() > 0 ? size_t{1} : 0));
    if (!m.dia_modelled) {
        check.skip("DIA's requests are contiguous", dia_not_built(dia_size(f.csr)));
        return;
    }
    // Diagonal `offset` meets the rows whose column row + offset is inside: a run of rows.
    size_t slots_inside = 0;
    for (int offset : f.dia.offsets)
        slots_inside += static_cast<size_t>(
            std::max(0, std::min(f.csr.num_rows, f.csr.num_cols - offset) - std::max(0, -offset)));
    check.claim("every DIA request is contiguous, and its kernel reads each of its " +
                    with_separators(slots_inside) +
                    " slots inside the matrix once: the matrix's values and the zeros between them",
                stats[kDia].contiguous_fraction() == 1.0 && stats[kDia].reads == slots_inside);
}

// Each format's CPU y (142 to 145) adds in its own order: each is held to the reference's bound.
inline void check_products(const Formats& f, const SpmvReference& reference,
                           const std::vector<std::vector<float>>& y, SelfCheck& check) {
    std::string names;
    bool all_match = true;
    for (int k = 0; k < kNumKernels; ++k) {
        if ((k == kEll && !f.ell_built) || (k == kDia && !f.dia_built)) continue;
        names += std::string(names.empty() ? "" : ", ") + kKernelNames[k][0];
        all_match = all_match && spmv_matches(y[k], reference);
    }
    check.claim(
        "each format's CPU SpMV (" + names + ") is within float32 rounding of the double reference",
        all_match);
}

// The rule and its pick from the matrix's facts, whose diagonals must be DIA's offsets.
inline void show_and_check_recommendation(const StructureFacts& facts, const Formats& f,
                                          SelfCheck& check) {
    const Recommendation r = recommend_format(facts, f.csr.num_rows);
    print_wrapped("\nwhich format, by the rule of chapter 14's \"which format when\": " +
                  std::string(kFormatRule) + ".");
    print_wrapped("bandwidth " + with_separators(static_cast<size_t>(facts.bandwidth)) + " -> " +
                  r.format + ": " + r.reason);
    check.claim("the input's entries lie on as many diagonals as DIA's offsets count",
                facts.diagonals == dia_size(f.csr).num_diagonals);
}
