// What 145 prints, checks and times around its lesson (145_regular_formats_kernel.cu): each
// format's arrays and bytes, the claims about its entries and y, and its timing beside cuSPARSE.
#pragma once
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
#include "../format_checks.h"
#include "spmv_proof.cuh"

inline ProgramDescription regular_formats_program() {
    return spmv_kernel_program(
        "145 (14.4) kernel: ELL, HYB, JDS and DIA, converted from CSR, one kernel each",
        {"make 145_regular_formats_kernel && build/145_regular_formats_kernel",
         "build/145_regular_formats_kernel --scale 20 --skew 0.3",
         "build/145_regular_formats_kernel --matrix data/1138_bus.mtx"},
        {152, 120, 1000e6});
}

inline size_t rows_with_at_least(const std::vector<int>& lengths, int length) {
    return static_cast<size_t>(
        std::count_if(lengths.begin(), lengths.end(), [&](int n) { return n >= length; }));
}

// hyb_ell_width's rule, counted: a third of the rows reach the width, under a third pass it.
inline bool follows_hyb_rule(const std::vector<int>& lengths, int width) {
    if (lengths.empty()) return width == 0;
    return 3 * rows_with_at_least(lengths, width) >= lengths.size() &&
           3 * rows_with_at_least(lengths, width + 1) < lengths.size();
}

inline bool sorted_longest_first(const HostJds& j, const std::vector<int>& lengths) {
    for (size_t t = 1; t < j.row_perm.size(); ++t)
        if (lengths[j.row_perm[t - 1]] < lengths[j.row_perm[t]]) return false;
    return true;
}

// The input's entries by row, from the COO as read (not the CSR that the formats come from):
// each format's entries are compared with them, as a multiset per row.
struct InputEntries {
    explicit InputEntries(const HostCoo& a) {
        announce_large(a.nnz(), "grouping the input's entries by row, for the checks");
        by_row = csr_from_coo_by_stable_sort(a);
    }
    bool held_by(const HostCoo& got) const { return holds_rows_of(got, by_row); }
    HostCsr by_row;
};

// Named arrays one under another, the names in 11 columns.
inline void print_arrays() {}
template <class T, class... Rest>
void print_arrays(const char* name, const std::vector<T>& array, const Rest&... rest) {
    print_array(name, array, 11);
    print_arrays(rest...);
}

// "112 bytes, 1.33 times the CSR's"
inline std::string bytes_beside_csr(size_t bytes, const HostCsr& a) {
    return counted(bytes, "byte") + ", " +
           fixed_text(static_cast<double>(bytes) / csr_bytes(a), 2) + " times the CSR's";
}

// "  12 slots, 4 of them padding (33.3%); 112 bytes, 1.33 times the CSR's"
inline void show_padding(size_t slots, size_t padding, size_t bytes, const HostCsr& a) {
    std::printf("  %s, %s of them padding (%.1f%%); %s\n\n", counted(slots, "slot").c_str(),
                with_separators(padding).c_str(), slots ? 100.0 * padding / slots : 0.0,
                bytes_beside_csr(bytes, a).c_str());
}

// The bar that every format's bytes are set beside.
inline void show_csr_bytes(const HostCsr& a) {
    std::printf("%s, %s; CSR takes %s\n\n", counted(a.num_rows, "row").c_str(),
                counted(a.nnz(), "entry", "entries").c_str(),
                counted(csr_bytes(a), "byte").c_str());
}

inline void show_and_check_ell(const KernelProgram& p, const HostCsr& a,
                               const std::optional<HostEll>& ell, const InputEntries& entries,
                               SelfCheck& check) {
    if (!ell) {
        check.skip("ELL converted back holds the input's entries", ell_not_built(a));
        std::printf("\n");
        return;
    }
    const size_t padding = ell->num_slots() - a.nnz();
    std::printf("ELL: every row padded to the longest, %s; slot (row, i) at i * %s + row\n",
                counted(ell->width, "slot").c_str(), with_separators(ell->num_rows).c_str());
    if (printable(a)) {
        print_arrays("nnz_per_row", ell->nnz_per_row, "col_idx", ell->col_idx, "values",
                     ell->values);
        std::printf("  (padding: column %d, value 0; each thread stops at its nnz_per_row)\n",
                    kEllPadding);
    }
    show_padding(ell->num_slots(), padding, ell_bytes(ell->num_rows, ell->width), a);
    announce_large(a.nnz(), "converting ELL back to entries, to compare");
    check.claim(
        "ELL converted back holds the input's entries (as a multiset), its padding marked and "
        "zero",
        is_well_formed(*ell) && entries.held_by(coo_from_ell(*ell)));
    if (p.options.book_example())
        check.claim("ELL of Fig. 14.1 has width 3 (row 1's length) and 4 padding slots",
                    ell->width == 3 && padding == 4);  // 4 rows x 3 slots - 8 entries
    std::printf("\n");
}

inline void show_and_check_hyb(const KernelProgram& p, const HostCsr& a, const HostHyb& hyb,
                               const InputEntries& entries, SelfCheck& check) {
    const std::vector<int> lengths = row_lengths(a);
    const int width = hyb.ell.width;
    print_wrapped("HYB: ELL width " + std::to_string(width) +
                  ", the largest width that at least a third of the rows reach (rows with " +
                  std::to_string(width) +
                  " or more entries: " + with_separators(rows_with_at_least(lengths, width)) +
                  " of " + with_separators(a.num_rows) + "; with " + std::to_string(width + 1) +
                  " or more: " + with_separators(rows_with_at_least(lengths, width + 1)) +
                  "); the rest in COO");
    if (printable(a)) {
        std::printf("  the ELL part, column-major:\n");
        print_arrays("nnz_per_row", hyb.ell.nnz_per_row, "col_idx", hyb.ell.col_idx, "values",
                     hyb.ell.values);
        std::printf("  the COO part:\n");
        print_arrays("rows", hyb.coo.rows, "cols", hyb.coo.cols, "values", hyb.coo.values);
    }
    const size_t in_coo = hyb.coo.nnz();
    print_wrapped("  ELL part: " + counted(a.nnz() - in_coo, "entry", "entries") + " in " +
                      counted(hyb.ell.num_slots(), "slot") +
                      "; COO part: " + counted(in_coo, "entry", "entries") + " (" +
                      fixed_text(a.nnz() ? 100.0 * in_coo / a.nnz() : 0.0, 1) + "% of all); " +
                      bytes_beside_csr(hyb_bytes(hyb), a),
                  2);
    std::printf("\n");
    announce_large(a.nnz(), "converting HYB back to entries, to compare");
    check.claim("HYB converted back holds the input's entries (ELL part + COO part, as a multiset)",
                is_well_formed(hyb.ell) && entries.held_by(coo_from_hyb(hyb)));
    check.claim(
        "HYB's width follows its rule (a third of the rows reach it, under a third pass it)",
        follows_hyb_rule(lengths, width));
    if (p.options.book_example())
        check.claim(
            "HYB of Fig. 14.1 has width 2 and moves one entry, row 1's 9 in column 3, to COO",
            width == 2 && sorted_entries(hyb.coo) == std::vector<Entry>{{1, 3, 9.0f}});
    std::printf("\n");
}

inline void show_and_check_jds(const KernelProgram& p, const HostCsr& a, const HostJds& jds,
                               const InputEntries& entries, SelfCheck& check) {
    print_wrapped(
        "JDS: rows sorted longest first; diagonal d holds the d-th entry of each row "
        "that has one, in sorted order, in [diag_ptrs[d], diag_ptrs[d + 1])");
    if (printable(a))
        print_arrays("row_perm", jds.row_perm, "diag_ptrs", jds.diag_ptrs, "col_idx", jds.col_idx,
                     "values", jds.values);
    std::printf("  %s, no padding; %s\n\n", counted(jds.num_diagonals(), "diagonal").c_str(),
                bytes_beside_csr(jds_bytes(jds), a).c_str());
    announce_large(a.nnz(), "converting JDS back to entries, to compare");
    check.claim("JDS converted back holds the input's entries (as a multiset)",
                is_well_formed(jds) && entries.held_by(coo_from_jds(jds)));
    check.claim(
        "JDS's rows are in order of length, longest first, and it has one diagonal per entry of "
        "the longest row",
        sorted_longest_first(jds, row_lengths(a)) && jds.num_diagonals() == max_row_length(a));
    if (p.options.book_example())
        // Row lengths 2 3 2 1, ties by row; 4 rows have a first entry, 3 a second, 1 a third.
        check.claim("JDS of Fig. 14.1: row_perm = [ 1 0 2 3 ], diag_ptrs = [ 0 4 7 8 ]",
                    jds.row_perm == std::vector<int>{1, 0, 2, 3} &&
                        jds.diag_ptrs == std::vector<int>{0, 4, 7, 8});
    std::printf("\n");
}

inline void show_and_check_dia(const KernelProgram& p, const HostCsr& a,
                               const std::optional<HostDia>& dia, SelfCheck& check) {
    const std::string claim =
        "DIA converted back holds the CSR's matrix (the entries of one place added into one value, "
        "zeros left out), and the slots outside the matrix are zero";
    if (!dia) {
        check.skip(claim, dia_not_built(dia_size(a)));
        std::printf("\n");
        return;
    }
    std::printf("DIA: %s that hold entries, a slot per row each; slot (row, d) at d * %s + row\n",
                counted(dia->num_diagonals(), "diagonal").c_str(),
                with_separators(dia->num_rows).c_str());
    if (printable(a)) {
        print_arrays("offsets", dia->offsets, "data", dia->data);
        std::printf(
            "  (offsets: column - row; padding: 0, where a diagonal leaves the matrix or has no "
            "entry)\n");
    }
    const size_t padding =
        static_cast<size_t>(std::count(dia->data.begin(), dia->data.end(), 0.0f));
    show_padding(dia->num_slots(), padding, dia_bytes(dia->num_rows, dia->num_diagonals()), a);
    announce_large(a.nnz(), "converting DIA back to entries, to compare");
    check.claim(claim,
                is_well_formed(*dia) && sorted_entries(coo_from_dia(*dia)) == summed_entries(a));
    if (p.options.book_example())
        // column - row of Fig. 14.1's entries: 0 1 | -1 1 2 | -1 0 | 0
        check.claim("DIA of Fig. 14.1: offsets = [ -1 0 1 2 ], 16 slots, 8 of them padding",
                    dia->offsets == std::vector<int>{-1, 0, 1, 2} && padding == 8);
    std::printf("\n");
}

// cuSPARSE checked; at --scale, every format timed beside it. All but DIA get the CSR's bytes, so
// GB/s ranks them as time does; DIA, without column indices, gets its slots, offsets, x and y.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 const std::optional<HostEll>& ell, const HostHyb& hyb,
                                 const HostJds& jds, const std::optional<HostDia>& dia,
                                 SelfCheck& check) {
    const HostCsr& a = in.csr;
    const double dia_own_bytes =
        dia ? static_cast<double>(dia_bytes(dia->num_rows, dia->num_diagonals())) +
                  spmv_vector_bytes(a.num_rows, a.num_cols)
            : 0.0;
    const std::vector<TimedSpmv> kernels = {
        timed_spmv(p.here, "csr_thread_per_row", "CSR, thread per row", launch_spmv_csr, &a),
        timed_spmv(p.here, "ell_thread_per_row", "ELL, thread per row", launch_spmv_ell,
                   ell ? &*ell : nullptr, 0, ell_not_built(a)),
        timed_spmv(p.here, "hyb_ell_then_coo", "HYB, ELL part then COO part", launch_spmv_hyb,
                   &hyb),
        timed_spmv(p.here, "jds_thread_per_row", "JDS, thread per sorted row", launch_spmv_jds,
                   &jds),
        timed_spmv(p.here, "dia_thread_per_row", "DIA, thread per row", launch_spmv_dia<>,
                   dia ? &*dia : nullptr, dia_own_bytes, dia_not_built(dia_size(a)))};
    // Each ratio names its format, the start of the kernel's label.
    compare_with_library(
        p, in, "145",
        "bytes for CSR, ELL, HYB, JDS and cuSPARSE: the CSR arrays, x, and y read and written; "
        "for DIA its own slots and offsets, x, and y",
        kernels, {kCusparseDefault}, check, [&](TimingTable& table, SpmvTimes& ms) {
            for (const TimedSpmv& k : kernels)
                print_ratio(table, ms, "cuSPARSE / " + k.label.substr(0, 3), "cusparse_csr",
                            k.kernel, "cuSPARSE is faster");
        });
}
