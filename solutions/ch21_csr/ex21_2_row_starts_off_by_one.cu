// Reference solution of exercise 21.2 (ch21_csr/exercises/ex21_2_row_starts_off_by_one.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_2_row_starts_off_by_one
//                 build/solutions/ex21_2_row_starts_off_by_one
#include "../../ch21_csr/exercises/harness/ex21_2_row_starts_off_by_one.h"

// The rows that start at entry k form the interval (left, right], closed on the right: row
// rows[k] itself starts at k. With "<" the rows that hold entries, and row_offsets[num_rows],
// had no writer at all, which is why they kept the poison.
__host__ __device__ void row_starts_thread(int k, const int* rows, int nnz, int num_rows,
                                           int* row_offsets) {
    const int left = k == 0 ? -1 : rows[k - 1];
    const int right = k == nnz ? num_rows : rows[k];
    for (int r = left + 1; r <= right; ++r) row_offsets[r] = k;
}
