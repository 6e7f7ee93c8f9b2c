// Exercise 21.2's harness: the launch of the row-starts body of ex21_2_row_starts_off_by_one.cu,
// one thread per entry and one more past the last, on row_offsets_exercise.h's inputs and checks.
#pragma once
#include "row_offsets_exercise.h"

// The exercise: thread k writes the offset of every row that starts at entry k (k = nnz stands
// for the end of the entries); each offset has exactly one writer.
__host__ __device__ void row_starts_thread(int k, const int* rows, int nnz, int num_rows,
                                           int* row_offsets);

__global__ void row_starts_kernel(int num_threads, const int* rows, int nnz, int num_rows,
                                  int* row_offsets) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < num_threads) row_starts_thread(k, rows, nnz, num_rows, row_offsets);
}

// nnz + 1 threads, so that even a matrix without entries has a thread to write its offsets.
inline void launch_row_starts(const Here& here, const DeviceCoo& coo, int* row_offsets) {
    here.launch(blocks_for(static_cast<size_t>(coo.nnz()) + 1), kThreadsPerBlock, row_starts_kernel,
                row_starts_thread, static_cast<size_t>(coo.nnz()) + 1, coo.rows.data(), coo.nnz(),
                coo.num_rows, row_offsets);
}

int main(int argc, char** argv) {
    return run_row_offsets_exercise(
        argc, argv, "ex21_2_row_starts_off_by_one",
        "exercise 21.2: row offsets from where the row ids change, and an off-by-one",
        launch_row_starts);
}
