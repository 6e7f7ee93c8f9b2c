// Exercise 14.6: predict, then measure: the bytes that 143's kernel moves.
// A kernel's GB/s is the bytes that it must move over its time, and only a count made before
// the measurement can say whether the time is good: near the copy bandwidth, the kernel is as
// fast as its memory lets it be. Count them for 143's CSR SpMV, one thread per row, y = A * x + y,
// as the chapter's timings do: every array that the kernel reads or writes, 4 bytes an element,
// each element once. An x entry that a gather reads again is served by a cache, so x counts
// once too. The body below counts col_idx and values alone. The checker holds your count against
// the timings' own on matrices of several shapes, and on a GPU times the kernel and prints the
// GB/s that your count implies beside the time.
// Hint: list the arrays of 143's spmv_csr_thread and each one's length in rows, columns or
// nonzeros; is any of them both read and written? The tall and wide matrices tell the terms apart.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_6_predict_bytes && build/exercises/ex14_6_predict_bytes
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_6_predict_bytes.h"

// TODO: only col_idx and values are counted; count all that the kernel moves.
double predicted_csr_thread_per_row_bytes(const HostCsr& a) {
    return 8.0 * a.nnz();
}
