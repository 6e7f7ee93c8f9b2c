// 14.2, kernel: SpMV over COO, y = A * x + y, one thread per nonzero.
// Thread k reads entry k's row, column and value, multiplies by x[column], and adds the product
// into y[row]. Every thread does the same small amount of work, and neighbouring threads read
// neighbouring entries. But the threads of a row's nonzeros all add into the same y entry at the
// same time, so the add must be an atomicAdd; which threads collide is read off rowIdx and
// printed. The order in which atomics land changes the rounding, so y is checked against a
// double reference within float32's error bound. At --scale, cuSPARSE's CSR SpMV is the bar.
//
// Build and run:  make 142_spmv_coo_kernel && build/142_spmv_coo_kernel
//                 build/142_spmv_coo_kernel --scale 22 --max-memory 8G
//                 build/142_spmv_coo_kernel --matrix data/1138_bus.mtx
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "spmv_bodies.cuh"

// The CPU baseline is spmv_reference (chapter_inputs.h): the same y = A * x + y0 in double,
// with each row's float32 error bound. The per-thread body is spmv_coo_thread and the kernel
// spmv_coo_kernel (spmv_bodies.cuh), shared with the later programs of the chapter:
//     thread k:  atomicAdd(&y[rowIdx[k]], value[k] * x[colIdx[k]])

// Which threads add into each y entry: thread k adds into y[rowIdx[k]], so entry r's group is
// every k with rowIdx[k] == r. A group of two or more is a set of atomics on one address.
std::vector<std::vector<int>> coo_threads_per_y_entry(const HostCoo& a) {
    std::vector<std::vector<int>> groups(a.num_rows);
    for (size_t k = 0; k < a.nnz(); ++k) groups[a.rows[k]].push_back(static_cast<int>(k));
    return groups;
}

// Internal linkage for the device-side classes: the tests of several programs link into one
// binary, and two programs' classes of the same name must not be merged.
namespace {

// The COO arrays, x and y on the device. Each launch adds A * x into y once more.
struct DeviceCooSpmv {
    DeviceCooSpmv(const HostCoo& a, const std::vector<float>& x_host, const std::vector<float>& y0)
        : nnz(static_cast<int>(a.nnz())), rows(a.rows), cols(a.cols), values(a.values),
          x(x_host), y(y0) {}
    void launch() {
        if (nnz == 0) return;
        spmv_coo_kernel<<<blocks_for(nnz), kThreadsPerBlock>>>(nnz, rows.data(), cols.data(),
                                                               values.data(), x.data(), y.data());
        CUDA_CHECK_LAUNCH();
    }
    int nnz;
    DeviceBuffer<int> rows, cols;
    DeviceBuffer<float> values, x, y;
};


}  // namespace

std::vector<float> coo_spmv_gpu(const HostCoo& a, const std::vector<float>& x,
                                const std::vector<float>& y0) {
    DeviceCooSpmv d(a, x, y0);
    d.launch();
    return d.y.download();
}

std::vector<float> coo_spmv_emulated(const HostCoo& a, const std::vector<float>& x,
                                     const std::vector<float>& y0, const ThreadOrder& order) {
    std::vector<float> y = y0;
    emulate_threads(a.nnz(), order, [&](int k) {
        spmv_coo_thread(k, a.rows.data(), a.cols.data(), a.values.data(), x.data(), y.data());
    });
    return y;
}

#ifndef SUITE_NO_MAIN
// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{60, 100, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "142 (14.2) kernel: COO SpMV, one thread per nonzero, atomicAdd into y");
    const HostCoo a = spmv_input(p.options, kMemory);
    const bool book = p.options.book_example();
    const bool timed = p.options.scale > 0;
    const size_t nnz = a.nnz();
    const std::vector<float> x = lesson_x(a.num_cols);
    std::vector<float> y0(a.num_rows);
    for (int i = 0; i < a.num_rows; ++i) y0[i] = static_cast<float>(i % 3) * 0.5f;
    if (nnz <= kPrintLimit) {
        std::printf("the matrix in COO, %zu nonzeros:\n", nnz);
        print_array("value", a.values, 6);
        print_array("colIdx", a.cols, 6);
        print_array("rowIdx", a.rows, 6);
        print_array("x", x, 6);
        print_array("y0", y0, 6);
        std::printf("\n");
    }

    std::printf("%zu threads, one per nonzero (%u block(s) of %d): thread k adds\n"
                "value[k] * x[colIdx[k]] into y[rowIdx[k]].\n",
                nnz, blocks_for(nnz), kThreadsPerBlock);
    const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(a);
    size_t contended_entries = 0, busiest_row = 0;
    for (size_t r = 0; r < groups.size(); ++r) {
        contended_entries += groups[r].size() > 1;
        if (groups[r].size() > groups[busiest_row].size()) busiest_row = r;
    }
    if (nnz <= kPrintLimit) {
        std::printf("threads that add into the same y entry (read off rowIdx):\n");
        for (size_t r = 0; r < groups.size(); ++r) {
            std::string threads;
            for (int k : groups[r]) threads += " t" + std::to_string(k);
            std::printf("  y[%zu] <-%-14s ", r,
                        groups[r].empty() ? " (no thread)" : threads.c_str());
            if (groups[r].size() > 1)
                std::printf("%zu threads, one address: the adds must be atomic\n",
                            groups[r].size());
            else
                std::printf("%s\n", groups[r].empty() ? "keeps y0" : "alone: no contention");
        }
    }
    if (!groups.empty())
        std::printf("%zu atomics onto %d y entries; %zu entries take two or more, the busiest "
                    "(y[%zu]) takes %zu.\n",
                    nnz, a.num_rows, contended_entries, busiest_row, groups[busiest_row].size());
    std::printf("\n");

    const SpmvReference reference = spmv_reference(a, x, y0);
    std::vector<float> y;
    double ms = 0;
    if (p.on_gpu())
        y = coo_spmv_gpu(a, x, y0);
    else
        ms = host_ms([&] { y = coo_spmv_emulated(a, x, y0, p.shuffled_order()); });
    if (timed && !p.on_gpu())
        std::printf("time: %.1f ms on the host (emulation: not a GPU time)\n\n", ms);
    if (a.num_rows <= static_cast<int>(kPrintLimit)) {
        print_array("y", y, 9);
        print_array("reference", reference.y, 9);
        std::printf("\n");
    }

    SelfCheck check;
    check.claim(std::string("y = A * x + y0 from the ") + (p.on_gpu() ? "GPU" : "emulated") +
                    " kernel matches the double reference within float32 rounding",
                spmv_matches(y, reference));
    // An independent route to the groups: a CSR built by stable sort has each row's entries
    // as one slice, so group r must be as long as row r's slice (and, for the book's matrix,
    // must be exactly the thread indices of that slice).
    const HostCsr csr = csr_from_coo_by_stable_sort(a);
    bool groups_are_rows = groups.size() == static_cast<size_t>(csr.num_rows);
    for (int r = 0; groups_are_rows && r < csr.num_rows; ++r)
        groups_are_rows = groups[r].size() ==
                          static_cast<size_t>(csr.row_offsets[r + 1] - csr.row_offsets[r]);
    check.claim("each y entry's group of threads is as large as its row's slice of a CSR",
                groups_are_rows);
    if (book) {
        bool book_groups = true;
        for (int r = 0; r < a.num_rows; ++r) {
            std::vector<int> slice;
            for (int k = kFigRowPtrs[r]; k < kFigRowPtrs[r + 1]; ++k) slice.push_back(k);
            book_groups = book_groups && groups[r] == slice;
        }
        check.claim("the groups are rowPtrs' slices: y[0] <- t0 t1, y[1] <- t2 t3 t4, "
                    "y[2] <- t5 t6, y[3] <- t7",
                    book_groups);
    }

    std::vector<float> y_ones;
    if (!p.options.matrix.empty()) {
        const std::vector<float> ones(a.num_cols, 1.0f), zeros(a.num_rows, 0.0f);
        y_ones = p.on_gpu() ? coo_spmv_gpu(a, ones, zeros)
                            : coo_spmv_emulated(a, ones, zeros, p.shuffled_order());
        check.end_with(spmv_result_line(a, y_ones));
    }

    const std::string library_claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) {
        check.skip(library_claim);
        return check.finish();
    }
    if (nnz == 0) {
        check.skip(library_claim, "the matrix has no nonzeros");
        return check.finish();
    }
    const std::string refused = cusparse_refusal(csr.num_rows, csr.num_cols, static_cast<int64_t>(csr.nnz()));
    if (!refused.empty()) {
        check.skip(library_claim, refused);
        return check.finish();
    }

    CusparseCsrSpmv library(csr, x, y0);
    library.run();
    check.claim(library_claim, spmv_matches(library.y.download(), reference));

    if (timed) {
        const double copy_gbs = measure_copy_gbs();
        DeviceCooSpmv d(a, x, y0);
        // Repeated runs keep adding into y (y = A * x + y each time), for both: the work per
        // run is the same, and no reset is timed.
        const double kernel_ms = median_gpu_ms([&] { d.launch(); });
        const double library_ms = median_gpu_ms([&] { library.run(); });
        // Bytes that each must move at least once: COO reads rowIdx, colIdx and value (12 per
        // nonzero); CSR reads colIdx and value (8 per nonzero) and rowPtrs (4 per row + 4);
        // both read x and read and write y once. Repeated gathers of x and the atomics' own
        // traffic are not counted, so these are the useful bytes, not all that moved.
        const double vectors = 4.0 * a.num_cols + 8.0 * a.num_rows;
        const double coo_bytes = 12.0 * nnz + vectors;
        const double csr_bytes = 8.0 * nnz + 4.0 * (a.num_rows + 1) + vectors;
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
        std::printf("  COO, thread per nonzero  %8.3f ms  %6.0f GB/s (%4.1f%% of copy)\n",
                    kernel_ms, gb_per_s(coo_bytes, kernel_ms),
                    100 * gb_per_s(coo_bytes, kernel_ms) / copy_gbs);
        std::printf("  cuSPARSE CSR SpMV        %8.3f ms  %6.0f GB/s (%4.1f%% of copy)\n",
                    library_ms, gb_per_s(csr_bytes, library_ms),
                    100 * gb_per_s(csr_bytes, library_ms) / copy_gbs);
        std::printf("  ratio cuSPARSE / COO kernel: %.2f (below 1: cuSPARSE is faster)\n",
                    library_ms / kernel_ms);
    }
    return check.finish();
}
#endif
