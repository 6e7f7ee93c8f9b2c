// What 123 prints, checks and times around its lesson: the bins, the staged edges and the CSR,
// the claims about both, and the builds it races.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "build_proof.cuh"

inline ProgramDescription binned_construction_program() {
    return ProgramDescription(
               "123 (21.2) kernel: CSR from a raw edge list, binned, atomics in shared memory",
               {"make 123_csr_binned_construction_kernel",
                "build/123_csr_binned_construction_kernel",
                "build/123_csr_binned_construction_kernel --scale 22 --max-memory 24G"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_memory({300, 40, 900e6})
        .with_row_limit(kMaxBinnedRows, bin_limit_text());
}

// Each bin's rows and slice of the CSR, or for a large input how evenly the edges fill the bins.
inline void show_bins(const HostCoo& edges, const HostCsr& csr, const BinLayout& layout) {
    std::printf("bins: %s, each of %s consecutive rows\n", with_separators(layout.num_bins).c_str(),
                with_separators(layout.rows_per_bin()).c_str());
    size_t largest = 0;
    for (int b = 0; b < layout.num_bins; ++b) {
        const int first = b << layout.bin_shift;
        const int end = std::min(first + layout.rows_per_bin(), edges.num_rows);
        largest = std::max<size_t>(largest, csr.row_offsets[end] - csr.row_offsets[first]);
        if (printable(edges))
            std::printf("  bin %d: rows %d to %d, CSR slots [%d, %d)\n", b, first, end - 1,
                        csr.row_offsets[first], csr.row_offsets[end]);
    }
    const double mean = layout.num_bins > 0 ? double(edges.nnz()) / layout.num_bins : 0;
    if (!printable(edges))
        std::printf("  edges per bin: %.0f on average, %s in the largest (%.1f x the average)\n",
                    mean, with_separators(largest).c_str(), mean > 0 ? largest / mean : 0.0);
    std::printf("\n");
}

// For a small input: the edges staged by bin after 3a, then the CSR after 3b.
inline void show_binned_build(const std::string& title, const BinnedCsr& build) {
    if (!printable(build.csr)) return;
    print_wrapped(title);
    print_array("binned_rows", build.binned.rows, 11);
    print_array("binned_cols", build.binned.cols, 11);
    print_csr("", build.csr);
}

// Each bin's slice of the staged edges holds the same multiset of entries in `a` as in `b`.
inline bool same_bin_multisets(const HostCoo& a, const HostCoo& b, const BinLayout& layout,
                               const std::vector<int>& row_offsets) {
    const auto first_slot = [&](int bin) {
        return row_offsets[std::min(int64_t{bin} << layout.bin_shift, int64_t{a.num_rows})];
    };
    return staged_by_bucket(a, layout.bin_shift, layout.num_bins, first_slot,
                            csr_from_coo_by_stable_sort(b));
}

// The baseline against 115's slot by slot (both keep arrival order), then the kernels' bins
// after 3a and their CSR after 3b against the baseline's, as multisets.
inline void check_binned_build(const KernelProgram& p, const HostCoo& edges,
                               const BinLayout& layout, const BinnedCsr& baseline,
                               const BinnedCsr& built, SelfCheck& check) {
    const HostCsr sequential = build_csr_cpu(edges).grouped;
    check.claim(
        "the CPU baseline's CSR equals 115's sequential count, scan and scatter, slot by slot",
        same_slots(baseline.csr, sequential));
    const std::string where = p.here.name();
    announce_large(edges.nnz(), "comparing every bin and every row with the baseline's");
    check.claim(
        "after 3a, every bin of the " + where +
            " binned build holds the baseline's multiset of edges",
        same_bin_multisets(built.binned, baseline.binned, layout, baseline.csr.row_offsets));
    check_rows_as_baseline("the " + where + " binned build's", built.csr, baseline.csr, check);
}

// At --scale on a GPU: the binned build and its steps, beside 115's and the gather-sort build.
inline void compare_with_library(const KernelProgram& p, const HostCoo& edges) {
    if (!p.on_gpu() || p.options.scale == 0) return;
    const DeviceCoo d(p.here, edges);
    BinnedBuild binned(p.here, edges.num_rows, edges.num_cols, edges.nnz());
    const GroupingBytes bytes = grouping_bytes(edges.num_rows, edges.nnz());
    TimingTable table(p, "123", p.options.skew,
                      "bytes: what a build must move at least, 24 per edge and 20 per vertex "
                      "(the staging of 3a, 24 more per edge, is not counted)");
    binned.run(d);
    table.time("binned_partition", "3a partition into bins", 24.0 * edges.nnz(),
               [&] { binned.partition(d); });
    table.time("binned_place", "3b place within bins", 20.0 * edges.nnz(), [&] { binned.place(); });
    const double binned_ms = table.time("binned_build", "binned build (1, 2, 3a, 3b)",
                                        bytes.total(), [&] { binned.run(d); });
    const double atomic_ms = timed_atomic_build(table, p.here, d, bytes.total());
#ifdef __CUDACC__
    const double sort_ms = timed_gather_sort_build(table, edges, d, bytes.total());
    table.ratio("binned / sort-based build", binned_ms / sort_ms, "the binned build is faster");
#endif
    table.ratio("binned / 115's atomic build", binned_ms / atomic_ms, "the binned build is faster");
}
