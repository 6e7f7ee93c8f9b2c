// 142 (14.2) kernel: SpMV over COO, y = A * x + y, one thread per nonzero.
// Thread k reads entry k's row, column and value, multiplies by x[column], and adds the product
// into y[row]. Every thread does the same small amount of work, and neighbouring threads read
// neighbouring entries. But the threads of a row's nonzeros all add into the same y entry at the
// same time, so the add must be an atomicAdd; which threads collide is read off rows and printed.
// The atomics land in any order, which changes the rounding: the kernel's y and the baseline's
// are both held to the double reference's float32 bound. At --scale, cuSPARSE is the bar.
// Build and run:  make 142_spmv_coo_kernel && build/142_spmv_coo_kernel
//                 build/142_spmv_coo_kernel --scale 22 --max-memory 8G
//                 build/142_spmv_coo_kernel --matrix data/1138_bus.mtx
#ifndef SPMV_COO_KERNEL_142  // 141 and 146 take its baseline, 144 and 145 its kernel
#define SPMV_COO_KERNEL_142
#include "chapter_inputs.h"

// The CPU baseline, in the kernel's shape: the same loop over the nonzeros, one after another.
// It adds a row's products in entry order; the kernel's atomics add them in the order they land.
inline void spmv_coo_cpu(const HostCoo& a, const std::vector<float>& x, std::vector<float>& y) {
    for (size_t k = 0; k < a.nnz(); ++k) y[a.rows[k]] += a.values[k] * x[a.cols[k]];
}

// __CUDACC__ is defined only when nvcc compiles, SUITE_EMULATOR_ONLY where the C++ compiler builds
// the kernel lessons without the CUDA Toolkit (the Makefile): 141 and 146, compiled as plain C++
// programs, take the baseline above alone.
#if defined(__CUDACC__) || defined(SUITE_EMULATOR_ONLY)
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"

// One thread's work: entry k's product, added into the y entry that its row shares with every
// other entry of that row. Threads of one row add at the same time, so the add is atomic.
// atomic_add_shim (common/emulator.cuh) is CUDA's atomicAdd on a GPU. In the emulator, which runs
// one thread at a time, it is a plain read, add and write that flushes a subnormal sum to zero
// as a GPU's float atomics on global memory do; under `make races`, a real host atomic.
__host__ __device__ inline void spmv_coo_thread(int k, const int* rows, const int* cols,
                                                const float* values, const float* x, float* y) {
    atomic_add_shim(&y[rows[k]], values[k] * x[cols[k]]);  // make races plants a plain += here
}

// A thread for every nonzero, and none loops: each does the same work however long its row is,
// where 143's thread per row loops as many times as its row has entries.
__global__ void spmv_coo_kernel(int nnz, const int* rows, const int* cols, const float* values,
                                const float* x, float* y) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) spmv_coo_thread(k, rows, cols, values, x, y);
}

// The grid: one thread per nonzero, in blocks of 256 threads (eight warps), as many blocks as
// cover the nonzeros; the last block's threads past nnz return at once.
constexpr unsigned kCooThreads = 256;

inline unsigned coo_blocks(size_t nnz) {
    return static_cast<unsigned>((nnz + kCooThreads - 1) / kCooThreads);
}

// y += A * x, written as the book writes it. On a GPU: device memory from cudaMalloc, the
// inputs copied in with cudaMemcpy, the launch kernel<<<blocks, threads>>>, y copied back, and
// the memory freed. In emulation, host vectors stand for device memory, and here.launch runs
// spmv_coo_thread for every thread index of the same grid, in a shuffled order.
inline std::vector<float> coo_spmv(const Here& here, const HostCoo& a, const std::vector<float>& x,
                                   const std::vector<float>& y0) {
    const int nnz = static_cast<int>(a.nnz());
    const unsigned threads = kCooThreads, blocks = coo_blocks(a.nnz());
    std::vector<float> y = y0;
    if (nnz == 0) return y;  // no nonzeros: no threads, and y stays y0
    if (!here.on_gpu()) {
        here.launch(blocks, threads, spmv_coo_kernel, spmv_coo_thread, nnz, a.rows.data(),
                    a.cols.data(), a.values.data(), x.data(), y.data());
        return y;
    }
    int *d_rows = nullptr, *d_cols = nullptr;
    float *d_values = nullptr, *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_rows, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_cols, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_values, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, y.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_rows, a.rows.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_cols, a.cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_values, a.values.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice));
#ifdef __CUDACC__  // only nvcc parses a launch; a build without it has no GPU to come here
    spmv_coo_kernel<<<blocks, threads>>>(nnz, d_rows, d_cols, d_values, d_x, d_y);
#endif
    CUDA_CHECK_LAUNCH();
    pause_after_launch(true, size_t{blocks} * threads);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_rows));
    CUDA_CHECK(cudaFree(d_cols));
    CUDA_CHECK(cudaFree(d_values));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return y;
}

// The same launch with the suite's helpers, which later lessons use: the arrays are DeviceCoo's
// DeviceArrays (device memory on a GPU, host memory in emulation, freed with the object), and
// here.launch is the <<<blocks, threads>>> above on a GPU and the emulator's loop otherwise.
inline void launch_spmv_coo(const Here& here, DeviceCoo& a, const float* x, float* y) {
    const unsigned threads = kCooThreads, blocks = coo_blocks(a.nnz());
    here.launch(blocks, threads, spmv_coo_kernel, spmv_coo_thread, a.nnz(), a.rows.data(),
                a.cols.data(), a.values.data(), x, y);
}

// __INCLUDE_LEVEL__ is 0 only in the file that the compiler was given: a later lesson or a test
// that includes this one takes the lesson above, without the program below.
#if __INCLUDE_LEVEL__ == 0
#include "proof/142_spmv_coo_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, spmv_coo_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options, ShownFormat::coo);
    const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(in.coo);
    show_contention(in.coo, groups, coo_blocks(in.coo.nnz()), kCooThreads);

    std::vector<float> y_cpu = in.y0;
    spmv_coo_cpu(in.coo, in.x, y_cpu);
    const std::vector<float> y = coo_spmv(p.here, in.coo, in.x, in.y0);
    show_ys(in, {{"y", &y}, {"y_cpu", &y_cpu}});
    SelfCheck check;
    check_spmv(p, in, "kernel", y_cpu, y, check);
    check_groups(p, in.csr, groups, check);
    compare_with_library(p, in, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, coo_spmv(p.here, in.coo, ones(in.coo.num_cols), zeros(in.coo.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__ || SUITE_EMULATOR_ONLY
#endif  // SPMV_COO_KERNEL_142
