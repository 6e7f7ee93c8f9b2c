// What 141 prints and checks: the matrix in each layout, the products, the bytes, the claims.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../../common/text.h"
#include "../chapter_inputs.h"

inline ProgramDescription spmv_formats_program() {
    return ProgramDescription(
               "141 (14.1) CPU baseline: Fig. 14.1 dense, in COO and in CSR, and SpMV",
               {"make 141_spmv_formats_cpu_baseline && build/141_spmv_formats_cpu_baseline"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1, held dense, in COO and in CSR")
        .without_inputs();
}

// The dense array, zeros as dots, then each layout's arrays under the code's and book's names.
inline void show_formats(const DenseMatrix& d, const HostCoo& coo, const HostCsr& csr) {
    std::printf("Fig. 14.1, dense (%d x %d, %zu of %d entries nonzero; . is a zero):\n", d.num_rows,
                d.num_cols, coo.nnz(), d.num_rows * d.num_cols);
    for (int r = 0; r < d.num_rows; ++r) {
        std::printf("  row %d [", r);
        for (int c = 0; c < d.num_cols; ++c)
            std::printf(d.at(r, c) == 0.0f ? "   ." : " %3g", static_cast<double>(d.at(r, c)));
        std::printf(" ]\n");
    }
    std::printf("\nCOO: every nonzero with its own row and column index, three parallel arrays:\n");
    print_array("values (the book's value)", coo.values, 26);
    print_array("cols (the book's colIdx)", coo.cols, 26);
    print_array("rows (the book's rowIdx)", coo.rows, 26);
    std::printf("\n");
    print_csr(
        "CSR: the same values and column indices, grouped by row; row r's are the slice "
        "row_offsets[r] .. row_offsets[r + 1] - 1, and row_offsets[rows] = nnz closes the "
        "last one:",
        csr, CsrValues::book_values);
}

inline void show_products(const std::vector<float>& x, const std::vector<float>& y0,
                          const std::vector<std::vector<float>>& y, const DenseMatrix& d,
                          size_t nnz) {
    std::printf("SpMV, y = A * x + y0, in each format (x and y0 as in 142 and 143):\n");
    print_array("x", x, 7);
    print_array("y0", y0, 7);
    for (size_t k = 0; k < y.size(); ++k)
        print_array(std::string("y_") + (k == 0 ? "dense" : k == 1 ? "coo" : "csr"), y[k], 7);
    std::printf("  multiplications: dense %d (one per entry), COO and CSR %zu (one per nonzero)\n",
                d.num_rows * d.num_cols, nnz);
}

inline void show_storage(const DenseMatrix& d, size_t nnz) {
    const StorageBytes fig = storage_bytes(d.num_rows, d.num_cols, static_cast<double>(nnz));
    std::printf(
        "\nstorage, 4-byte values and indices: dense %.0f bytes, COO %zu x 12 = %.0f, CSR "
        "%zu x 8 + %d x 4 = %.0f\n",
        fig.dense, nnz, fig.coo, nnz, d.num_rows + 1, fig.csr);
    print_wrapped("Fig. 14.1 is " + fixed_text(100.0 * nnz / (d.num_rows * d.num_cols), 0) +
                  "% nonzero: too dense for either format to save anything. COO is smaller than "
                  "dense only below " +
                  fixed_text(100 * coo_break_even_density(), 1) + "% nonzeros, 4 / (4 + 4 + 4).");
    const double big = 10000;
    std::printf(
        "CSR repeats no row index and is smaller below %.3f%% on a 10,000 x 10,000 "
        "matrix:\n  %9s %14s %14s %14s %10s %10s\n",
        100 * csr_break_even_density(big, big), "nonzero", "dense bytes", "COO bytes", "CSR bytes",
        "COO/dense", "CSR/dense");
    for (double share : {0.5, 1.0 / 3.0, 0.1, 0.01, 0.001}) {
        const StorageBytes s = storage_bytes(big, big, share * big * big);
        std::printf("  %8.1f%% %14s %14s %14s %9.1f%% %9.1f%%\n", 100 * share,
                    with_separators(std::llround(s.dense)).c_str(),
                    with_separators(std::llround(s.coo)).c_str(),
                    with_separators(std::llround(s.csr)).c_str(), 100 * s.coo / s.dense,
                    100 * s.csr / s.dense);
    }
    std::printf("\n");
}

// The notes' arrays, and the byte counts against the rules.
inline void check_formats(const DenseMatrix& d, const HostCoo& coo, const HostCsr& csr,
                          SelfCheck& check) {
    const HostCoo notes = fig14_1();
    check.claim("COO values = [ 1 7 5 3 9 2 8 6 ], as in the notes", coo.values == notes.values);
    check.claim("COO cols = [ 0 1 0 2 3 1 2 3 ], as in the notes", coo.cols == notes.cols);
    check.claim("COO rows = [ 0 0 1 1 1 2 2 3 ], as in the notes", coo.rows == notes.rows);
    check.claim("CSR row_offsets = [ 0 2 5 7 8 ], as in the notes",
                csr.row_offsets == kFigRowOffsets);
    check.claim("CSR values and col_idx are COO's, row by row (the notes list them row-sorted)",
                csr.values == notes.values && csr.col_idx == notes.cols);
    const StorageBytes fig = storage_bytes(d.num_rows, d.num_cols, static_cast<double>(coo.nnz()));
    check.claim("on Fig. 14.1 dense takes 64 bytes, COO 96, CSR 84",
                fig.dense == 64 && fig.coo == 96 && fig.csr == 84);
    const double coo_break_even = coo_break_even_density();
    check.claim(
        "counting bytes on a 4 x 4 agrees with the 1/3 rule: COO is smaller for at most 5 "
        "nonzeros (5/16 < 1/3 < 6/16)",
        largest_nnz_where_coo_is_smaller(d.num_rows, d.num_cols) == 5 &&
            5.0 / 16 < coo_break_even && coo_break_even < 6.0 / 16);
    const StorageBytes one_percent = storage_bytes(10000, 10000, 0.01 * 10000 * 10000);
    check.claim("at 1% nonzeros COO takes 3% of the dense bytes, as the notes say",
                std::fabs(one_percent.coo / one_percent.dense - 0.03) < 1e-12);
}

// Whole numbers times multiples of 1/8, plus halves, are exact in float: the loops agree bitwise.
inline void check_products(const std::vector<float>& x, const std::vector<float>& y0,
                           const std::vector<float>& y_dense, const std::vector<float>& y_coo,
                           const std::vector<float>& y_csr, SelfCheck& check) {
    check.claim("COO SpMV equals the dense SpMV exactly", y_coo == y_dense);
    check.claim("CSR SpMV equals the dense SpMV exactly", y_csr == y_dense);
    check.claim("dense SpMV is within float32 rounding of the double reference of the notes' COO",
                spmv_matches(y_dense, spmv_reference(fig14_1(), x, y0)));
}
