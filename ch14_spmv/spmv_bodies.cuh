// The chapter's two SpMV kernels, y = A * x + y, written once: 142 and 143 teach them, and the
// later programs (the coalescing demos, the solver) run the very same code.
//
// COO, one thread per nonzero: thread k owns entry k and nothing else, so threads whose entries
// share a row add into the same y[row] at the same time. The add must be an atomicAdd.
//
// CSR, one thread per row: thread `row` walks its own slice [row_ptrs[row], row_ptrs[row + 1])
// and is the only thread that writes y[row], so a private sum and a plain store suffice.
#pragma once
#include "../common/cuda_support.cuh"
#include "../common/emulator.cuh"

__host__ __device__ inline void spmv_coo_thread(int k, const int* rows, const int* cols,
                                                const float* values, const float* x, float* y) {
    atomic_add_shim(&y[rows[k]], values[k] * x[cols[k]]);
}

__host__ __device__ inline void spmv_csr_thread(int row, const int* row_ptrs, const int* cols,
                                                const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) sum += values[k] * x[cols[k]];
    y[row] += sum;
}

// static: each program and test file that includes this header gets its own copy, so that
// several can be linked into one test binary.
static __global__ void spmv_coo_kernel(int nnz, const int* rows, const int* cols,
                                       const float* values, const float* x, float* y) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) spmv_coo_thread(k, rows, cols, values, x, y);
}

static __global__ void spmv_csr_kernel(int num_rows, const int* row_ptrs, const int* cols,
                                       const float* values, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) spmv_csr_thread(row, row_ptrs, cols, values, x, y);
}
