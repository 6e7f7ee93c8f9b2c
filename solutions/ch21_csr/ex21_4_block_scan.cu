// Reference solution of exercise 21.4 (ch21_csr/exercises/ex21_4_block_scan.cu): a block scan.
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_4_block_scan
//                 build/solutions/ex21_4_block_scan
#include "../../ch21_csr/exercises/harness/ex21_4_block_scan.h"

// Hillis and Steele's scan: before the step of distance d, sums[t] holds the values t - d + 1 ..
// t, so adding sums[t - d] doubles that run, and after log2(blockDim) steps it reaches thread 0.
// Each step needs two barriers: the one before the reads lets no thread read sums[t - d] before
// the previous step has written it, the one after them lets no thread overwrite sums[t] while
// thread t + d still has to read it. Every thread runs every step, so all of them reach every
// barrier. The inclusive sum less a thread's own value is its exclusive prefix; sums[t] is
// written by thread t alone, so that last read needs no barrier.
template <class Cuda>
__host__ __device__ int exclusive_block_scan(Cuda& cuda, int value, int* sums) {
    const int t = cuda.threadIdx.x;
    sums[t] = value;
    for (int d = 1; d < static_cast<int>(cuda.blockDim.x); d *= 2) {
        cuda.syncthreads();
        const int below = t >= d ? sums[t - d] : 0;
        cuda.syncthreads();
        sums[t] += below;
    }
    return sums[t] - value;
}
