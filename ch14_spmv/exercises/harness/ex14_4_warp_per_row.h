// Exercise 14.4's harness: the launch of the warp-per-row body of ex14_4_warp_per_row.cu, as in
// 144, one warp of 32 lanes per row. The body cooperates through the `cuda` context of
// common/cooperative.cuh: on a GPU its shuffle is __shfl_down_sync, in emulation each lane is
// a fiber that waits at the shuffle for the other 31, so a lane that leaves early is reported.
#pragma once
#include <string>
#include <vector>
#include "../../../common/device_formats.cuh"
#include "spmv_exercise.h"

// The exercise: called by all 32 lanes of a warp, each with its own partial sum; returns, in
// lane 0, the sum of all 32 (the other lanes' results are not used).
template <class Cuda>
__host__ __device__ float warp_sum(Cuda& cuda, float lane_sum);

// Lane `lane`'s share of row `row`: the products of entries lane, lane + 32, ... of the row.
__host__ __device__ inline float lane_partial_sum(int row, int lane, const int* row_offsets,
                                                  const int* col_idx, const float* values,
                                                  const float* x) {
    float sum = 0.0f;
    for (int k = row_offsets[row] + lane; k < row_offsets[row + 1]; k += kWarpSize)
        sum += values[k] * x[col_idx[k]];
    return sum;
}

// The warp of row r (threads 32 r .. 32 r + 31) adds row r's products into y[r]; lane l reads
// entries l, l + 32, ... of the row, and lane 0 writes the warp's sum. A warp past the last row
// leaves whole, so every shuffle inside warp_sum sees all 32 lanes.
template <class Cuda>
__host__ __device__ void spmv_warp_per_row_lane(Cuda& cuda, int num_rows, const int* row_offsets,
                                                const int* col_idx, const float* values,
                                                const float* x, float* y) {
    const int row = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) / kWarpSize;
    const int lane = cuda.threadIdx.x % kWarpSize;
    if (row >= num_rows) return;
    const float sum = warp_sum(cuda, lane_partial_sum(row, lane, row_offsets, col_idx, values, x));
    if (lane == 0) y[row] += sum;
}

__global__ void spmv_warp_per_row_kernel(int num_rows, const int* row_offsets, const int* col_idx,
                                         const float* values, const float* x, float* y) {
    DeviceCuda cuda;
    spmv_warp_per_row_lane(cuda, num_rows, row_offsets, col_idx, values, x, y);
}

inline std::vector<float> warp_per_row_spmv(const Here& here, const HostCoo& coo,
                                            const std::vector<float>& x,
                                            const std::vector<float>& y0) {
    const HostCsr a = csr_for_lesson(coo);
    const DeviceCsr d(here, a);
    const DeviceArray<float> dx(here, x);
    DeviceArray<float> dy(here, y0);
    const size_t threads = static_cast<size_t>(a.num_rows) * kWarpSize;
    here.launch_blocks({blocks_for(threads), kThreadsPerBlock, 0}, spmv_warp_per_row_kernel,
                       spmv_warp_per_row_lane<EmulatedCuda>, a.num_rows, d.row_offsets.data(),
                       d.col_idx.data(), d.values.data(), dx.data(), dy.data());
    return dy.download();
}

// A row longer than a warp, so that every lane adds more than one product.
inline ExerciseMatrix long_rows() {
    std::vector<int> rows, cols;
    std::vector<float> values;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 40 * (r + 1); ++c) {
            rows.push_back(r);
            cols.push_back(c);
            values.push_back(static_cast<float>(1 + (c % 7)));
        }
    return {"three rows of 40, 80 and 120 entries", coo_of(3, 120, rows, cols, values)};
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_4_warp_per_row",
        "exercise 14.4: CSR SpMV, one warp per row, lanes added by shuffles",
        "Fig. 14.1, empty rows and a duplicate, an R-MAT matrix of 2^8 rows, rows longer than a "
        "warp",
        {48, 100, 900e6});
    std::vector<ExerciseMatrix> matrices = exercise_matrices();
    matrices.push_back(long_rows());
    return run_spmv_exercise(p, matrices, warp_per_row_spmv,
                             [](const ExerciseMatrix&, const std::vector<float>&,
                                const std::vector<float>&, const std::vector<float>&,
                                SelfCheck&) {});
}
