// 14.3, kernel: SpMV over CSR, y = A * x + y, one thread per row.
// Thread `row` reads its slice of the nonzeros, [rowPtrs[row], rowPtrs[row + 1]), keeps a
// private running sum, and adds it into y[row] once. No other thread writes y[row], so there is
// no race and no atomic: a plain load and store are enough. The price is uneven work (a thread
// does as many steps as its row has nonzeros) and strided reads, which 144 takes up. SpMV here
// accumulates into y, so two runs from y0 must leave y0 + 2 * A * x. At --scale, cuSPARSE's CSR
// SpMV on the same arrays is the bar.
//
// Build and run:  make 143_spmv_csr_kernel && build/143_spmv_csr_kernel
//                 build/143_spmv_csr_kernel --scale 22 --max-memory 8G
//                 build/143_spmv_csr_kernel --matrix data/1138_bus.mtx
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "spmv_bodies.cuh"

// The CPU baseline is spmv_reference (chapter_inputs.h): y = A * x + y0 in double, with each
// row's float32 error bound. The per-thread body is spmv_csr_thread and the kernel
// spmv_csr_kernel (spmv_bodies.cuh), shared with the later programs of the chapter:
//     thread row:  sum = 0
//                  for k in [rowPtrs[row], rowPtrs[row + 1]):  sum += value[k] * x[colIdx[k]]
//                  y[row] += sum

// Internal linkage for the device-side classes: the tests of several programs link into one
// binary, and two programs' classes of the same name must not be merged.
namespace {

// The CSR arrays, x and y on the device. Each launch adds A * x into y once more.
struct DeviceCsrSpmv {
    DeviceCsrSpmv(const HostCsr& a, const std::vector<float>& x_host, const std::vector<float>& y0)
        : num_rows(a.num_rows), row_offsets(a.row_offsets), col_idx(a.col_idx), values(a.values),
          x(x_host), y(y0) {}
    void launch() {
        if (num_rows == 0) return;
        spmv_csr_kernel<<<blocks_for(num_rows), kThreadsPerBlock>>>(
            num_rows, row_offsets.data(), col_idx.data(), values.data(), x.data(), y.data());
        CUDA_CHECK_LAUNCH();
    }
    int num_rows;
    DeviceBuffer<int> row_offsets, col_idx;
    DeviceBuffer<float> values, x, y;
};


}  // namespace

// `runs` launches one after another on the same y: each adds A * x once more.
std::vector<float> csr_spmv_gpu(const HostCsr& a, const std::vector<float>& x,
                                const std::vector<float>& y0, int runs = 1) {
    DeviceCsrSpmv d(a, x, y0);
    for (int i = 0; i < runs; ++i) d.launch();
    return d.y.download();
}

std::vector<float> csr_spmv_emulated(const HostCsr& a, const std::vector<float>& x,
                                     const std::vector<float>& y0, const ThreadOrder& order,
                                     int runs = 1) {
    std::vector<float> y = y0;
    for (int i = 0; i < runs; ++i)
        emulate_threads(a.num_rows, order, [&](int row) {
            spmv_csr_thread(row, a.row_offsets.data(), a.col_idx.data(), a.values.data(), x.data(),
                            y.data());
        });
    return y;
}

// Why no atomic is needed, observed rather than argued: each thread is run on its own, on a y
// whose every entry holds a marker, and afterwards only that thread's own entry may differ.
// Returns the first thread that wrote elsewhere, or -1. Quadratic in the rows: small inputs.
int first_thread_writing_outside_its_row(const HostCsr& a, const std::vector<float>& x) {
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

#ifndef SUITE_NO_MAIN
// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{48, 100, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "143 (14.3) kernel: CSR SpMV, one thread per row, no atomics");
    const HostCoo coo = spmv_input(p.options, kMemory);
    const HostCsr a = csr_from_coo_by_stable_sort(coo);
    const bool book = p.options.book_example();
    const bool timed = p.options.scale > 0;
    const bool small = a.num_rows <= static_cast<int>(kPrintLimit);
    const std::vector<float> x = lesson_x(a.num_cols);
    std::vector<float> y0(a.num_rows);
    for (int i = 0; i < a.num_rows; ++i) y0[i] = static_cast<float>(i % 3) * 0.5f;
    if (a.nnz() <= kPrintLimit) {
        std::printf("the matrix in CSR, %zu nonzeros grouped by row:\n", a.nnz());
        print_array("value", a.values, 7);
        print_array("colIdx", a.col_idx, 7);
        print_array("rowPtrs", a.row_offsets, 7);
        print_array("x", x, 7);
        print_array("y0", y0, 7);
        std::printf("\n");
    }

    std::printf("%d threads, one per row (%u block(s) of %d): thread t walks row t's slice and\n"
                "writes only y[t].\n",
                a.num_rows, blocks_for(a.num_rows), kThreadsPerBlock);
    if (small) {
        for (int t = 0; t < a.num_rows; ++t) {
            const int begin = a.row_offsets[t], end = a.row_offsets[t + 1];
            char slice[48];
            if (end - begin == 0)
                std::snprintf(slice, sizeof slice, "no entries");
            else if (end - begin == 1)
                std::snprintf(slice, sizeof slice, "value[%d]", begin);
            else
                std::snprintf(slice, sizeof slice, "value[%d..%d]", begin, end - 1);
            const std::string thread =
                "t" + std::to_string(t) + " -> row" + std::to_string(t) + ":";
            std::printf("  %-13s %-14s -> y[%d]%s\n", thread.c_str(), slice, t,
                        end == begin ? " keeps y0" : "");
        }
    }
    int longest = 0;
    for (int r = 0; r < a.num_rows; ++r)
        longest = std::max(longest, a.row_offsets[r + 1] - a.row_offsets[r]);
    if (a.num_rows > 0)
        std::printf("row lengths: mean %.2f, longest %d: the thread of the longest row loops %d "
                    "times,\nand its warp waits for it.\n",
                    static_cast<double>(a.nnz()) / a.num_rows, longest, longest);
    std::printf("\n");

    const SpmvReference reference = spmv_reference(coo, x, y0);
    std::vector<float> y;
    if (p.on_gpu()) {
        y = csr_spmv_gpu(a, x, y0);
    } else {
        const double ms = host_ms([&] { y = csr_spmv_emulated(a, x, y0, p.shuffled_order()); });
        if (timed) std::printf("time: %.1f ms on the host (emulation: not a GPU time)\n\n", ms);
    }
    // Two runs in a row from the same y0: SpMV accumulates, so the second adds A * x again.
    // 2x is exact in float, so the reference for the pair is y0 + A * (2x).
    std::vector<float> twice_x(x.size());
    for (size_t j = 0; j < x.size(); ++j) twice_x[j] = 2.0f * x[j];
    const std::vector<float> y_twice =
        p.on_gpu() ? csr_spmv_gpu(a, x, y0, 2) : csr_spmv_emulated(a, x, y0, p.shuffled_order(), 2);
    if (small) {
        print_array("y = A*x + y0", y, 16);
        print_array("reference", reference.y, 16);
        print_array("after 2 runs", y_twice, 16);
        std::printf("\n");
    }

    SelfCheck check;
    check.claim(std::string("y = A * x + y0 from the ") + (p.on_gpu() ? "GPU" : "emulated") +
                    " kernel matches the double reference within float32 rounding",
                spmv_matches(y, reference));
    check.claim("two runs from y0 leave y0 + 2 * A * x (SpMV accumulates into y)",
                spmv_matches(y_twice, spmv_reference(coo, twice_x, y0)));
    if (book)
        check.claim("the threads' slices are rowPtrs = [ 0 2 5 7 8 ], as in the notes",
                    a.row_offsets == kFigRowPtrs);
    if (small)
        check.claim("each thread, run alone, changes no y entry but its own row's",
                    first_thread_writing_outside_its_row(a, x) == -1);

    if (!p.options.matrix.empty()) {
        const std::vector<float> ones(a.num_cols, 1.0f), zeros(a.num_rows, 0.0f);
        const std::vector<float> y_ones =
            p.on_gpu() ? csr_spmv_gpu(a, ones, zeros)
                       : csr_spmv_emulated(a, ones, zeros, p.shuffled_order());
        check.end_with(spmv_result_line(coo, y_ones));
    }

    const std::string library_claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) {
        check.skip(library_claim);
        return check.finish();
    }
    if (a.nnz() == 0) {
        check.skip(library_claim, "the matrix has no nonzeros");
        return check.finish();
    }
    const std::string refused = cusparse_refusal(a.num_rows, a.num_cols, static_cast<int64_t>(a.nnz()));
    if (!refused.empty()) {
        check.skip(library_claim, refused);
        return check.finish();
    }

    CusparseCsrSpmv library(a, x, y0);
    library.run();
    check.claim(library_claim, spmv_matches(library.y.download(), reference));

    if (timed) {
        const double copy_gbs = measure_copy_gbs();
        DeviceCsrSpmv d(a, x, y0);
        // Repeated runs keep adding into y, for both: the same work per run, and no reset timed.
        const double kernel_ms = median_gpu_ms([&] { d.launch(); });
        const double library_ms = median_gpu_ms([&] { library.run(); });
        // Bytes that both must move at least once: colIdx and value (8 per nonzero), rowPtrs
        // (4 per row + 4), x read once, y read and written once. Repeated gathers of x are not
        // counted, so this is the useful traffic, not all that moved.
        const double bytes =
            8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + 4.0 * a.num_cols + 8.0 * a.num_rows;
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
        std::printf("  CSR, thread per row  %8.3f ms  %6.0f GB/s (%4.1f%% of copy)\n", kernel_ms,
                    gb_per_s(bytes, kernel_ms), 100 * gb_per_s(bytes, kernel_ms) / copy_gbs);
        std::printf("  cuSPARSE CSR SpMV    %8.3f ms  %6.0f GB/s (%4.1f%% of copy)\n", library_ms,
                    gb_per_s(bytes, library_ms), 100 * gb_per_s(bytes, library_ms) / copy_gbs);
        std::printf("  ratio cuSPARSE / CSR kernel: %.2f (below 1: cuSPARSE is faster)\n",
                    library_ms / kernel_ms);
    }
    return check.finish();
}
#endif
