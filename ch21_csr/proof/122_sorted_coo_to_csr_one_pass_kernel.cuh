// What 122 prints, checks and times around its lesson (122_sorted_coo_to_csr_one_pass_kernel.cu):
// which thread writes which offsets, the claims about them, and 120's search and cuSPARSE timed
// beside the one pass.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/timing_table.cuh"
#include "sorted_coo_proof.cuh"

inline ProgramDescription one_pass_program() {
    return ProgramDescription(
               "122 (21.3) kernel: row-sorted COO -> CSR, one coalesced pass over the row ids",
               {"make 122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G"})
        .with_book_input("the card's example and one with empty rows and a duplicate")
        .with_memory({88, 36, 900e6});
}

// For a small input: which thread wrote which offsets, read off the row ids as the threads do.
inline void show_writers(const HostCoo& coo) {
    std::printf(
        "%s in warps of %d, each thread for up to %d entries in groups of %d: the thread of "
        "entry k writes the offsets of the rows that start at k\n",
        counted(row_change_threads(coo.nnz()), "thread").c_str(), kWarpSize, kEntriesPerThread,
        kEntriesPerGroup);
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
        std::printf("  thread %d, entry %zu (%s):%s\n", thread_of_entry(k), k, where.c_str(),
                    writes.empty() ? " nothing (same row as its left neighbour)" : writes.c_str());
    }
}

// The one-pass route against the CPU baseline, 120's search and cuSPARSE, on any input; then the
// example's own claims.
inline void check_one_pass(const KernelProgram& p, const SortedCooInput& input,
                           const std::vector<int>& row_offsets_cpu, const CooToCsrResult& result,
                           SelfCheck& check) {
    const HostCoo& coo = input.coo;
    if (printable(coo)) print_array("row_offsets", result.csr.row_offsets, 11);
    std::printf("\n");
    check.claim(input.name + ": row_offsets from the " + p.here.name() +
                    " one-pass kernel equal the CPU baseline's exactly",
                result.converted() && result.csr.row_offsets == row_offsets_cpu);
    check.claim(input.name + ": they equal 120's one search per row boundary",
                result.csr.row_offsets == sorted_coo_to_csr(p.here, coo).csr.row_offsets);
    check.claim(input.name + ": col_idx and weights are the input's, in order",
                result.csr.col_idx == coo.cols && result.csr.values == coo.values);
    const std::string library_claim = input.name + ": cusparseXcoo2csr gives the same row_offsets";
    if (p.on_gpu())
        check.claim(library_claim, offsets_by_cusparse(p.here, coo) == result.csr.row_offsets);
    else
        check.skip(library_claim);
    check_example_facts(input, result.csr, check);
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
