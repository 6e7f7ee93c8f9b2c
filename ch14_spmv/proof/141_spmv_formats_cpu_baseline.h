// What 141 prints and checks around its lesson (141_spmv_formats_cpu_baseline.cpp): the matrix
// in each layout, the three products, the bytes of each layout, and the claims about them.
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

inline void show_dense(const DenseMatrix& d) {
    int nonzeros = 0;
    for (float v : d.values) nonzeros += v != 0.0f;
    std::printf("Fig. 14.1, dense (%d x %d, %d of %d entries nonzero; . is a zero):\n", d.num_rows,
                d.num_cols, nonzeros, d.num_rows * d.num_cols);
    std::printf("         ");
    for (int c = 0; c < d.num_cols; ++c) std::printf("  x%d", c);
    std::printf("\n");
    for (int r = 0; r < d.num_rows; ++r) {
        std::printf("  row %d [", r);
        for (int c = 0; c < d.num_cols; ++c) {
            if (d.at(r, c) == 0.0f)
                std::printf("   .");
            else
                std::printf(" %3g", static_cast<double>(d.at(r, c)));
        }
        std::printf(" ]\n");
    }
}

// The arrays under the code's names, each with the book's name the first time it appears.
inline void show_coo(const HostCoo& coo) {
    std::printf("\nCOO: every nonzero with its own row and column index, three parallel arrays:\n");
    print_array("values (the book's value)", coo.values, 26);
    print_array("cols (the book's colIdx)", coo.cols, 26);
    print_array("rows (the book's rowIdx)", coo.rows, 26);
}

inline void show_csr_with_rows(const HostCsr& csr) {
    std::printf("\n");
    print_csr("CSR: the same values and column indices, grouped by row; rows become row_offsets:",
              csr, CsrValues::book_values);
    for (int r = 0; r < csr.num_rows; ++r) {
        const int begin = csr.row_offsets[r], end = csr.row_offsets[r + 1];
        std::printf("  row %d: row_offsets[%d] = %d to row_offsets[%d] = %d, values[%d..%d]\n", r,
                    r, begin, r + 1, end, begin, end - 1);
    }
    print_wrapped("  row_offsets[" + std::to_string(csr.num_rows) +
                      "] = " + std::to_string(csr.row_offsets[csr.num_rows]) + " is where a row " +
                      std::to_string(csr.num_rows) +
                      " would start: the nonzero count, which closes the last row's slice.",
                  2);
}

inline void show_products(const std::vector<float>& x, const std::vector<float>& y0,
                          const std::vector<float>& y_dense, const std::vector<float>& y_coo,
                          const std::vector<float>& y_csr, const DenseMatrix& d, size_t nnz) {
    std::printf("\nSpMV, y = A * x + y0, in each format (x and y0 as in 142 and 143):\n");
    print_array("x", x, 7);
    print_array("y0", y0, 7);
    print_array("y_dense", y_dense, 7);
    print_array("y_coo", y_coo, 7);
    print_array("y_csr", y_csr, 7);
    std::printf("  multiplications: dense %d (one per entry), COO and CSR %zu (one per nonzero)\n",
                d.num_rows * d.num_cols, nnz);
}

inline void show_storage(const DenseMatrix& d, size_t nnz) {
    const StorageBytes fig = storage_bytes(d.num_rows, d.num_cols, static_cast<double>(nnz));
    std::printf("\nstorage, 4-byte values and indices:\n");
    auto storage_row = [](const char* name, const std::string& formula, double bytes) {
        std::printf("  %-6s %-30s = %3.0f bytes\n", name, formula.c_str(), bytes);
    };
    const std::string n = std::to_string(nnz), rows = std::to_string(d.num_rows);
    storage_row("dense", rows + " x " + std::to_string(d.num_cols) + " x 4", fig.dense);
    storage_row("COO", n + " x (4 + 4 + 4)", fig.coo);
    storage_row("CSR", n + " x (4 + 4) + (" + rows + " + 1) x 4", fig.csr);
    const double density = static_cast<double>(nnz) / (d.num_rows * d.num_cols);
    const int coo_largest = largest_nnz_where_coo_is_smaller(d.num_rows, d.num_cols);
    print_wrapped(
        "Fig. 14.1 is " + fixed_text(100 * density, 0) +
        "% nonzero: too dense for either format to save anything. COO is smaller than "
        "dense only below " +
        fixed_text(100 * coo_break_even_density(), 1) +
        "% nonzeros, 4 / (4 + 4 + 4): on this 4 x 4 that means at most " +
        std::to_string(coo_largest) + " nonzeros (counted: " + std::to_string(coo_largest) +
        " x 12 = " + fixed_text(storage_bytes(d.num_rows, d.num_cols, coo_largest).coo, 0) +
        " < 64 bytes).");
    const double big = 10000;
    std::printf(
        "CSR repeats no row index and is smaller below %.3f%% on a 10,000 x 10,000 matrix:\n",
        100 * csr_break_even_density(big, big));
    std::printf("  %9s %14s %14s %14s %10s %10s\n", "nonzero", "dense bytes", "COO bytes",
                "CSR bytes", "COO/dense", "CSR/dense");
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

// The three products against each other and the double reference. Small whole numbers times
// multiples of 1/8, plus halves: every product and partial sum is exact in float, so the three
// loops must agree to the last bit whatever their order.
inline void check_products(const std::vector<float>& x, const std::vector<float>& y0,
                           const std::vector<float>& y_dense, const std::vector<float>& y_coo,
                           const std::vector<float>& y_csr, SelfCheck& check) {
    check.claim("COO SpMV equals the dense SpMV exactly", y_coo == y_dense);
    check.claim("CSR SpMV equals the dense SpMV exactly", y_csr == y_dense);
    check.claim("dense SpMV is within float32 rounding of the double reference of the notes' COO",
                spmv_matches(y_dense, spmv_reference(fig14_1(), x, y0)));
}
