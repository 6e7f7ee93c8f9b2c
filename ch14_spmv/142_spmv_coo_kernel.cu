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

#ifdef __CUDACC__  // the kernel; 141 and 146, compiled as plain C++, take the baseline alone
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"

// One thread's work: entry k's product, added into the y entry that its row shares with every
// other entry of that row. Threads of one row add at the same time, so the add is atomic.
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

// y += A * x, one thread per nonzero, wherever the kernels run.
inline void launch_spmv_coo(const Here& here, DeviceCoo& a, const float* x, float* y) {
    here.launch(a.nnz(), spmv_coo_kernel, spmv_coo_thread, a.rows.data(), a.cols.data(),
                a.values.data(), x, y);
}

inline std::vector<float> coo_spmv(const Here& here, const HostCoo& a, const std::vector<float>& x,
                                   const std::vector<float>& y0) {
    DeviceCoo d(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_coo(here, d, dx.data(), dy.data());
    return dy.download();
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/142_spmv_coo_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, spmv_coo_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options, ShownFormat::coo);
    const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(in.coo);
    show_contention(in.coo, groups);

    std::vector<float> y_cpu = in.y0;
    spmv_coo_cpu(in.coo, in.x, y_cpu);
    const std::vector<float> y = coo_spmv(p.here, in.coo, in.x, in.y0);
    SelfCheck check;
    check_spmv_coo(p, in, groups, y_cpu, y, check);
    compare_coo_with_cusparse(p, in, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, coo_spmv(p.here, in.coo, ones(in.coo.num_cols), zeros(in.coo.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__
#endif  // SPMV_COO_KERNEL_142
