// Exercise 14.1: a COO SpMV that gives the same y on every run.
// 142's kernel adds each product into y[rows[k]] with an atomic. Float addition is not
// associative, so when the atomics of a row land in another order, y can round differently:
// two runs of the same program on the same matrix may disagree in the last bits, or by far more
// when large terms cancel. The emulator shuffles the threads with a seed and can replay chosen
// orders, so the harness shows it. Rewrite the body below, still one thread per nonzero over a
// COO sorted by row, so that every row is added up in one fixed order, whatever the threads'.
// Hint: in sorted COO a row's entries are consecutive; let one thread per row, the one of the
// row's first entry, add up the whole row in entry order, and the others do nothing.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_1_repeatable_coo_spmv && build/exercises/ex14_1_repeatable_coo_spmv
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_1_repeatable_coo_spmv.h"

// TODO: 142's body, as it is: correct within rounding, but not the same on every run.
__host__ __device__ void spmv_coo_repeatable_thread(int k, int nnz, const int* rows,
                                                    const int* cols, const float* values,
                                                    const float* x, float* y) {
    atomic_add_shim(&y[rows[k]], values[k] * x[cols[k]]);
}
