// 122, kernel: row-sorted COO to CSR in one coalesced pass over the row ids.
// 120 gives each row boundary a thread and a binary search: log2(nnz) scattered reads per
// thread. Here a thread reads the row ids of four neighbouring entries and of the entry just
// left of them, side by side with the other threads of its warp, so the row array is read once,
// coalesced. Wherever an entry's row differs from its left neighbour's, a row starts at that
// entry: the thread writes the offsets of every row in between (the empty ones included), and
// the thread of the last entry writes the rows after it. Every offset has exactly one writer, so
// no atomics and no scan are needed. Why four entries and not one: a thread with a single
// 4-byte load keeps too few bytes in flight to fill the memory pipe, and on the GPU the four row
// ids arrive in one 16-byte load (int4).
//
// Build and run:  make 122_sorted_coo_to_csr_one_pass_kernel
//                 build/122_sorted_coo_to_csr_one_pass_kernel
//                 build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G
#include <cstdio>
#include <string>
#include <vector>
#include "120_sorted_coo_to_csr_kernel.cu"

constexpr int kEntriesPerThread = 4;

// Entries first .. first + 3, as many of them as exist. On the GPU a full group is one int4 load:
// rows comes from cudaMalloc, so rows + first, a multiple of 16 bytes past it, is aligned for one.
__host__ __device__ inline int load_row_ids(const int* rows, int first, int nnz,
                                            int (&row)[kEntriesPerThread]) {
    const int count = nnz - first < kEntriesPerThread ? nnz - first : kEntriesPerThread;
#ifdef __CUDA_ARCH__
    if (count == kEntriesPerThread) {
        const int4 four = *reinterpret_cast<const int4*>(rows + first);
        row[0] = four.x, row[1] = four.y, row[2] = four.z, row[3] = four.w;
        return count;
    }
#endif
    for (int i = 0; i < count; ++i) row[i] = rows[first + i];
    return count;
}

// Thread t reads entries k = 4t .. 4t + 3. Entry k starts the rows (left, row]: their first entry
// is k, so each of their offsets is k. The last entry also closes the rows after its own: their
// offsets are nnz. With no entries at all, one thread writes every offset, 0.
__host__ __device__ inline void row_change_thread(int t, const int* rows, int nnz, int num_rows,
                                                  int* row_offsets) {
    if (nnz == 0) {
        for (int r = 0; r <= num_rows; ++r) row_offsets[r] = 0;
        return;
    }
    const int first = t * kEntriesPerThread;
    int row[kEntriesPerThread];
    const int count = load_row_ids(rows, first, nnz, row);
    int left = first == 0 ? -1 : rows[first - 1];
    for (int i = 0; i < count; ++i) {
        for (int r = left + 1; r <= row[i]; ++r) row_offsets[r] = first + i;
        left = row[i];
    }
    if (first + count == nnz)
        for (int r = left + 1; r <= num_rows; ++r) row_offsets[r] = nnz;
}

__global__ void row_change_kernel(int num_threads, const int* rows, int nnz, int num_rows,
                                  int* row_offsets) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads) row_change_thread(t, rows, nnz, num_rows, row_offsets);
}

inline int row_change_threads(size_t nnz) {
    return std::max(1, static_cast<int>((nnz + kEntriesPerThread - 1) / kEntriesPerThread));
}

// One thread per four entries (one in all for an empty input), wherever the kernels run.
inline void launch_row_changes(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    here.launch(row_change_threads(coo.nnz()), row_change_kernel, row_change_thread,
                coo.rows.data(), coo.nnz(), coo.num_rows, csr.row_offsets.data());
}

// The whole conversion, after 120's validation: the offsets in one pass, then 120's two copies
// of the columns and values, which are already in CSR order.
inline CooToCsrResult coo_to_csr_one_pass(const Here& here, const HostCoo& coo) {
    return validate_then_convert(here, coo, [&](const DeviceCoo& d, DeviceCsr& csr) {
        launch_row_changes(here, d, csr);
        copy_entry_arrays(here, d, csr);
    });
}

// For a small input: which thread wrote which offsets, read off the row ids as the threads do.
inline void show_writers(const HostCoo& coo) {
    std::printf("%s, one per %d entries: the thread of entry k writes the offsets of the rows "
                "that start at k\n",
                counted(row_change_threads(coo.nnz()), "thread").c_str(), kEntriesPerThread);
    if (!printable(coo)) return;
    for (size_t k = 0; k < coo.nnz(); ++k) {
        const int left = k == 0 ? -1 : coo.rows[k - 1], row = coo.rows[k];
        std::string writes;
        for (int r = left + 1; r <= row; ++r) writes += " row_offsets[" + std::to_string(r) + "]";
        if (k + 1 == coo.nnz())
            for (int r = row + 1; r <= coo.num_rows; ++r)
                writes += " row_offsets[" + std::to_string(r) + "]=nnz";
        const std::string where =
            k == 0 ? "row " + std::to_string(row) + ", the first entry"
                   : "row " + std::to_string(row) + " after row " + std::to_string(left);
        std::printf("  thread %zu, entry %zu (%s):%s\n", k / kEntriesPerThread, k, where.c_str(),
                    writes.empty() ? " nothing (same row as its left neighbour)" : writes.c_str());
    }
}

// The one-pass route against the CPU baseline and 120's search, on any input.
inline void check_one_pass(const KernelProgram& p, const std::string& name, const HostCoo& coo,
                           SelfCheck& check) {
    show_input(name, coo);
    show_writers(coo);
    const CooToCsrResult result = coo_to_csr_one_pass(p.here, coo);
    if (printable(coo)) print_array("row_offsets", result.csr.row_offsets, 11);
    std::printf("\n");
    const HostCsr expected = sorted_coo_to_csr_cpu(coo);
    check.claim(name + ": row_offsets from the " + p.here.name() +
                    " one-pass kernel equal the CPU baseline's exactly",
                result.converted() && result.csr.row_offsets == expected.row_offsets);
    check.claim(name + ": they equal 120's one search per row boundary",
                result.csr.row_offsets == coo_to_csr(p.here, coo).csr.row_offsets);
    check.claim(name + ": col_idx and values are the input's, in order",
                result.csr.col_idx == coo.cols && result.csr.values == coo.values);
    const std::string library_claim = name + ": cusparseXcoo2csr gives the same row_offsets";
    if (p.on_gpu())
        check.claim(library_claim, offsets_by_cusparse(p.here, coo) == result.csr.row_offsets);
    else
        check.skip(library_claim);
}

// Offsets only, both kernels and cuSPARSE: each reads the N row ids and writes R + 1 offsets.
inline void time_offsets(const KernelProgram& p, const HostCoo& coo) {
    const Here& here = p.here;
    const DeviceCoo d(here, coo);
    DeviceCsr csr(here, coo.num_rows, coo.num_cols, coo.nnz());
    CusparseHandle handle;
    DeviceArray<int> library_offsets(here, static_cast<size_t>(coo.num_rows) + 1);
    const double bytes = 4.0 * coo.nnz() + 4.0 * (coo.num_rows + 1.0);
    TimingTable table(p, "122", p.options.skew,
                      "bytes: the N row ids read once and the R + 1 offsets written once");
    const double one_pass_ms = table.time("row_change_scatter", "one pass over the row ids (122)",
                                          bytes, [&] { launch_row_changes(here, d, csr); });
    const double search_ms = table.time("row_boundary_search", "one search per row boundary (120)",
                                        bytes, [&] { launch_row_boundaries(here, d, csr); });
    const double library_ms = table.time("cusparse_coo2csr", "cusparseXcoo2csr", bytes, [&] {
        launch_cusparse_offsets(handle, d.rows.data(), d.nnz(), d.num_rows, library_offsets);
    });
    table.ratio("one pass / cusparseXcoo2csr", one_pass_ms / library_ms, "the one pass is faster");
    table.ratio("one pass / one search per row", one_pass_ms / search_ms, "the one pass is faster");
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "122 kernel: row-sorted COO -> CSR, one coalesced pass over the row ids",
            {"make 122_sorted_coo_to_csr_one_pass_kernel",
             "build/122_sorted_coo_to_csr_one_pass_kernel",
             "build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G"})
            .with_book_input("the card's example and one with empty rows and a duplicate")
            .with_memory({88, 36, 900e6}));
    SelfCheck check;
    if (p.options.book_example()) {
        check_one_pass(p, "the card's example", card_example(), check);
        check_one_pass(p, "empty rows 0, 2, 3, 6 and a duplicate (4, 3)",
                       gaps_and_duplicate_example(), check);
        return check.finish();
    }
    const HostCoo input = chapter_input(p.options);
    check.end_with(result_line(input));
    const HostCoo coo = row_sorted_input(input);
    check_one_pass(
        p,
        p.options.scale > 0 ? "R-MAT scale " + std::to_string(p.options.scale) : p.options.matrix,
        coo, check);
    if (p.on_gpu() && p.options.scale > 0) time_offsets(p, coo);
    return check.finish();
}
#endif
