// Exercise 21.1: the scatter of the CSC build, keyed on the destination.
// 118 builds CSC (each vertex's in-neighbours) by 115's count, scan and scatter with the roles
// of the endpoints swapped. The count and the scan are done for you: cursor[v] starts at column
// v's first slot. Write the scatter: edge e (src[e] -> dst[e], weight[e]) takes a free slot of
// column dst[e], with its source in row_idx and its weight in out_weight, while the threads of
// the other edges into dst[e] do the same at the same time.
// Hint: 115's scatter_by_key_thread hands out slots with one atomic per edge; which endpoint is
// the key here? Atomics go through atomic_add_shim, which returns the old value.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex21_1_csc_scatter && build/exercises/ex21_1_csc_scatter [--seed N]
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex21_1_csc_scatter.h"

// TODO: claim a slot of column dst[e] and write the edge's source and weight into it.
__host__ __device__ void csc_scatter_thread(int e, const int* src, const int* dst,
                                            const float* weight, int* cursor, int* row_idx,
                                            float* out_weight) {}
