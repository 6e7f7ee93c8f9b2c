// Exercise 14.5: one thread's diagonal search in the merge path (148's lesson).
// 148 splits SpMV's work as the merge of two sorted lists: the row ends row_offsets[1 .. R] and
// the nonzero indices 0 .. nnz - 1. Each step of the merge multiplies one nonzero or closes one
// row, and thread t takes the steps from diagonal t K to (t + 1) K. To start, it needs the split
// of its first diagonal d: the number i of row ends among the first d steps, and j = d - i, the
// nonzeros among them. Write that search: about log2 of the shorter list, no walk of the path.
// Hint: row end i is step i + row_offsets[i + 1] of the merge, so it lies before diagonal d
// exactly when row_offsets[i + 1] <= d - i - 1. That holds for i below the answer and fails from
// it on: binary-search i in [max(0, d - nnz), min(d, R)], as 21.3 searched for a row's start
// (common/binary_search.h's partition_point_index, which the harness includes, does the halving).
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_5_merge_path_search && build/exercises/ex14_5_merge_path_search
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_5_merge_path_search.h"

// TODO: return the split of `diagonal`: {row ends taken, nonzeros taken}, their sum `diagonal`.
__host__ __device__ PathSplit merge_path_split(int diagonal, const int* row_offsets, int num_rows,
                                               int nnz) {
    return {0, 0};
}
