// Reference solution of exercise 14.4 (ch14_spmv/exercises/ex14_4_warp_per_row.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex14_4_warp_per_row
//                 build/solutions/ex14_4_warp_per_row
#include "../../ch14_spmv/exercises/harness/ex14_4_warp_per_row.h"

// Each halving step adds the sums of the lanes `offset` above into the lanes below: after 16,
// 8, 4, 2 and 1, lane 0 holds the sum of all 32. The full mask names every lane, and every
// lane reaches every shuffle (the harness keeps whole warps together), so each shuffle completes.
template <class Cuda>
__host__ __device__ float warp_sum(Cuda& cuda, float lane_sum) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        lane_sum += cuda.shfl_down_sync(kFullWarp, lane_sum, offset);
    return lane_sum;
}
