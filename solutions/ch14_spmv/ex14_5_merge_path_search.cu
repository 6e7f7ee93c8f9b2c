// Reference solution of exercise 14.5 (ch14_spmv/exercises/ex14_5_merge_path_search.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_5_merge_path_search
//                 build/solutions/ex14_5_merge_path_search
#include "../../ch14_spmv/exercises/harness/ex14_5_merge_path_search.h"

// Row end i is step i + row_offsets[i + 1] of the merge: the row's nonzeros, and those of every
// row before it, come first, and so do the i row ends before it. That step number grows with i,
// so "row end i lies before diagonal d" holds on a prefix of the candidates, and the answer is
// where it stops holding: partition_point_index's search. At least d - nnz of the first d steps
// are row ends and at most min(d, num_rows) can be, so the search starts from that range, and
// takes about log2 of it.
__host__ __device__ PathSplit merge_path_split(int diagonal, const int* row_offsets, int num_rows,
                                               int nnz) {
    const int rows = partition_point_index(
        diagonal > nnz ? diagonal - nnz : 0, diagonal < num_rows ? diagonal : num_rows,
        [&](int i) { return row_offsets[i + 1] <= diagonal - i - 1; });
    return {rows, diagonal - rows};
}
