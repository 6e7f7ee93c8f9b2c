// 143 (14.3) kernel: SpMV over CSR, y = A * x + y, one thread per row.
// Thread `row` walks its own slice of the nonzeros, [row_offsets[row], row_offsets[row + 1]),
// keeps a private running sum, and adds it into y[row] once. No other thread writes y[row], so
// there is no race and no atomic. The price is uneven work (a thread loops as many times as its
// row has nonzeros) and strided reads, which 144 takes up. At --scale, cuSPARSE is the bar.
//
// Build and run:  make 143_spmv_csr_kernel && build/143_spmv_csr_kernel
//                 build/143_spmv_csr_kernel --scale 22 --max-memory 8G
//                 build/143_spmv_csr_kernel --matrix data/1138_bus.mtx
#ifndef SPMV_CSR_KERNEL_143  // 141 and 146 take its baseline; 144, 145, 147, 148, 149 its kernel
#define SPMV_CSR_KERNEL_143
#include "chapter_inputs.h"

// The CPU baseline, in the kernel's shape: the same row loop, one row after another.
inline void spmv_csr_cpu(const HostCsr& a, const std::vector<float>& x, std::vector<float>& y) {
    for (int row = 0; row < a.num_rows; ++row) {
        float sum = 0.0f;
        for (int k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k)
            sum += a.values[k] * x[a.col_idx[k]];
        y[row] += sum;
    }
}

// The kernel; 141 and 146, compiled as plain C++, take the baseline alone
#if defined(__CUDACC__) || defined(SUITE_EMULATOR_ONLY)
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "spmv_on_device.cuh"

// One thread's work: its row's slice, summed privately, added into its own y entry.
__host__ __device__ inline void spmv_csr_thread(int row, const int* row_offsets, const int* col_idx,
                                                const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int k = row_offsets[row]; k < row_offsets[row + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[row] += sum;
}

__global__ void spmv_csr_kernel(int num_rows, const int* row_offsets, const int* col_idx,
                                const float* values, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) spmv_csr_thread(row, row_offsets, col_idx, values, x, y);
}

// y += A * x: one thread per row, in blocks of 256 threads, as many blocks as cover the rows.
constexpr unsigned kRowThreads = 256;
inline unsigned row_blocks(int num_rows) { return (num_rows + kRowThreads - 1) / kRowThreads; }

inline void launch_spmv_csr(const Here& here, DeviceCsr& a, const float* x, float* y) {
    const unsigned threads = kRowThreads, blocks = row_blocks(a.num_rows);
    here.launch(blocks, threads, spmv_csr_kernel, spmv_csr_thread, a.num_rows,
                a.row_offsets.data(), a.col_idx.data(), a.values.data(), x, y);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/143_spmv_csr_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, spmv_csr_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    show_thread_slices(in.csr, row_blocks(in.csr.num_rows), kRowThreads);
    show_longest_row(in.csr);

    std::vector<float> y_cpu = in.y0;
    spmv_csr_cpu(in.csr, in.x, y_cpu);
    const std::vector<float> y = spmv_on_device(p.here, launch_spmv_csr, in.csr, in.x, in.y0);
    const std::vector<float> y_twice =
        spmv_on_device(p.here, launch_spmv_csr, in.csr, in.x, in.y0, 2);
    show_ys(in, {{"y", &y}, {"y_cpu", &y_cpu}, {"y_twice", &y_twice}});
    SelfCheck check;
    check_spmv_csr(p, in, y_cpu, y, y_twice, check);
    compare_with_library(p, in, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(in.coo, spmv_on_device(p.here, launch_spmv_csr, in.csr,
                                                               ones(in.csr.num_cols),
                                                               zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__ || SUITE_EMULATOR_ONLY
#endif  // SPMV_CSR_KERNEL_143
