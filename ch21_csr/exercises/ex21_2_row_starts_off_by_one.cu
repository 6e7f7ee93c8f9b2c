// Exercise 21.2: find the off-by-one in a row-offsets kernel.
// In row-sorted COO, a row starts wherever the row id changes: entry k is the first entry of
// every row after rows[k - 1], up to and including rows[k] (the rows in between are empty), so
// thread k writes k into each of their offsets. One more thread, k = nnz, stands for the end of
// the entries and writes nnz into the offsets of the rows after the last entry's, up to and
// including row_offsets[num_rows]. 122 does the same with two groups of four entries per
// thread. The body below is one character away from right: run it, read which offsets stay -1,
// and fix it.
// Hint: list the rows that thread k must cover for the card's example, rows = [ 0 0 1 2 2 ].
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex21_2_row_starts_off_by_one && build/exercises/ex21_2_row_starts_off_by_one
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex21_2_row_starts_off_by_one.h"

// TODO: this body leaves some offsets unwritten; fix it.
__host__ __device__ void row_starts_thread(int k, const int* rows, int nnz, int num_rows,
                                           int* row_offsets) {
    const int left = k == 0 ? -1 : rows[k - 1];
    const int right = k == nnz ? num_rows : rows[k];
    for (int r = left + 1; r < right; ++r) row_offsets[r] = k;
}
