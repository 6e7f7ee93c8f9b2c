// Reference solution of exercise 21.4 (ch21_csr/exercises/ex21_4_block_scan.cu): a block scan.
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_4_block_scan
//                 build/solutions/ex21_4_block_scan
#include "../../ch21_csr/exercises/harness/ex21_4_block_scan.h"
// block_exclusive_prefix: the block scan that 124's passes use
#include "../../ch21_csr/warp_cooperation.cuh"

// Each warp scans its lanes' values with shuffles, warp 0 scans the warps' totals, and a thread's
// prefix is its warp's plus its own within the warp: two barriers, however large the block.
// `sums` holds the warps' totals, kWarpSize + 1 of its blockDim.x ints.
template <class Cuda>
__host__ __device__ int exclusive_block_scan(Cuda& cuda, int value, int* sums) {
    return block_exclusive_prefix(cuda, value, sums);
}
