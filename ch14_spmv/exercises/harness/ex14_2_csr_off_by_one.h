// Exercise 14.2's harness: the launch of the CSR thread-per-row body of ex14_2_csr_off_by_one.cu,
// as in 143, on arrays that carry one guard slot past the last entry. A loop that runs one
// entry too far then reads the guard, inside the allocation, instead of memory past it, where
// the host could crash before any claim is printed; the guard's value is a NaN, which shows in y.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "../../../common/device_formats.cuh"
#include "spmv_exercise.h"

// The exercise: y[row] += the sum of row `row`'s products values[k] * x[col_idx[k]], for k in
// [row_offsets[row], row_offsets[row + 1]).
__host__ __device__ void spmv_csr_row_thread(int row, const int* row_offsets, const int* col_idx,
                                             const float* values, const float* x, float* y);

__global__ void spmv_csr_row_kernel(int num_rows, const int* row_offsets, const int* col_idx,
                                    const float* values, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) spmv_csr_row_thread(row, row_offsets, col_idx, values, x, y);
}

// The guard slot's column is num_cols, so x gets one entry more for it to point at.
inline std::vector<float> guarded_csr_spmv(const Here& here, const HostCoo& coo,
                                           const std::vector<float>& x,
                                           const std::vector<float>& y0) {
    const HostCsr a = csr_for_lesson(coo);
    if (printable(a)) {
        print_array("row_offsets (the book's rowPtrs)", a.row_offsets, 32);
        print_array("col_idx (the book's colIdx)", a.col_idx, 32);
        print_array("values (the book's value)", a.values, 32);
    }
    std::vector<int> col_idx = a.col_idx;
    std::vector<float> values = a.values, x_and_guard = x;
    col_idx.push_back(a.num_cols);
    values.push_back(std::nanf(""));
    x_and_guard.push_back(1.0f);
    const DeviceArray<int> d_offsets(here, a.row_offsets), d_cols(here, col_idx);
    const DeviceArray<float> d_values(here, values), d_x(here, x_and_guard);
    DeviceArray<float> d_y(here, y0);
    here.launch(blocks_for(a.num_rows), kThreadsPerBlock, spmv_csr_row_kernel, spmv_csr_row_thread,
                a.num_rows, d_offsets.data(), d_cols.data(), d_values.data(), d_x.data(),
                d_y.data());
    return d_y.download();
}

// Rows without entries are read off the COO, not off any offsets.
inline bool empty_rows_keep_y0(const HostCoo& coo, const std::vector<float>& y0,
                               const std::vector<float>& y) {
    std::vector<char> has_entry(coo.num_rows, 0);
    for (int r : coo.rows) has_entry[r] = 1;
    for (int r = 0; r < coo.num_rows; ++r)
        if (!has_entry[r] && std::memcmp(&y[r], &y0[r], sizeof(float)) != 0) return false;
    return true;
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_2_csr_off_by_one",
        "exercise 14.2: CSR SpMV, one thread per row, and an off-by-one",
        "Fig. 14.1, empty rows and a duplicate, an R-MAT matrix of 2^8 rows", {48, 100, 900e6});
    return run_spmv_exercise(
        p, exercise_matrices(), guarded_csr_spmv,
        [](const ExerciseMatrix& m, const std::vector<float>&, const std::vector<float>& y0,
           const std::vector<float>& y, SelfCheck& check) {
            check.claim(m.name + ": the rows with no entries keep y0 exactly",
                        empty_rows_keep_y0(m.coo, y0, y));
            check.claim(m.name + ": no y entry is NaN: the guard was not read", !any_nan(y));
        });
}
