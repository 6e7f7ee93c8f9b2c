// Reference solution of exercise 14.6 (ch14_spmv/exercises/ex14_6_predict_bytes.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_6_predict_bytes
//                 build/solutions/ex14_6_predict_bytes
#include "../../ch14_spmv/exercises/harness/ex14_6_predict_bytes.h"

// Thread `row` reads row_offsets[row] and row_offsets[row + 1], so the threads together read
// all num_rows + 1 offsets; each nonzero's col_idx and value once; x, gathered, at least once in
// full; and y[row], which it reads and then writes, y += A * x being no plain store. Every
// element is 4 bytes. It is a floor, not what the kernel really moves: a gather that misses the
// caches fetches a whole 32-byte sector for its 4 bytes, so the GB/s that the floor implies stays
// below the copy bandwidth, except on a matrix small enough for the L2 to serve it all.
double predicted_csr_thread_per_row_bytes(const HostCsr& a) {
    const double row_offsets = 4.0 * (a.num_rows + 1);
    const double col_idx_and_values = 8.0 * a.nnz();
    const double x = 4.0 * a.num_cols;
    const double y_read_and_written = 8.0 * a.num_rows;
    return row_offsets + col_idx_and_values + x + y_read_and_written;
}
