// Reference solution of exercise 14.3 (ch14_spmv/exercises/ex14_3_ell_column_major.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_3_ell_column_major
//                 build/solutions/ex14_3_ell_column_major
#include "../../ch14_spmv/exercises/harness/ex14_3_ell_column_major.h"

// Column-major: step i's slots, one per row, fill the i-th column of num_rows slots, so rows r
// and r + 1 read slots that are next to each other. The product is taken in size_t: on a large
// matrix num_rows * width passes 2^31.
__host__ __device__ size_t ell_slot(int row, int i, int num_rows, int width) {
    return static_cast<size_t>(i) * num_rows + row;
}
