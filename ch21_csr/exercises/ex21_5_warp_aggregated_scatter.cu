// Exercise 21.5: a warp-aggregated atomic in 115's scatter.
// 115's scatter claims each edge's slot with one atomicAdd on its source's cursor. Where lanes of
// one warp hold edges of the same source (a hub's, or any source whose edges arrive together),
// their atomics queue on one address, one after another. Aggregated, those lanes elect a leader,
// which adds their number to the cursor with a single atomicAdd; the old value that it gets
// back is shared with the others by a shuffle, and each lane's slot is that value plus its rank
// among them. The body below is 115's claim: right, but one atomic per lane. Make it one per
// group of lanes with the same key. The harness counts what goes through cuda.atomic_add.
// Hint: cuda.match_any_sync(active, key) names the lanes of `active` with this lane's key; the
// lowest (ffs_shim) can lead, popc_shim counts lanes, cuda.shfl_sync(mask, value, lane) shares.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex21_5_warp_aggregated_scatter
//                 build/exercises/ex21_5_warp_aggregated_scatter [--seed N]
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex21_5_warp_aggregated_scatter.h"

// TODO: 115's claim, as it is: one atomic for every lane; make it one for each group of lanes.
template <class Cuda>
__host__ __device__ int warp_aggregated_claim(Cuda& cuda, int* counter, int key, unsigned active) {
    return cuda.atomic_add(counter, 1);
}
