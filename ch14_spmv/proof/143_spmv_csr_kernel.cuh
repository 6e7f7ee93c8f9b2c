// What 143 prints, checks and times around its lesson (143_spmv_csr_kernel.cu): the threads'
// slices, the longest row, the claims about y, and cuSPARSE's SpMV beside the kernel.
#pragma once
#include "spmv_proof.cuh"

inline ProgramDescription spmv_csr_program() {
    return spmv_kernel_program("143 (14.3) kernel: CSR SpMV, one thread per row, no atomics",
                               {"make 143_spmv_csr_kernel && build/143_spmv_csr_kernel",
                                "build/143_spmv_csr_kernel --scale 22 --max-memory 8G",
                                "build/143_spmv_csr_kernel --matrix data/1138_bus.mtx"},
                               {48, 100, 900e6});
}

// Each thread's slice and the one y entry that it writes.
inline void show_thread_slices(const HostCsr& a, unsigned blocks, unsigned threads) {
    std::printf("%s, one per row (%s of %u): thread t walks row t's slice and writes only y[t].\n",
                counted(a.num_rows, "thread").c_str(), counted(blocks, "block").c_str(), threads);
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

// Why no atomic is needed, observed: each thread, run alone on a y of markers, may change only
// its own entry. Returns the first thread that wrote elsewhere, or -1. Quadratic: small inputs.
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

// The claims about y, two runs' too (SpMV adds into y, and 2x is exact in float, so the
// reference of two runs is y0 + A * (2x)), and each thread's writes.
inline void check_spmv_csr(const KernelProgram& p, const SpmvLessonInput& in,
                           const std::vector<float>& y_cpu, const std::vector<float>& y,
                           const std::vector<float>& y_twice, SelfCheck& check) {
    check_spmv(p, in, "kernel", y_cpu, y, check);
    std::vector<float> twice_x(in.x.size());
    for (size_t j = 0; j < in.x.size(); ++j) twice_x[j] = 2.0f * in.x[j];
    check.claim("two runs from y0 leave y0 + 2 * A * x (SpMV accumulates into y)",
                spmv_matches(y_twice, spmv_reference(in.coo, twice_x, in.y0)));
    if (p.options.book_example())
        check.claim("the threads' slices are row_offsets = [ 0 2 5 7 8 ], as in the notes",
                    in.csr.row_offsets == kFigRowOffsets);
    if (printable(in.csr))
        check.claim("each thread, run alone, changes no y entry but its own row's",
                    first_thread_writing_outside_its_row(in.csr, in.x) == -1);
}

inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 SelfCheck& check) {
    compare_with_library(
        p, in, "143", kCsrBytesNote,
        {timed_spmv(p.here, "csr_thread_per_row", "CSR, thread per row", launch_spmv_csr, &in.csr)},
        {kCusparseDefault}, check, [](TimingTable& table, SpmvTimes& ms) {
            print_ratio(table, ms, "cuSPARSE / thread per row", "cusparse_csr",
                        "csr_thread_per_row", "cuSPARSE is faster");
        });
}
