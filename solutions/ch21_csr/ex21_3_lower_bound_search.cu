// Reference solution of exercise 21.3 (ch21_csr/exercises/ex21_3_lower_bound_search.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_3_lower_bound_search
//                 build/solutions/ex21_3_lower_bound_search
#include "../../ch21_csr/exercises/harness/ex21_3_lower_bound_search.h"

// The answer always lies in [first, first + count]: every entry before `first` is below r, and
// every entry from first + count on is not. Each step looks at one entry and keeps the half
// that must hold the answer, so the loop ends after about log2(nnz) reads with count = 0.
__host__ __device__ void row_start_search_thread(int r, const int* sorted_rows, int nnz,
                                                 int* row_offsets) {
    int first = 0, count = nnz;
    while (count > 0) {
        const int half = count / 2;
        if (sorted_rows[first + half] < r) {
            first += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    row_offsets[r] = first;
}
