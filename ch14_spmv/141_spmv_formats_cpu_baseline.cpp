// 141 (14.1) CPU baseline: one small sparse matrix held three ways, and y = A*x + y in each.
// A dense array stores every entry, zeros included. COO keeps only the nonzeros, each with its
// own row and column index. CSR keeps the nonzeros grouped by row, so the per-entry row index
// collapses into one offset per row (plus one for the end). Both formats are derived here from
// the dense array, multiplied by the loops that 142 and 143 run as kernels, and their bytes are
// counted, which says when dropping the zeros pays for the indices that COO and CSR add.
//
// Build and run:  make 141_spmv_formats_cpu_baseline && build/141_spmv_formats_cpu_baseline

// 142's baseline: spmv_coo_cpu, the loop over the nonzeros
#include "142_spmv_coo_kernel.cu"
// 143's baseline: spmv_csr_cpu, the loop over the rows and each row's slice
#include "143_spmv_csr_kernel.cu"

struct DenseMatrix {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<float> values;  // row-major, num_rows * num_cols
    float at(int r, int c) const { return values[static_cast<size_t>(r) * num_cols + c]; }
};

// The dense SpMV multiplies every entry, zeros too: the work that the sparse formats save.
inline void spmv_dense_cpu(const DenseMatrix& d, const std::vector<float>& x,
                           std::vector<float>& y) {
    for (int r = 0; r < d.num_rows; ++r) {
        float sum = 0.0f;
        for (int c = 0; c < d.num_cols; ++c) sum += d.at(r, c) * x[c];
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

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/141_spmv_formats_cpu_baseline.h"

int main(int argc, char** argv) {
    start_cpu_program(argc, argv, spmv_formats_program());
    const DenseMatrix dense = fig14_1_dense();
    const HostCoo coo = dense_to_coo(dense);
    const HostCsr csr = dense_to_csr(dense);
    show_formats(dense, coo, csr);

    // The chapter's x and y0 (chapter_inputs.h), as 142 and 143 multiply by.
    const std::vector<float> x = lesson_x(dense.num_cols), y0 = lesson_y0(dense.num_rows);
    std::vector<float> y_dense = y0, y_coo = y0, y_csr = y0;
    spmv_dense_cpu(dense, x, y_dense);
    spmv_coo_cpu(coo, x, y_coo);
    spmv_csr_cpu(csr, x, y_csr);
    show_products(x, y0, {y_dense, y_coo, y_csr}, dense, coo.nnz());
    show_storage(dense, coo.nnz());

    SelfCheck check;
    check_formats(dense, coo, csr, check);
    check_products(x, y0, y_dense, y_coo, y_csr, check);
    return check.finish();
}
#endif
