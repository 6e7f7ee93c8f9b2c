// Reference solution of exercise 14.2 (ch14_spmv/exercises/ex14_2_csr_off_by_one.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_2_csr_off_by_one
//                 build/solutions/ex14_2_csr_off_by_one
#include "../../ch14_spmv/exercises/harness/ex14_2_csr_off_by_one.h"

// The slice is half-open: row_offsets[row + 1] is where the next row begins (or, for the last
// row, nnz), so it is the first entry not to read. With "<=" every row also read the next row's
// first entry, an empty row read the first entry of the next row that has one, and the last row
// read past the end.
__host__ __device__ void spmv_csr_row_thread(int row, const int* row_offsets, const int* col_idx,
                                             const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int k = row_offsets[row]; k < row_offsets[row + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[row] += sum;
}
