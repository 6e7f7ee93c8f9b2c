// Exercise 21.3: one lower-bound search per row boundary (119's idea, 120's kernel).
// The entries are sorted by row, so row r begins at the first entry whose row id is not below
// r: that index is row_offsets[r]. Rows without entries get the same index as the next row that
// has some, which is exactly CSR's repeated offset, and r = num_rows gets nnz. Write the body of
// thread r: a binary search of sorted_rows[0 .. nnz) for that index, writing it to
// row_offsets[r]. Threads share only reads, so no atomics are needed.
// Hint: keep a range that surely holds the answer, and halve it by looking at its middle entry:
// about log2(nnz) reads per thread. Check that r = 0, r = num_rows and nnz = 0 come out right.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex21_3_lower_bound_search && build/exercises/ex21_3_lower_bound_search
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex21_3_lower_bound_search.h"

// TODO: write row_offsets[r], the first index k with sorted_rows[k] >= r (nnz if none).
__host__ __device__ void row_start_search_thread(int r, const int* sorted_rows, int nnz,
                                                 int* row_offsets) {}
