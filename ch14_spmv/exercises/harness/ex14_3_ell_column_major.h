// Exercise 14.3's harness: 144's ELL SpMV, one thread per row, with the slot index left to
// ell_slot in ex14_3_ell_column_major.cu. The kernel runs only if every slot that ell_slot names
// is inside the arrays; the index is then checked against the layout that 144's
// ell_from_csr stores. x is stored one place in, after a NaN: a padding slot's column is -1, so
// a thread that reads one picks up that NaN, and y shows it.
#pragma once
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
#include "../../../common/here.cuh"
// 144's lesson: ELL as ell_from_csr stores it
#include "../../144_coalescing_kernel.cu"
#include "spmv_exercise.h"

// The exercise: where ELL keeps entry i of row `row`, for num_rows rows of `width` slots each.
__host__ __device__ size_t ell_slot(int row, int i, int num_rows, int width);

__host__ __device__ inline void spmv_ell_slot_thread(int row, int num_rows, int width,
                                                     const int* nnz_per_row, const int* col_idx,
                                                     const float* values, const float* x,
                                                     float* y) {
    float sum = 0.0f;
    for (int i = 0; i < nnz_per_row[row]; ++i) {
        const size_t slot = ell_slot(row, i, num_rows, width);
        sum += values[slot] * x[col_idx[slot]];
    }
    y[row] += sum;
}

// One thread per row: num_threads is num_rows, which the body needs again as the column height.
__global__ void spmv_ell_slot_kernel(int num_threads, int num_rows, int width,
                                     const int* nnz_per_row, const int* col_idx,
                                     const float* values, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_threads)
        spmv_ell_slot_thread(row, num_rows, width, nnz_per_row, col_idx, values, x, y);
}

// ELL of the lesson's CSR; a matrix whose padding would swamp it is refused, as 144 does.
inline HostEll exercise_ell(const HostCoo& coo) {
    const HostCsr a = csr_for_lesson(coo);
    const std::optional<HostEll> e = ell_if_practical(a);
    if (!e)
        fail_bad_input(ell_not_built(a) + "; give a matrix whose rows are of more even lengths");
    return *e;
}

// Whether `holds(row, i)` is true of every slot (row, i) of the ELL, padding included.
template <class Holds>
bool every_slot(const HostEll& e, Holds&& holds) {
    for (int row = 0; row < e.num_rows; ++row)
        for (int i = 0; i < e.width; ++i)
            if (!holds(row, i)) return false;
    return true;
}

inline bool slots_inside(const HostEll& e) {
    return every_slot(
        e, [&](int row, int i) { return ell_slot(row, i, e.num_rows, e.width) < e.num_slots(); });
}

// The slots that the threads of rows 0, 1, 2, ... read in each step, side by side.
inline void show_steps(const HostEll& e) {
    print_array("nnz_per_row", e.nnz_per_row, 12);
    print_array("col_idx", e.col_idx, 12);
    print_array("values", e.values, 12);
    for (int i = 0; i < e.width; ++i) {
        std::vector<size_t> slots(e.num_rows);
        for (int row = 0; row < e.num_rows; ++row)
            slots[row] = ell_slot(row, i, e.num_rows, e.width);
        print_array("step " + std::to_string(i) + " reads", slots, 12);
    }
}

inline std::vector<float> ell_slot_spmv(const Here& here, const HostCoo& coo,
                                        const std::vector<float>& x, const std::vector<float>& y0) {
    const HostEll e = exercise_ell(coo);
    if (printable(coo)) show_steps(e);
    if (!slots_inside(e)) {
        std::printf("  the kernel is not run: ell_slot names slots past the %zu that ELL has\n",
                    e.num_slots());
        return std::vector<float>(y0.size(), std::nanf(""));
    }
    std::vector<float> nan_then_x = {std::nanf("")};
    nan_then_x.insert(nan_then_x.end(), x.begin(), x.end());
    const DeviceArray<int> d_lengths(here, e.nnz_per_row), d_cols(here, e.col_idx);
    const DeviceArray<float> d_values(here, e.values), d_x(here, nan_then_x);
    DeviceArray<float> d_y(here, y0);
    here.launch(blocks_for(e.num_rows), kThreadsPerBlock, spmv_ell_slot_kernel,
                spmv_ell_slot_thread, e.num_rows, e.num_rows, e.width, d_lengths.data(),
                d_cols.data(), d_values.data(), d_x.data() + 1, d_y.data());
    return d_y.download();
}

inline void check_layout(const ExerciseMatrix& m, const std::vector<float>& y, SelfCheck& check) {
    const HostEll e = exercise_ell(m.coo);
    check.claim(m.name + ": each (row, i) maps to where ell_from_csr stored it",
                every_slot(e, [&](int row, int i) {
                    return ell_slot(row, i, e.num_rows, e.width) == e.slot(row, i);
                }));
    check.claim(m.name + ": in each step, neighbouring rows read neighbouring slots",
                every_slot(e, [&](int row, int i) {
                    return row + 1 == e.num_rows || ell_slot(row + 1, i, e.num_rows, e.width) ==
                                                        ell_slot(row, i, e.num_rows, e.width) + 1;
                }));
    check.claim(m.name + ": no y entry is NaN: no thread read a padding slot", !any_nan(y));
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_3_ell_column_major", "exercise 14.3: ELL's column-major slot index",
        "Fig. 14.1, empty rows and a duplicate, an R-MAT matrix of 2^8 rows", {52, 96, 900e6});
    return run_spmv_exercise(
        p, exercise_matrices(), ell_slot_spmv,
        [](const ExerciseMatrix& m, const std::vector<float>&, const std::vector<float>&,
           const std::vector<float>& y, SelfCheck& check) { check_layout(m, y, check); });
}
