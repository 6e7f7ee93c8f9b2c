// Reference solution of exercise 21.5 (ch21_csr/exercises/ex21_5_warp_aggregated_scatter.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_5_warp_aggregated_scatter
//                 build/solutions/ex21_5_warp_aggregated_scatter
#include "../../ch21_csr/exercises/harness/ex21_5_warp_aggregated_scatter.h"

// The lanes with one key (`peers`, the same set for each of them) claim popc(peers) slots at once.
// The lane that has no peer below it leads: it alone issues the atomic, and the shuffle, which
// names only the peers, hands its old value to each of them. A lane's rank among its peers, the
// peers below it, makes the slots first, first + 1, ...: distinct within the group, and, since
// the counter moved on by the group's size, distinct from every other claim on that counter.
template <class Cuda>
__host__ __device__ int warp_aggregated_claim(Cuda& cuda, int* counter, int key, unsigned active) {
    const unsigned lanes_below = (1u << (cuda.threadIdx.x % kWarpSize)) - 1;
    const unsigned peers = cuda.match_any_sync(active, key);
    const bool leads = (peers & lanes_below) == 0;
    const int first = leads ? cuda.atomic_add(counter, popc_shim(peers)) : 0;
    return cuda.shfl_sync(peers, first, ffs_shim(peers) - 1) + popc_shim(peers & lanes_below);
}
