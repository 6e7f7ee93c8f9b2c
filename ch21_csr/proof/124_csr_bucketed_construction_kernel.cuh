// What 124 prints, checks and times around its lesson: the layout, each pass's arrays, the
// claims about them, and the payload-sort build that it races.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "build_proof.cuh"

// An input of more rows than this GPU's buckets take is refused before the build (exit 2).
inline void refuse_rows_beyond_caps(const KernelProgram& p, int num_rows) {
    const std::string problem =
        row_limit_problem(bucketed_row_limit(bucket_caps(p.here)), num_rows);
    if (problem.empty()) return;
    const std::string input =
        p.options.matrix.empty() ? "--scale " + std::to_string(p.options.scale) : p.options.matrix;
    fail_bad_input(input + ": " + problem + " on a GPU of " + limits_words(p.here.limits()));
}

inline ProgramDescription bucketed_construction_program() {
    return ProgramDescription(
               "124 (21.2) kernel: CSR from a raw edge list by bucketing, writes gathered on chip",
               {"make 124_csr_bucketed_construction_kernel",
                "build/124_csr_bucketed_construction_kernel",
                "build/124_csr_bucketed_construction_kernel --matrix data/karate.mtx",
                "build/124_csr_bucketed_construction_kernel --scale 22 --max-memory 24G"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_memory({240, 40, 900e6})
        .with_row_limit(bucketed_row_limit().max_rows, bucketed_row_limit().why);
}

// How the graph is cut, and how evenly its edges fill the buckets.
inline void show_layout(const Here& here, const HostCoo& edges, const BucketLayout& layout,
                        const std::vector<int>& bucket_offset) {
    const size_t place_bytes =
        place_chunk_shared_bytes(layout.rows_per_bucket(), layout.chunk_edges);
    print_wrapped(
        "buckets: " + counted(layout.num_buckets, "bucket") + " of " +
        counted(layout.rows_per_bucket(), "row") + "; pass 2 in " +
        counted(layout.levels, "level") + " of up to " + with_separators(1 << layout.level_bits) +
        " buckets each; pass 3 in chunks of at most " + counted(layout.chunk_edges, "edge") + ", " +
        shared_memory_text(place_bytes) + " of shared memory a block, of the " +
        shared_memory_text(here.limits().shared_per_block) + " that the GPU gives");
    size_t largest = 0, in_hubs = 0;
    int hubs = 0;
    for (int b = 0; b < layout.num_buckets; ++b) {
        const size_t n = bucket_offset[b + 1] - bucket_offset[b];
        const bool hub = n > static_cast<size_t>(layout.chunk_edges);
        largest = std::max(largest, n);
        if (hub) hubs += 1, in_hubs += n;
        if (printable(edges))
            std::printf("  bucket %d: rows %d to %d, %s%s\n", b, b << layout.row_shift,
                        std::min((b + 1) << layout.row_shift, edges.num_rows) - 1,
                        counted(n, "edge").c_str(), hub ? " (a hub: split)" : "");
    }
    if (!printable(edges) && layout.num_buckets > 0)
        print_wrapped("  edges per bucket: " + with_separators(edges.nnz() / layout.num_buckets) +
                      " on average, " + with_separators(largest) + " in the largest; " +
                      counted(hubs, "hub bucket") + " (more edges than a chunk) hold " +
                      with_separators(in_hubs) + " edges");
    std::printf("\n");
}

// For a small input: the offsets, the edges after each level of pass 2, and the CSR.
inline void show_bucketed_build(const std::string& title, const BucketedCsr& build,
                                const BucketLayout& layout) {
    if (!printable(build.csr)) return;
    print_wrapped(title);
    print_array("bucket_offset", build.bucket_offset, 15);
    for (int level = 0; level < layout.levels; ++level) {
        std::printf("after level %d of pass 2 (buckets of %s):\n", level,
                    counted(1 << layout.bucket_shift(level), "row").c_str());
        print_array("staged_rows", build.levels[level].rows, 15);
        print_array("staged_cols", build.levels[level].cols, 15);
    }
    print_csr("after pass 3:", build.csr);
}

// After each level of pass 2, each bucket of that level holds the baseline's edges.
inline bool same_level_multisets(const BucketedCsr& built, const BucketedCsr& baseline,
                                 const HostCsr& baseline_csr, const BucketLayout& layout) {
    if (built.levels.size() != static_cast<size_t>(layout.levels) ||
        built.bucket_offset != baseline.bucket_offset)
        return false;
    for (int level = 0; level < layout.levels; ++level)
        if (!staged_by_bucket(
                built.levels[level], layout.bucket_shift(level), layout.buckets_at(level),
                [&](int g) { return layout.level_start(baseline.bucket_offset.data(), level, g); },
                baseline_csr))
            return false;
    return true;
}

// The baseline against the edges stably sorted by row (each pass keeps arrival order), then the
// kernels' offsets, buckets and CSR against the baseline's.
inline void check_bucketed_build(const KernelProgram& p, const HostCoo& edges,
                                 const BucketedCsr& baseline, const BucketedCsr& built,
                                 const BucketLayout& layout, SelfCheck& check) {
    check_baseline_is_stable_sort(
        "the CPU baseline's CSR equals the edges stably sorted by row (115's layout: every row in "
        "arrival order), slot by slot",
        baseline.csr, edges, check);
    const std::string where = "the " + std::string(p.here.name()) + " build's";
    check.claim(where + " bucket_offset (pass 1, then the plan's scan) equals the baseline's",
                built.bucket_offset == baseline.bucket_offset);
    announce_large(edges.nnz(), "comparing every bucket and every row with the baseline's");
    check.claim("after each level of pass 2, every bucket of " + where +
                    " staged edges holds the baseline's multiset of edges",
                same_level_multisets(built, baseline, baseline.csr, layout));
    check_rows_as_baseline(where, built.csr, baseline.csr, check);
    check.claim(where +
                    " counters (pass 1's histogram, the hub rows' fill counts) are back at "
                    "zero, ready for the next build",
                built.counters_cleared);
    if (p.options.book_example())
        check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.csr.row_offsets == kBookRowOffsets);
    std::printf("\n");
}

// row_offsets from the sorted sources by 122's one pass (its lesson comes with 124's).
struct RowChangeOffsets {
    void operator()(const int* sorted_src, int num_edges, DeviceCsr& csr) const {
        const int threads = row_change_threads(num_edges);
        Here::gpu().launch(blocks_for(threads), kThreadsPerBlock, row_change_kernel,
                           row_change_thread, threads, sorted_src, num_edges, csr.num_rows,
                           csr.row_offsets.data());
    }
};

// The strong library route: the sort carries (col, weight), then an unpack and 122's offsets.
using PayloadSortCsrBuild = SortCsrBuild<unsigned long long, RowChangeOffsets>;

// The library builds, checked on a GPU, and at --scale timed beside the bucketed build (its passes
// cumulatively, as each starts from what the last left) and 115's, one route's arrays at a time.
inline void compare_with_library(const KernelProgram& p, const HostCoo& edges,
                                 const BucketLayout& layout, const HostCsr& baseline,
                                 SelfCheck& check) {
    check_sort_build<PayloadSortCsrBuild>(
        p,
        "the payload-sort build (CUB SortPairs with (col, weight) packed, unpack, 122's offsets) "
        "equals the baseline exactly",
        edges, baseline, check);
    check_sort_build<GatherSortCsrBuild>(
        p,
        "the gather-sort build (CUB SortPairs of indices, gather, coo2csr) equals the baseline "
        "exactly",
        edges, baseline, check);
    if (!p.on_gpu() || p.options.scale == 0) return;
#ifdef __CUDACC__
    std::printf("\n");
    const DeviceCoo d(p.here, edges);
    const double e = static_cast<double>(edges.nnz()), row_bytes = 4.0 * edges.num_rows;
    const double least = 20 * e + row_bytes, pass1 = 4 * e, pass2 = 24 * e * layout.levels;
    TimingTable table(p, "124", p.options.skew,
                      "bytes: a whole build's, what it must move at least (20 per edge and 4 per "
                      "row); a pass's, what that pass moves (pass 1: 4 per edge; pass 2: 24 per "
                      "edge and level; pass 3: 24 per edge and 4 per row)");
    double bucketed_ms = 0, payload_ms = 0;
    {
        BucketedBuild build(p.here, edges.num_rows, edges.num_cols, edges.nnz(), layout);
        const double planned = table.time("bucketed_count_plan", "pass 1 and the plan", pass1,
                                          [&] { build.count_buckets(d), build.plan_work(); });
        const double partitioned = table.time(
            "bucketed_through_partition", "passes 1 and 2", pass1 + pass2,
            [&] { build.count_buckets(d), build.plan_work(), build.partition_into_buckets(d); });
        bucketed_ms = table.time("bucketed_build", "bucketed build (passes 1, 2 and 3)", least,
                                 [&] { build.run(d); });
        std::printf("  by difference: pass 2 %.3f ms (%.0f GB/s), pass 3 %.3f ms (%.0f GB/s)\n",
                    partitioned - planned, gb_per_s(pass2, partitioned - planned),
                    bucketed_ms - partitioned,
                    gb_per_s(24 * e + row_bytes, bucketed_ms - partitioned));
    }
    {
        PayloadSortCsrBuild by_payload(edges.num_rows, edges.num_cols, edges.nnz());
        by_payload.run(d);
        table.time("cub_payload_sort", "SortPairs, (col, weight) moved with the key", 24 * e,
                   [&] { by_payload.sort(d); });
        payload_ms = table.time("cub_payload_sort_build",
                                "payload-sort build (pack, SortPairs, unpack, 122)", least,
                                [&] { by_payload.run(d); });
    }
    const double gather_ms = timed_gather_sort_build(table, edges, d, least);
    const double atomic_ms = timed_atomic_build(table, p.here, d, least);
    table.ratio("bucketed / payload-sort build", bucketed_ms / payload_ms,
                "the bucketed build is faster; the target is 0.7");
    table.ratio("bucketed / gather-sort build", bucketed_ms / gather_ms,
                "the bucketed build is faster");
    table.ratio("bucketed / 115's atomic build", bucketed_ms / atomic_ms,
                "the bucketed build is faster");
#endif
}
