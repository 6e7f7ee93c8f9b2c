// Exercise 14.4: CSR SpMV with one warp per row, the fix of 144 for CSR's strided loads.
// Row r belongs to the warp of threads 32 r .. 32 r + 31. Lane l reads entries l, l + 32, ...
// of the row, so that in each step the warp's 32 lanes read 32 neighbouring entries, and keeps
// its own partial sum; then lane 0 writes warp_sum's result into y[r] (the harness does all
// that). Write warp_sum: as it stands, lane 0 returns only its own partial sum.
// Hint: cuda.shfl_down_sync(kFullWarp, sum, offset) returns the sum of the lane `offset` above;
// adding it for offset = 16, 8, 4, 2, 1 leaves the total in lane 0. Every lane of the warp must
// reach every shuffle: a lane that leaves early makes the emulator stop and say which one.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_4_warp_per_row && build/exercises/ex14_4_warp_per_row
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_4_warp_per_row.h"

// TODO: add the 32 lanes' sums so that lane 0 returns the total.
template <class Cuda>
__host__ __device__ float warp_sum(Cuda& cuda, float lane_sum) {
    return lane_sum;
}
