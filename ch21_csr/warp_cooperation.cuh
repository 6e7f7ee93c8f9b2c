// Two ways a block's threads share one job (123, 124, exercises 21.4 and 21.5): a warp claiming
// slots with one atomic, and a block scan with shuffles; over cooperative.cuh's cuda, so emulated.
#pragma once
#include "../common/cooperative.cuh"
#include "../common/warp.h"

// The lanes of `peers`, all hitting `counter`, claim popc(peers) slots with one atomic (the lowest
// lane's, shuffled to the rest), each adding its rank: a hub costs one atomic a warp, not 32.
template <class Cuda>
__host__ __device__ int claim_for_peers(Cuda& cuda, int* counter, unsigned peers, unsigned active) {
    const int lane = cuda.threadIdx.x % kWarpSize, leader = ffs_shim(peers) - 1;
    int first = 0;
    if (lane == leader) first = cuda.atomic_add(counter, popc_shim(peers));
    return cuda.shfl_sync(active, first, leader) + popc_shim(peers & ((1u << lane) - 1));
}

// The warp-aggregated claim: lanes of `active` with the same key (so counter) found by one match.
template <class Cuda>
__host__ __device__ int warp_aggregated_claim(Cuda& cuda, int* counter, int key, unsigned active) {
    return claim_for_peers(cuda, counter, cuda.match_any_sync(active, key), active);
}

// Each thread gets the sum of the values of the threads below it; the block's total is left in
// warp_sums[kWarpSize] (kWarpSize + 1 ints of shared memory). Each warp scans with shuffles, warp
// 0 scans the warps' totals. The caller synchronises before it reuses warp_sums.
template <class Cuda>
__host__ __device__ int block_exclusive_prefix(Cuda& cuda, int value, int* warp_sums) {
    const int thread = cuda.threadIdx.x, lane = thread % kWarpSize, warp = thread / kWarpSize;
    const int warps = static_cast<int>(cuda.blockDim.x) / kWarpSize;
    int inclusive = value;
    for (int d = 1; d < kWarpSize; d *= 2) {
        const int below = cuda.shfl_sync(kFullWarp, inclusive, lane >= d ? lane - d : lane);
        if (lane >= d) inclusive += below;
    }
    if (lane == kWarpSize - 1) warp_sums[warp] = inclusive;
    cuda.syncthreads();
    if (warp == 0) {
        const int own = lane < warps ? warp_sums[lane] : 0;
        int total = own;
        for (int d = 1; d < kWarpSize; d *= 2) {
            const int below = cuda.shfl_sync(kFullWarp, total, lane >= d ? lane - d : lane);
            if (lane >= d) total += below;
        }
        if (lane < warps) warp_sums[lane] = total - own;
        if (lane == kWarpSize - 1) warp_sums[kWarpSize] = total;
    }
    cuda.syncthreads();
    return warp_sums[warp] + inclusive - value;
}
