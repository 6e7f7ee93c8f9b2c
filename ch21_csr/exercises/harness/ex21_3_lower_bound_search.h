// Exercise 21.3's harness: the launch of the search body of ex21_3_lower_bound_search.cu, one
// thread per row boundary as in 120, on row_offsets_exercise.h's inputs and checks.
#pragma once
#include "row_offsets_exercise.h"

// The exercise: thread r writes row_offsets[r], the index of the first entry whose row is not
// below r (nnz if there is none), found by a binary search of the sorted row ids.
__host__ __device__ void row_start_search_thread(int r, const int* sorted_rows, int nnz,
                                                 int* row_offsets);

__global__ void row_start_search_kernel(int num_boundaries, const int* sorted_rows, int nnz,
                                        int* row_offsets) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < num_boundaries) row_start_search_thread(r, sorted_rows, nnz, row_offsets);
}

// num_rows + 1 boundaries: the last one, r = num_rows, is where the entries end.
inline void launch_row_start_searches(const Here& here, const DeviceCoo& coo, int* row_offsets) {
    here.launch(blocks_for(static_cast<size_t>(coo.num_rows) + 1), kThreadsPerBlock,
                row_start_search_kernel, row_start_search_thread,
                static_cast<size_t>(coo.num_rows) + 1, coo.rows.data(), coo.nnz(), row_offsets);
}

int main(int argc, char** argv) {
    return run_row_offsets_exercise(
        argc, argv, "ex21_3_lower_bound_search",
        "exercise 21.3: row offsets by one lower-bound search per row boundary",
        launch_row_start_searches);
}
