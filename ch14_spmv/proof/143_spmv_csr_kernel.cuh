// What 143 prints, checks and times around its lesson (143_spmv_csr_kernel.cu): the threads'
// slices, the longest row, the claims about y, and cuSPARSE's SpMV beside the kernel.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "../regular_formats.h"

inline ProgramDescription spmv_csr_program() {
    return ProgramDescription("143 (14.3) kernel: CSR SpMV, one thread per row, no atomics",
                              {"make 143_spmv_csr_kernel && build/143_spmv_csr_kernel",
                               "build/143_spmv_csr_kernel --scale 22 --max-memory 8G",
                               "build/143_spmv_csr_kernel --matrix data/1138_bus.mtx"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_memory({48, 100, 900e6});
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
                                  : end - begin == 1 ? "values[" + std::to_string(begin) + "]"
                                                     : "values[" + std::to_string(begin) + ".." +
                                                           std::to_string(end - 1) + "]";
        const std::string thread = "t" + std::to_string(t) + " -> row" + std::to_string(t) + ":";
        std::printf("  %-13s %-15s -> y[%d]%s\n", thread.c_str(), slice.c_str(), t,
                    end == begin ? " keeps y0" : "");
    }
}

// The longest row sets how long the slowest thread, and so its warp, runs.
inline void show_longest_row(const HostCsr& a) {
    if (a.num_rows == 0) return;
    const int longest = max_row_length(a);
    print_wrapped("row lengths: mean " + fixed_text(static_cast<double>(a.nnz()) / a.num_rows, 2) +
                  ", longest " + with_separators(longest) +
                  ": the thread of the longest row loops " + with_separators(longest) +
                  " times, and its warp waits for it.");
    std::printf("\n");
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

// The claims about y: the kernel's against the CPU baseline's, both held to the double
// reference's float32 bound; twice (SpMV accumulates); each thread writing its own row only.
inline void check_spmv_csr(const KernelProgram& p, const SpmvLessonInput& in,
                           const std::vector<float>& y_cpu, const std::vector<float>& y,
                           SelfCheck& check) {
    const SpmvReference& reference = in.reference();
    // 2x is exact in float, so the reference for two runs is y0 + A * (2x).
    std::vector<float> twice_x(in.x.size());
    for (size_t j = 0; j < in.x.size(); ++j) twice_x[j] = 2.0f * in.x[j];
    const std::vector<float> y_twice = csr_spmv(p.here, in.csr, in.x, in.y0, 2);
    if (printable(in.csr)) {
        print_array("y", y, 7);
        print_array("y_cpu", y_cpu, 7);
        print_array("y_twice", y_twice, 7);
        std::printf("\n");
    }
    check.claim("the CPU baseline's y is within float32 rounding of the double reference",
                spmv_matches(y_cpu, reference));
    claim_kernel_matches_baseline(check, std::string("the ") + p.here.name() + " kernel", y,
                                  y_cpu, reference);
    check.claim("two runs from y0 leave y0 + 2 * A * x (SpMV accumulates into y)",
                spmv_matches(y_twice, spmv_reference(in.coo, twice_x, in.y0)));
    if (p.options.book_example())
        check.claim("the threads' slices are row_offsets = [ 0 2 5 7 8 ], as in the notes",
                    in.csr.row_offsets == kFigRowOffsets);
    if (printable(in.csr))
        check.claim("each thread, run alone, changes no y entry but its own row's",
                    first_thread_writing_outside_its_row(in.csr, in.x) == -1);
}

// cuSPARSE's CSR SpMV (cusparseSpMV, its default algorithm) on the same arrays: checked, and
// at --scale timed beside the kernel. It is the fair bar: the same format, the same float
// arithmetic, NVIDIA's tuned kernel. Bytes that both must move at least once: col_idx and
// values (8 per nonzero), row_offsets (4 per row + 4), x read once, y read and written once.
// Repeated gathers of x are not counted.
inline void compare_csr_with_cusparse(const KernelProgram& p, const SpmvLessonInput& in,
                                      SelfCheck& check) {
    const std::string claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) return check.skip(claim);
    const HostCsr& a = in.csr;
    DeviceCsr d(p.here, a);
    DeviceArray<float> dx(p.here, in.x), dy(p.here, in.y0);
    const auto library = cusparse_spmv_checked(
        check, claim, a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(), d.col_idx.data(),
        d.values.data(), dx.data(), dy.data(),
        [&] { return spmv_matches(dy.download(), in.reference()); });
    if (p.options.scale == 0 || !library) return;
    const double bytes = csr_spmv_bytes(a);
    // Repeated runs keep adding into y, for both: the same work per run, and no reset timed.
    TimingTable table(p, "143", p.options.skew,
                      "bytes: the CSR arrays, x once, y read and written once");
    const double kernel_ms = table.time("csr_thread_per_row", "CSR, thread per row", bytes,
                                        [&] { launch_spmv_csr(p.here, d, dx.data(), dy.data()); });
    const double library_ms =
        table.time("cusparse_csr", "cuSPARSE CSR SpMV", bytes, [&] { library->run(); });
    table.ratio("cuSPARSE / thread per row", library_ms / kernel_ms, "cuSPARSE is faster");
}
