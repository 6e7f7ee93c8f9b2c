// What 142 prints, checks and times around its lesson (142_spmv_coo_kernel.cu): which threads
// add into which y entry, the claim about them, and cuSPARSE's SpMV beside the kernel.
#pragma once
#include <numeric>
#include "spmv_proof.cuh"

inline ProgramDescription spmv_coo_program() {
    return spmv_kernel_program(
        "142 (14.2) kernel: COO SpMV, one thread per nonzero, atomicAdd into y",
        {"make 142_spmv_coo_kernel && build/142_spmv_coo_kernel",
         "build/142_spmv_coo_kernel --scale 22 --max-memory 8G",
         "build/142_spmv_coo_kernel --matrix data/1138_bus.mtx"},
        {60, 100, 900e6});
}

// Which threads add into each y entry: thread k adds into y[rows[k]], so entry r's group is
// every k with rows[k] == r. A group of two or more is a set of atomics on one address.
inline std::vector<std::vector<int>> coo_threads_per_y_entry(const HostCoo& a) {
    std::vector<std::vector<int>> groups(a.num_rows);
    for (size_t k = 0; k < a.nnz(); ++k) groups[a.rows[k]].push_back(static_cast<int>(k));
    return groups;
}

inline void show_contention(const HostCoo& a, const std::vector<std::vector<int>>& groups,
                            unsigned blocks, unsigned threads) {
    print_wrapped(counted(a.nnz(), "thread") + ", one per nonzero (" + counted(blocks, "block") +
                  " of " + std::to_string(threads) +
                  "): thread k adds values[k] * x[cols[k]] into y[rows[k]].");
    if (printable(a)) std::printf("threads that add into the same y entry (read off rows):\n");
    size_t contended = 0, busiest = 0;
    for (size_t r = 0; r < groups.size(); ++r) {
        contended += groups[r].size() > 1;
        if (groups[r].size() > groups[busiest].size()) busiest = r;
        if (!printable(a)) continue;
        std::string members = groups[r].empty() ? " (no thread)" : "";
        for (int k : groups[r]) members += " t" + std::to_string(k);
        const std::string verdict =
            groups[r].size() > 1
                ? counted(groups[r].size(), "thread") + ", one address: the adds must be atomic"
            : groups[r].empty() ? "keeps y0"
                                : "alone: no contention";
        std::printf("  y[%zu] <-%-14s %s\n", r, members.c_str(), verdict.c_str());
    }
    if (!groups.empty())
        print_wrapped(
            counted(a.nnz(), "atomic") + " onto " + counted(a.num_rows, "y entry", "y entries") +
            "; " + with_separators(contended) + " take two or more, the busiest (y[" +
            std::to_string(busiest) + "]) takes " + with_separators(groups[busiest].size()) + ".");
    std::printf("\n");
}

// The groups against a CSR's row slices, an independent route to the same partition of the
// threads; on Fig. 14.1, against the notes' slices.
inline void check_groups(const KernelProgram& p, const HostCsr& csr,
                         const std::vector<std::vector<int>>& groups, SelfCheck& check) {
    bool groups_are_rows = groups.size() == static_cast<size_t>(csr.num_rows);
    for (int r = 0; groups_are_rows && r < csr.num_rows; ++r)
        groups_are_rows =
            groups[r].size() == static_cast<size_t>(csr.row_offsets[r + 1] - csr.row_offsets[r]);
    check.claim("each y entry's group of threads is as large as its row's slice of a CSR",
                groups_are_rows);
    if (!p.options.book_example()) return;
    bool book_groups = true;
    for (int r = 0; r < csr.num_rows; ++r) {
        std::vector<int> slice(kFigRowOffsets[r + 1] - kFigRowOffsets[r]);
        std::iota(slice.begin(), slice.end(), kFigRowOffsets[r]);
        book_groups = book_groups && groups[r] == slice;
    }
    check.claim(
        "the groups are row_offsets' slices: y[0] <- t0 t1, y[1] <- t2 t3 t4, "
        "y[2] <- t5 t6, y[3] <- t7",
        book_groups);
}

// cuSPARSE checked, and at --scale the COO kernel timed beside it. COO moves rows, cols and
// values (12 bytes a nonzero), the CSR it is set beside col_idx, values and row_offsets.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 SelfCheck& check) {
    const double coo_bytes =
        12.0 * in.coo.nnz() + spmv_vector_bytes(in.coo.num_rows, in.coo.num_cols);
    compare_with_library(p, in, "142",
                         "bytes: each format's arrays, x once, y read and written once",
                         {timed_spmv(p.here, "coo_thread_per_nonzero", "COO, thread per nonzero",
                                     launch_spmv_coo, &in.coo, coo_bytes)},
                         {kCusparseDefault}, check, [](TimingTable& table, SpmvTimes& ms) {
                             print_ratio(table, ms, "cuSPARSE / COO kernel", "cusparse_csr",
                                         "coo_thread_per_nonzero", "cuSPARSE is faster");
                         });
}
