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
#include <cstdio>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "../common/timing_table.cuh"
#include "chapter_inputs.h"

// One thread's work: entry k's product, added into the y entry that its row shares with every
// other entry of that row. Threads of one row add at the same time, so the add is atomic.
__host__ __device__ inline void spmv_coo_thread(int k, const int* rows, const int* cols,
                                                const float* values, const float* x, float* y) {
    atomic_add_shim(&y[rows[k]], values[k] * x[cols[k]]);
}

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

// The CPU baseline is spmv_reference (chapter_inputs.h): y = A * x + y0 in double, with each
// row's float32 error bound, which any order of the atomics stays within.
inline std::vector<float> coo_spmv(const Here& here, const HostCoo& a, const std::vector<float>& x,
                                   const std::vector<float>& y0) {
    DeviceCoo d(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_coo(here, d, dx.data(), dy.data());
    return dy.download();
}

// Which threads add into each y entry: thread k adds into y[rows[k]], so entry r's group is
// every k with rows[k] == r. A group of two or more is a set of atomics on one address.
inline std::vector<std::vector<int>> coo_threads_per_y_entry(const HostCoo& a) {
    std::vector<std::vector<int>> groups(a.num_rows);
    for (size_t k = 0; k < a.nnz(); ++k) groups[a.rows[k]].push_back(static_cast<int>(k));
    return groups;
}

// The book's names, for the arrays as the notes print them.
inline void show_coo(const HostCoo& a, const std::vector<float>& x, const std::vector<float>& y0) {
    std::printf("the matrix in COO, %s:\n", counted(a.nnz(), "nonzero").c_str());
    print_array("value", a.values, 6);
    print_array("colIdx", a.cols, 6);
    print_array("rowIdx", a.rows, 6);
    print_array("x", x, 6);
    print_array("y0", y0, 6);
    std::printf("\n");
}

// Which threads contend for which y entry, read off rowIdx.
inline void show_contention(const HostCoo& a, const std::vector<std::vector<int>>& groups) {
    print_wrapped(counted(a.nnz(), "thread") + ", one per nonzero (" +
                  counted(blocks_for(a.nnz()), "block") + " of " +
                  std::to_string(kThreadsPerBlock) +
                  "): thread k adds value[k] * x[colIdx[k]] into y[rowIdx[k]].");
    size_t contended = 0, busiest = 0;
    for (size_t r = 0; r < groups.size(); ++r) {
        contended += groups[r].size() > 1;
        if (groups[r].size() > groups[busiest].size()) busiest = r;
    }
    if (printable(a)) {
        std::printf("threads that add into the same y entry (read off rowIdx):\n");
        for (size_t r = 0; r < groups.size(); ++r) {
            std::string threads;
            for (int k : groups[r]) threads += " t" + std::to_string(k);
            std::printf("  y[%zu] <-%-14s %s\n", r,
                        groups[r].empty() ? " (no thread)" : threads.c_str(),
                        groups[r].size() > 1 ? (counted(groups[r].size(), "thread") +
                                                ", one address: the adds must be atomic")
                                                   .c_str()
                        : groups[r].empty() ? "keeps y0"
                                            : "alone: no contention");
        }
    }
    if (!groups.empty())
        print_wrapped(
            counted(a.nnz(), "atomic") + " onto " + counted(a.num_rows, "y entry", "y entries") +
            "; " + with_separators(contended) + " take two or more, the busiest (y[" +
            std::to_string(busiest) + "]) takes " + with_separators(groups[busiest].size()) + ".");
    std::printf("\n");
}

// y checked against the reference, and the groups checked against a CSR's row slices, an
// independent route to the same partition of the threads.
inline void check_spmv(const KernelProgram& p, const HostCoo& a, const HostCsr& csr,
                       const std::vector<std::vector<int>>& groups, const std::vector<float>& x,
                       const std::vector<float>& y0, SelfCheck& check) {
    const SpmvReference reference = spmv_reference(a, x, y0);
    const std::vector<float> y = coo_spmv(p.here, a, x, y0);
    if (printable(a)) {
        print_array("y", y, 9);
        print_array("reference", reference.y, 9);
        std::printf("\n");
    }
    check.claim(std::string("y = A * x + y0 from the ") + p.here.name() +
                    " kernel matches the double reference within float32 rounding",
                spmv_matches(y, reference));
    bool groups_are_rows = groups.size() == static_cast<size_t>(csr.num_rows);
    for (int r = 0; groups_are_rows && r < csr.num_rows; ++r)
        groups_are_rows =
            groups[r].size() == static_cast<size_t>(csr.row_offsets[r + 1] - csr.row_offsets[r]);
    check.claim("each y entry's group of threads is as large as its row's slice of a CSR",
                groups_are_rows);
    if (!p.options.book_example()) return;
    bool book_groups = true;
    for (int r = 0; r < a.num_rows; ++r) {
        std::vector<int> slice;
        for (int k = kFigRowOffsets[r]; k < kFigRowOffsets[r + 1]; ++k) slice.push_back(k);
        book_groups = book_groups && groups[r] == slice;
    }
    check.claim(
        "the groups are rowPtrs' slices: y[0] <- t0 t1, y[1] <- t2 t3 t4, "
        "y[2] <- t5 t6, y[3] <- t7",
        book_groups);
}

// cuSPARSE's CSR SpMV: checked, and at --scale timed beside the COO kernel. Bytes that each must
// move at least once: COO reads rowIdx, colIdx and value (12 per nonzero), CSR colIdx and value
// (8 per nonzero) and rowPtrs (4 per row + 4); both read x and read and write y once.
inline void compare_coo_with_cusparse(const KernelProgram& p, const HostCoo& a, const HostCsr& csr,
                                      const std::vector<float>& x, const std::vector<float>& y0,
                                      SelfCheck& check) {
    const std::string claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) return check.skip(claim);
    DeviceCsr d_csr(p.here, csr);
    DeviceCoo d_coo(p.here, a);
    DeviceArray<float> dx(p.here, x), dy(p.here, y0);
    const auto library = cusparse_spmv_checked(
        check, claim, csr.num_rows, csr.num_cols, csr.nnz(), d_csr.row_offsets.data(),
        d_csr.col_idx.data(), d_csr.values.data(), dx.data(), dy.data(),
        [&] { return spmv_matches(dy.download(), spmv_reference(a, x, y0)); });
    if (p.options.scale == 0 || !library) return;
    const double vectors = 4.0 * a.num_cols + 8.0 * a.num_rows;
    // Repeated runs keep adding into y, for both: the same work per run, and no reset timed.
    TimingTable table(p, "142", p.options.skew,
                      "bytes: each format's arrays, x once, y read and written once");
    const double kernel_ms =
        table.time("coo_thread_per_nonzero", "COO, thread per nonzero", 12.0 * a.nnz() + vectors,
                   [&] { launch_spmv_coo(p.here, d_coo, dx.data(), dy.data()); });
    const double library_ms =
        table.time("cusparse_csr", "cuSPARSE CSR SpMV",
                   8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + vectors, [&] { library->run(); });
    table.ratio("cuSPARSE / COO kernel", library_ms / kernel_ms, "cuSPARSE is faster");
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription("142 (14.2) kernel: COO SpMV, one thread per nonzero, atomicAdd into y",
                           {"make 142_spmv_coo_kernel && build/142_spmv_coo_kernel",
                            "build/142_spmv_coo_kernel --scale 22 --max-memory 8G",
                            "build/142_spmv_coo_kernel --matrix data/1138_bus.mtx"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_memory({60, 100, 900e6}));
    const HostCoo a = spmv_input(p.options);
    const std::vector<float> x = lesson_x(a.num_cols), y0 = lesson_y0(a.num_rows);
    if (printable(a)) show_coo(a, x, y0);
    const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(a);
    show_contention(a, groups);

    SelfCheck check;
    const HostCsr csr = csr_for_lesson(a);
    check_spmv(p, a, csr, groups, x, y0, check);
    compare_coo_with_cusparse(p, a, csr, x, y0, check);
    if (!p.options.book_example())
        check.end_with(
            spmv_result_line(a, coo_spmv(p.here, a, ones(a.num_cols), zeros(a.num_rows))));
    return check.finish();
}
#endif
