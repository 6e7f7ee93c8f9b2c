// Exercise 14.2: find the off-by-one in the CSR SpMV kernel, one thread per row.
// As in 143, thread `row` walks its row's slice of the nonzeros, the entries k from
// row_offsets[row] up to, but not including, row_offsets[row + 1], sums the products
// values[k] * x[col_idx[k]] privately, and adds the sum into y[row], which no other thread
// writes. The body below runs its loop one step too far. Run it and read the claims: which rows
// come out wrong, why an empty row changes at all, and why the last row reads the guard (a NaN)
// that the harness placed just past the last entry. Then fix the loop.
// Hint: a row of n entries needs n steps; count the steps of this loop for Fig. 14.1's row 3.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_2_csr_off_by_one && build/exercises/ex14_2_csr_off_by_one
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_2_csr_off_by_one.h"

// TODO: this loop reads one entry too many; fix it.
__host__ __device__ void spmv_csr_row_thread(int row, const int* row_offsets, const int* col_idx,
                                             const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int k = row_offsets[row]; k <= row_offsets[row + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[row] += sum;
}
