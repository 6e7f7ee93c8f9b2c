// 14.1-14.3, CPU baseline: one small sparse matrix held three ways, and y = A*x + y in each.
// A dense array stores every entry, zeros included. COO keeps only the nonzeros, each with its
// own row and column index. CSR keeps the nonzeros grouped by row, so the per-entry row index
// collapses into one offset per row (plus one for the end). Both formats are derived here from
// the dense array, the three SpMVs are compared, and the bytes each format needs are counted,
// which says when dropping the zeros pays for the indices that COO and CSR add.
//
// Build and run:  make 141_spmv_formats_cpu_baseline && build/141_spmv_formats_cpu_baseline
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "../common/text.h"
#include "chapter_inputs.h"

struct DenseMatrix {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<float> values;  // row-major, num_rows * num_cols
    float at(int r, int c) const { return values[static_cast<size_t>(r) * num_cols + c]; }
};

// The three SpMVs, y = A * x + y. The dense one multiplies every zero as well.
inline void spmv_dense(const DenseMatrix& d, const std::vector<float>& x, std::vector<float>& y) {
    for (int r = 0; r < d.num_rows; ++r) {
        float sum = 0.0f;
        for (int c = 0; c < d.num_cols; ++c) sum += d.at(r, c) * x[c];
        y[r] += sum;
    }
}

// One flat loop over the nonzeros; each one adds into the y entry of its own row.
inline void spmv_coo_cpu(const HostCoo& a, const std::vector<float>& x, std::vector<float>& y) {
    for (size_t k = 0; k < a.nnz(); ++k) y[a.rows[k]] += a.values[k] * x[a.cols[k]];
}

// A loop over rows around a loop over each row's slice; each row's sum is added once.
inline void spmv_csr_cpu(const HostCsr& a, const std::vector<float>& x, std::vector<float>& y) {
    for (int r = 0; r < a.num_rows; ++r) {
        float sum = 0.0f;
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            sum += a.values[k] * x[a.col_idx[k]];
        y[r] += sum;
    }
}

// Fig. 14.1 as the dense, row-major array that the formats are built from.
constexpr int kFigRows = 4;
constexpr int kFigCols = 4;
const std::vector<float> kFig14_1Dense = {
    1, 7, 0, 0,  //
    5, 0, 3, 9,  //
    0, 2, 8, 0,  //
    0, 0, 0, 6,
};

inline DenseMatrix fig14_1_dense() {
    return {kFigRows, kFigCols, kFig14_1Dense};
}

// A row-major scan meets the nonzeros row by row, so the COO comes out grouped by row, and
// within a row by column: the order in which the chapter lists them.
inline HostCoo dense_to_coo(const DenseMatrix& d) {
    HostCoo a;
    a.num_rows = d.num_rows;
    a.num_cols = d.num_cols;
    for (int r = 0; r < d.num_rows; ++r)
        for (int c = 0; c < d.num_cols; ++c)
            if (d.at(r, c) != 0.0f) {
                a.rows.push_back(r);
                a.cols.push_back(c);
                a.values.push_back(d.at(r, c));
            }
    return a;
}

// The same scan, recording where each row starts instead of repeating its index per entry.
inline HostCsr dense_to_csr(const DenseMatrix& d) {
    HostCsr a;
    a.num_rows = d.num_rows;
    a.num_cols = d.num_cols;
    a.row_offsets.push_back(0);
    for (int r = 0; r < d.num_rows; ++r) {
        for (int c = 0; c < d.num_cols; ++c)
            if (d.at(r, c) != 0.0f) {
                a.col_idx.push_back(c);
                a.values.push_back(d.at(r, c));
            }
        a.row_offsets.push_back(static_cast<int>(a.col_idx.size()));
    }
    return a;
}

// Bytes of each layout with 4-byte floats and 4-byte int indices, as the chapter's kernels use.
constexpr double kValueBytes = 4;
constexpr double kIndexBytes = 4;

struct StorageBytes {
    double dense, coo, csr;
};

inline StorageBytes storage_bytes(double num_rows, double num_cols, double nnz) {
    return {num_rows * num_cols * kValueBytes, nnz * (kValueBytes + 2 * kIndexBytes),
            nnz * (kValueBytes + kIndexBytes) + (num_rows + 1) * kIndexBytes};
}

// COO beats dense when nnz * (value + 2 indices) < rows * cols * value, that is when the share
// of nonzeros is below value / (value + 2 indices): 1/3 with 4-byte values and indices.
inline double coo_break_even_density() {
    return kValueBytes / (kValueBytes + 2 * kIndexBytes);
}

// CSR pays one index per nonzero and one per row (plus one): it beats dense below
// (rows * cols * value - (rows + 1) * index) / (rows * cols * (value + index)), just under 1/2.
inline double csr_break_even_density(double num_rows, double num_cols) {
    return (num_rows * num_cols * kValueBytes - (num_rows + 1) * kIndexBytes) /
           (num_rows * num_cols * (kValueBytes + kIndexBytes));
}

// The rule checked by counting: the largest nonzero count at which COO is still smaller than
// the dense array, found by trying every count.
inline int largest_nnz_where_coo_is_smaller(int num_rows, int num_cols) {
    int largest = -1;
    for (int nnz = 0; nnz <= num_rows * num_cols; ++nnz) {
        const StorageBytes s = storage_bytes(num_rows, num_cols, nnz);
        if (s.coo < s.dense) largest = nnz;
    }
    return largest;
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

// The book's names, for the arrays as the notes print them.
inline void show_coo(const HostCoo& coo) {
    std::printf("\nCOO: every nonzero with its own row and column index, three parallel arrays:\n");
    print_array("value", coo.values, 7);
    print_array("colIdx", coo.cols, 7);
    print_array("rowIdx", coo.rows, 7);
}

inline void show_csr(const HostCsr& csr) {
    std::printf("\nCSR: the same value and colIdx, grouped by row; rowIdx becomes rowPtrs:\n");
    print_array("value", csr.values, 7);
    print_array("colIdx", csr.col_idx, 7);
    print_array("rowPtrs", csr.row_offsets, 7);
    for (int r = 0; r < csr.num_rows; ++r) {
        const int begin = csr.row_offsets[r], end = csr.row_offsets[r + 1];
        std::printf("  row %d: rowPtrs[%d] = %d to rowPtrs[%d] = %d, value[%d..%d]\n", r, r, begin,
                    r + 1, end, begin, end - 1);
    }
    print_wrapped("  rowPtrs[" + std::to_string(csr.num_rows) +
                      "] = " + std::to_string(csr.row_offsets[csr.num_rows]) + " is where a row " +
                      std::to_string(csr.num_rows) +
                      " would start: the nonzero count, which closes the last row's slice.",
                  2);
}

// The three SpMVs from the chapter's x and y0 (chapter_inputs.h), the same as 142's and 143's.
struct ThreeProducts {
    std::vector<float> x, y0, dense, coo, csr;
};

inline ThreeProducts multiply_three_ways(const DenseMatrix& d, const HostCoo& coo,
                                         const HostCsr& csr) {
    ThreeProducts y;
    y.x = lesson_x(d.num_cols);
    y.y0 = lesson_y0(d.num_rows);
    y.dense = y.coo = y.csr = y.y0;
    spmv_dense(d, y.x, y.dense);
    spmv_coo_cpu(coo, y.x, y.coo);
    spmv_csr_cpu(csr, y.x, y.csr);
    return y;
}

inline void show_products(const ThreeProducts& y, const DenseMatrix& d, size_t nnz) {
    std::printf("\nSpMV, y = A * x + y0, in each format (x and y0 as in 142 and 143):\n");
    print_array("x", y.x, 7);
    print_array("y0", y.y0, 7);
    print_array("dense", y.dense, 7);
    print_array("COO", y.coo, 7);
    print_array("CSR", y.csr, 7);
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

// The notes' arrays, the three products against each other and the double reference, and the
// byte counts against the rules.
inline void check_formats(const DenseMatrix& d, const HostCoo& coo, const HostCsr& csr,
                          const ThreeProducts& y, SelfCheck& check) {
    const HostCoo notes = fig14_1();
    check.claim("COO value = [ 1 7 5 3 9 2 8 6 ], as in the notes", coo.values == notes.values);
    check.claim("COO colIdx = [ 0 1 0 2 3 1 2 3 ], as in the notes", coo.cols == notes.cols);
    check.claim("COO rowIdx = [ 0 0 1 1 1 2 2 3 ], as in the notes", coo.rows == notes.rows);
    check.claim("CSR rowPtrs = [ 0 2 5 7 8 ], as in the notes", csr.row_offsets == kFigRowOffsets);
    check.claim("CSR value and colIdx are COO's, row by row (the notes list them row-sorted)",
                csr.values == notes.values && csr.col_idx == notes.cols);
    // Small whole numbers times multiples of 1/8, plus halves: every product and partial sum
    // is exact in float, so the three loops must agree to the last bit whatever their order.
    check.claim("COO SpMV equals the dense SpMV exactly", y.coo == y.dense);
    check.claim("CSR SpMV equals the dense SpMV exactly", y.csr == y.dense);
    check.claim("dense SpMV is within float32 rounding of the double reference of the notes' COO",
                spmv_matches(y.dense, spmv_reference(notes, y.x, y.y0)));
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

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    start_cpu_program(
        argc, argv,
        ProgramDescription("141 (14.1-14.3) CPU baseline: Fig. 14.1 dense, in COO and in CSR, and "
                           "SpMV",
                           {"make 141_spmv_formats_cpu_baseline && "
                            "build/141_spmv_formats_cpu_baseline"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1, held dense, in COO and in CSR")
            .without_inputs());
    const DenseMatrix dense = fig14_1_dense();
    show_dense(dense);
    const HostCoo coo = dense_to_coo(dense);
    show_coo(coo);
    const HostCsr csr = dense_to_csr(dense);
    show_csr(csr);
    const ThreeProducts y = multiply_three_ways(dense, coo, csr);
    show_products(y, dense, coo.nnz());
    show_storage(dense, coo.nnz());

    SelfCheck check;
    check_formats(dense, coo, csr, y, check);
    return check.finish();
}
#endif
