// Reference solution of exercise 21.1 (ch21_csr/exercises/ex21_1_csc_scatter.cu): CSC's scatter.
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_1_csc_scatter
//                 build/solutions/ex21_1_csc_scatter
#include "../../ch21_csr/exercises/harness/ex21_1_csc_scatter.h"

// The destination is the key: the atomic on its cursor is a bump allocator that hands each edge
// into dst[e] a different slot of that column, whatever order the edges arrive in.
__host__ __device__ void csc_scatter_thread(int e, const int* src, const int* dst,
                                            const float* weight, int* cursor, int* row_idx,
                                            float* out_weight) {
    const int slot = atomic_add_shim(&cursor[dst[e]], 1);  // make races plants a plain ++ here
    row_idx[slot] = src[e];
    out_weight[slot] = weight[e];
}
