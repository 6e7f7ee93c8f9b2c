// 14.3, kernel: SpMV over CSR, y = A * x + y, one thread per row.
// Thread `row` walks its own slice of the nonzeros, [row_offsets[row], row_offsets[row + 1]),
// keeps a private running sum, and adds it into y[row] once. No other thread writes y[row], so
// there is no race and no atomic. The price is uneven work (a thread loops as many times as its
// row has nonzeros) and strided reads, which 144 takes up. At --scale, cuSPARSE is the bar.
//
// Build and run:  make 143_spmv_csr_kernel && build/143_spmv_csr_kernel
//                 build/143_spmv_csr_kernel --scale 22 --max-memory 8G
//                 build/143_spmv_csr_kernel --matrix data/1138_bus.mtx
#ifndef SPMV_CSR_KERNEL_143  // 147 and 148 build on this lesson, and 149 on both of them
#define SPMV_CSR_KERNEL_143
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "../common/timing_table.cuh"
#include "chapter_inputs.h"

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

// y += A * x, one thread per row, wherever the kernels run.
inline void launch_spmv_csr(const Here& here, DeviceCsr& a, const float* x, float* y) {
    here.launch(a.num_rows, spmv_csr_kernel, spmv_csr_thread, a.row_offsets.data(),
                a.col_idx.data(), a.values.data(), x, y);
}

// The CPU baseline is spmv_reference (chapter_inputs.h): y = A * x + y0 in double, with each
// row's float32 error bound. `runs` launches on the same y each add A * x once more.
inline std::vector<float> csr_spmv(const Here& here, const HostCsr& a, const std::vector<float>& x,
                                   const std::vector<float>& y0, int runs = 1) {
    DeviceCsr d(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    for (int i = 0; i < runs; ++i) launch_spmv_csr(here, d, dx.data(), dy.data());
    return dy.download();
}

// Why no atomic is needed, observed rather than argued: each thread is run on its own, on a y
// whose every entry holds a marker, and afterwards only that thread's own entry may differ.
// Returns the first thread that wrote elsewhere, or -1. Quadratic in the rows: small inputs.
inline int first_thread_writing_outside_its_row(const HostCsr& a, const std::vector<float>& x) {
    const float marker = -12345.0f;
    for (int t = 0; t < a.num_rows; ++t) {
        std::vector<float> y(a.num_rows, marker);
        spmv_csr_thread(t, a.row_offsets.data(), a.col_idx.data(), a.values.data(), x.data(),
                        y.data());
        for (int i = 0; i < a.num_rows; ++i)
            if (i != t && y[i] != marker) return t;
    }
    return -1;
}

// The book's names, for the arrays as the notes print them.
inline void show_csr(const HostCsr& a, const std::vector<float>& x, const std::vector<float>& y0) {
    std::printf("the matrix in CSR, %s grouped by row:\n", counted(a.nnz(), "nonzero").c_str());
    print_array("value", a.values, 7);
    print_array("colIdx", a.col_idx, 7);
    print_array("rowPtrs", a.row_offsets, 7);
    print_array("x", x, 7);
    print_array("y0", y0, 7);
    std::printf("\n");
}

// Each thread's slice and the one y entry that it writes.
inline void show_thread_slices(const HostCsr& a) {
    std::printf("%s, one per row (%s of %d): thread t walks row t's slice and writes only y[t].\n",
                counted(a.num_rows, "thread").c_str(),
                counted(blocks_for(a.num_rows), "block").c_str(), kThreadsPerBlock);
    if (!printable(a)) return;
    for (int t = 0; t < a.num_rows; ++t) {
        const int begin = a.row_offsets[t], end = a.row_offsets[t + 1];
        const std::string slice = end == begin       ? "no entries"
                                  : end - begin == 1 ? "value[" + std::to_string(begin) + "]"
                                                     : "value[" + std::to_string(begin) + ".." +
                                                           std::to_string(end - 1) + "]";
        const std::string thread = "t" + std::to_string(t) + " -> row" + std::to_string(t) + ":";
        std::printf("  %-13s %-14s -> y[%d]%s\n", thread.c_str(), slice.c_str(), t,
                    end == begin ? " keeps y0" : "");
    }
}

// The longest row sets how long the slowest thread, and so its warp, runs.
inline void show_row_lengths(const HostCsr& a) {
    if (a.num_rows == 0) return;
    int longest = 0;
    for (int r = 0; r < a.num_rows; ++r)
        longest = std::max(longest, a.row_offsets[r + 1] - a.row_offsets[r]);
    print_wrapped("row lengths: mean " + fixed_text(static_cast<double>(a.nnz()) / a.num_rows, 2) +
                  ", longest " + with_separators(longest) +
                  ": the thread of the longest row loops " + with_separators(longest) +
                  " times, and its warp waits for it.");
    std::printf("\n");
}

// The claims about y: once, twice (SpMV accumulates), each thread writing its own row only.
inline void check_spmv(const KernelProgram& p, const HostCoo& coo, const HostCsr& a,
                       const std::vector<float>& x, const std::vector<float>& y0,
                       SelfCheck& check) {
    const SpmvReference reference = spmv_reference(coo, x, y0);
    const std::vector<float> y = csr_spmv(p.here, a, x, y0);
    // 2x is exact in float, so the reference for two runs is y0 + A * (2x).
    std::vector<float> twice_x(x.size());
    for (size_t j = 0; j < x.size(); ++j) twice_x[j] = 2.0f * x[j];
    const std::vector<float> y_twice = csr_spmv(p.here, a, x, y0, 2);
    if (printable(a)) {
        print_array("y = A*x + y0", y, 16);
        print_array("reference", reference.y, 16);
        print_array("after 2 runs", y_twice, 16);
        std::printf("\n");
    }
    check.claim(std::string("y = A * x + y0 from the ") + p.here.name() +
                    " kernel matches the double reference within float32 rounding",
                spmv_matches(y, reference));
    check.claim("two runs from y0 leave y0 + 2 * A * x (SpMV accumulates into y)",
                spmv_matches(y_twice, spmv_reference(coo, twice_x, y0)));
    if (p.options.book_example())
        check.claim("the threads' slices are rowPtrs = [ 0 2 5 7 8 ], as in the notes",
                    a.row_offsets == kFigRowOffsets);
    if (printable(a))
        check.claim("each thread, run alone, changes no y entry but its own row's",
                    first_thread_writing_outside_its_row(a, x) == -1);
}

// cuSPARSE's CSR SpMV on the same arrays: checked, and at --scale timed beside the kernel.
// Bytes that both must move at least once: col_idx and values (8 per nonzero), row_offsets
// (4 per row + 4), x read once, y read and written once. Repeated gathers of x are not counted.
inline void compare_csr_with_cusparse(const KernelProgram& p, const HostCoo& coo, const HostCsr& a,
                                      const std::vector<float>& x, const std::vector<float>& y0,
                                      SelfCheck& check) {
    const std::string claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) return check.skip(claim);
    DeviceCsr d(p.here, a);
    DeviceArray<float> dx(p.here, x), dy(p.here, y0);
    const auto library = cusparse_spmv_checked(
        check, claim, a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(), d.col_idx.data(),
        d.values.data(), dx.data(), dy.data(),
        [&] { return spmv_matches(dy.download(), spmv_reference(coo, x, y0)); });
    if (p.options.scale == 0 || !library) return;
    const double bytes =
        8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + 4.0 * a.num_cols + 8.0 * a.num_rows;
    // Repeated runs keep adding into y, for both: the same work per run, and no reset timed.
    TimingTable table(p, "143", p.options.skew,
                      "bytes: the CSR arrays, x once, y read and written once");
    const double kernel_ms = table.time("csr_thread_per_row", "CSR, thread per row", bytes,
                                        [&] { launch_spmv_csr(p.here, d, dx.data(), dy.data()); });
    const double library_ms =
        table.time("cusparse_csr", "cuSPARSE CSR SpMV", bytes, [&] { library->run(); });
    table.ratio("cuSPARSE / thread per row", library_ms / kernel_ms, "cuSPARSE is faster");
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription("143 (14.3) kernel: CSR SpMV, one thread per row, no atomics",
                           {"make 143_spmv_csr_kernel && build/143_spmv_csr_kernel",
                            "build/143_spmv_csr_kernel --scale 22 --max-memory 8G",
                            "build/143_spmv_csr_kernel --matrix data/1138_bus.mtx"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_memory({48, 100, 900e6}));
    const HostCoo coo = spmv_input(p.options);
    const HostCsr a = csr_for_lesson(coo);
    const std::vector<float> x = lesson_x(a.num_cols), y0 = lesson_y0(a.num_rows);
    if (printable(a)) show_csr(a, x, y0);
    show_thread_slices(a);
    show_row_lengths(a);

    SelfCheck check;
    check_spmv(p, coo, a, x, y0, check);
    compare_csr_with_cusparse(p, coo, a, x, y0, check);
    if (!p.options.book_example())
        check.end_with(
            spmv_result_line(coo, csr_spmv(p.here, a, ones(a.num_cols), zeros(a.num_rows))));
    return check.finish();
}
#endif
#endif  // SPMV_CSR_KERNEL_143
