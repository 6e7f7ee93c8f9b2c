// Exercise 21.4: the exclusive scan of the degrees into row_offsets, one block at a time.
// 115's step 2 turns the degrees into row_offsets by an exclusive scan: row v starts after the
// edges of every vertex below v. 115 leaves it to CUB; 124 writes its own in shared memory. The
// harness cuts the degrees into tiles of 256, one block each, and puts the tiles' scans together;
// write the scan of one block: every thread brings its value and gets back the sum of the values
// of the threads below it. Use `sums` (one int per thread, in shared memory) to share the values,
// and cuda.syncthreads() wherever a thread reads what another thread wrote.
// Hint: after step d = 1, 2, 4, ... let sums[t] hold the sum of the values t - 2d + 1 .. t; each
// step reads sums[t - d], and a barrier must stand both before and after the writes of a step.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex21_4_block_scan && build/exercises/ex21_4_block_scan [--seed N]
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex21_4_block_scan.h"

// TODO: return the sum of the values of the threads below this one in the block.
template <class Cuda>
__host__ __device__ int exclusive_block_scan(Cuda& cuda, int value, int* sums) {
    return 0;
}
