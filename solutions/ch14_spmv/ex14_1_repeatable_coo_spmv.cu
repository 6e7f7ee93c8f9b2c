// Reference solution of exercise 14.1 (ch14_spmv/exercises/ex14_1_repeatable_coo_spmv.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_1_repeatable_coo_spmv
//                 build/solutions/ex14_1_repeatable_coo_spmv
#include "../../ch14_spmv/exercises/harness/ex14_1_repeatable_coo_spmv.h"

// Only the thread of a row's first entry works: it adds the row's products in entry order into
// a private sum, then adds that sum to y once. Each y entry has a single writer, so no atomic
// is needed and no other thread's timing can change the order of the additions. The price is
// 143's: a thread loops as long as its row, and the other threads of the row idle.
__host__ __device__ void spmv_coo_repeatable_thread(int k, int nnz, const int* rows,
                                                    const int* cols, const float* values,
                                                    const float* x, float* y) {
    const int row = rows[k];
    if (k > 0 && rows[k - 1] == row) return;
    float sum = 0.0f;
    for (int e = k; e < nnz && rows[e] == row; ++e) sum += values[e] * x[cols[e]];
    y[row] += sum;
}
