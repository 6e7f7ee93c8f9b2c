// What 124 prints, checks and times around its lesson (124_csr_bucketed_construction_kernel.cu):
// the build's arrays and launches, the layout, each pass's arrays, the claims about them, and the
// library builds it races.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "../../common/cub_scratch.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "115_csr_concurrent_construction_kernel.cuh"  // SortBasedCsrBuild
// 122's lesson: the one-pass offsets of sorted rows, which the payload-sort build ends with
#include "../122_sorted_coo_to_csr_one_pass_kernel.cu"

// The most rows that the buckets take, and why a graph of more rows is refused; without caps, the
// largest GPU's, which the program's description gives before it knows where its kernels run.
inline RowLimit bucketed_row_limit(const BucketCaps& caps = BucketCaps{}) {
    const int64_t rows = int64_t{caps.max_buckets} << caps.max_row_shift;
    return {static_cast<uint64_t>(rows),
            "the bucketed build takes at most " + with_separators(rows) + " rows (" +
                with_separators(caps.max_buckets) + " buckets of " +
                with_separators(1 << caps.max_row_shift) + ")"};
}

// What the shared memory of a block where the kernels run allows the layout: the GPU's own, or
// the H200's that the emulator stands for, either lowered by SUITE_GPU_LIMITS.
inline BucketCaps bucket_caps(const Here& here) {
    return bucket_caps(here.limits().shared_per_block);
}

// An input of more rows than a smaller GPU's buckets take is refused before the build (exit 2),
// with that GPU's limit.
inline void refuse_rows_beyond_caps(const KernelProgram& p, int num_rows) {
    const std::string problem = row_limit_problem(bucketed_row_limit(bucket_caps(p.here)), num_rows);
    if (problem.empty()) return;
    const std::string input =
        p.options.matrix.empty() ? "--scale " + std::to_string(p.options.scale) : p.options.matrix;
    fail_bad_input(input + ": " + problem + " on a GPU of " + limits_words(p.here.limits()));
}

// The build's arrays where the kernels run, and its launches, each pass a call of its own so
// that it can be timed alone. The fill counters start at zero and every build leaves them so.
class BucketedBuild {
public:
    BucketedBuild(const Here& here, int num_rows, int num_cols, size_t num_edges,
                  const BucketLayout& layout)
        : here(here),
          layout(layout),
          num_edges(static_cast<int>(num_edges)),
          max_tiles(static_cast<int>((num_edges + kTileEdges - 1) / kTileEdges) +
                    layout.num_buckets + 1),
          max_chunks(static_cast<int>((num_edges + layout.chunk_edges - 1) / layout.chunk_edges) +
                     layout.num_buckets + 1),
          bucket_count(here, layout.num_buckets + 1),
          bucket_offset(here, layout.num_buckets + 1),
          level_cursor(here, std::max(1, layout.levels * layout.num_buckets)),
          tile_start(here, std::max(1, layout.levels) * (layout.num_buckets + 1)),
          chunk_start(here, 2 * (layout.num_buckets + 1)),
          row_fill(here, static_cast<size_t>(num_rows) + 1),
          chunks_counted(here, layout.num_buckets + 1),
          no_offset(here, 1),
          tiles(here, static_cast<size_t>(std::max(1, layout.levels)) * max_tiles),
          chunks(here, max_chunks),
          csr(here, num_rows, num_cols, num_edges) {
        if (!layout_fits(layout, bucket_caps(here))) {
            const std::string rows = row_limit_problem(bucketed_row_limit(bucket_caps(here)),
                                                       num_rows);
            throw std::invalid_argument(rows.empty() ? "pass 2 takes at most two levels" : rows);
        }
        for (DeviceArray<int>* zeroed : {&bucket_count, &row_fill, &chunks_counted, &no_offset})
            zeroed->fill_bytes(0);
        for (int level = 0; level < layout.levels; ++level) {
            staged_rows[level] = DeviceArray<int>(here, num_edges);
            staged_cols[level] = DeviceArray<int>(here, num_edges);
            staged_weights[level] = DeviceArray<float>(here, num_edges);
        }
    }

    void count(const DeviceCoo& edges) {
        const BlockGrid grid{0, 1024, count_buckets_shared_bytes(layout.num_buckets)};
        const unsigned wanted = static_cast<unsigned>((num_edges + 1024 * kCountItems - 1) /
                                                      (1024 * kCountItems));
        const BlockGrid resident =
            resident_grid(here, count_buckets_kernel, grid.threads, grid.shared_bytes);
        here.launch_blocks({std::min(wanted, resident.blocks), grid.threads, grid.shared_bytes},
                           count_buckets_kernel, count_buckets_block<EmulatedCuda>, num_edges,
                           edges.rows.data(), layout.row_shift, layout.num_buckets,
                           bucket_count.data());
    }

    void plan() {
        const int F = layout.num_buckets;
        here.launch_blocks({1, 256, plan_build_shared_bytes()},
                           plan_build_kernel, plan_build_block<EmulatedCuda>, layout,
                           csr.num_rows, num_edges, bucket_count.data(), bucket_offset.data(),
                           level_cursor.data(), tile_start.data(), chunk_start.data(),
                           csr.row_offsets.data());
        for (int level = 0; level < layout.levels; ++level)
            here.launch(blocks_for(max_tiles), kThreadsPerBlock, describe_items_kernel,
                        describe_items_thread, max_tiles, layout, level - 1, kTileEdges,
                        tile_start.data() + level * (F + 1), bucket_offset.data(), no_offset.data(),
                        tiles.data() + level * max_tiles);
        // The hub buckets' chunks first, then one per other bucket, after them.
        here.launch(blocks_for(max_chunks), kThreadsPerBlock, describe_items_kernel,
                    describe_items_thread, max_chunks, layout, layout.levels - 1,
                    layout.chunk_edges, chunk_start.data(), bucket_offset.data(), no_offset.data(),
                    chunks.data());
        here.launch(blocks_for(F), kThreadsPerBlock, describe_items_kernel, describe_items_thread,
                    F, layout, layout.levels - 1, layout.chunk_edges, chunk_start.data() + F + 1,
                    bucket_offset.data(), chunk_start.data() + F, chunks.data());
    }

    void partition(const DeviceCoo& edges) {
        const BlockGrid block{0, kPartitionThreads,
                              partition_level_shared_bytes(layout.level_bits)};
        const BlockGrid resident =
            resident_grid(here, partition_level_kernel, block.threads, block.shared_bytes);
        for (int level = 0; level < layout.levels && num_edges > 0; ++level) {
            const bool first = level == 0;
            here.launch_blocks(
                resident, partition_level_kernel,
                partition_level_block<EmulatedCuda>, layout, level,
                tile_start.data() + level * (layout.num_buckets + 1),
                tiles.data() + level * max_tiles, level_cursor.data() + level * layout.num_buckets,
                first ? edges.rows.data() : staged_rows[level - 1].data(),
                first ? edges.cols.data() : staged_cols[level - 1].data(),
                first ? edges.values.data() : staged_weights[level - 1].data(),
                staged_rows[level].data(), staged_cols[level].data(), staged_weights[level].data());
        }
    }

    void place(const DeviceCoo& edges) {
        // The edges as pass 2's last level left them, or as given where there is one bucket.
        const int last = layout.levels - 1;
        const int* rows = last < 0 ? edges.rows.data() : staged_rows[last].data();
        const int* cols = last < 0 ? edges.cols.data() : staged_cols[last].data();
        const float* weights = last < 0 ? edges.values.data() : staged_weights[last].data();
        const int rows_per_bucket = layout.rows_per_bucket();
        const size_t hubs = count_hub_rows_shared_bytes(rows_per_bucket);
        here.launch_blocks(resident_grid(here, count_hub_rows_kernel, kPlaceThreads, hubs),
                           count_hub_rows_kernel, count_hub_rows_block<EmulatedCuda>, layout,
                           csr.num_rows, chunk_start.data(), chunks.data(), rows,
                           bucket_offset.data(), row_fill.data(), chunks_counted.data(),
                           csr.row_offsets.data());
        const size_t chunk = place_chunk_shared_bytes(rows_per_bucket, layout.chunk_edges);
        here.launch_blocks(resident_grid(here, place_chunk_kernel, kPlaceThreads, chunk),
                           place_chunk_kernel, place_chunk_block<EmulatedCuda>, layout,
                           csr.num_rows, chunk_start.data(), chunks.data(), rows, cols, weights,
                           row_fill.data(), csr.row_offsets.data(), csr.col_idx.data(),
                           csr.values.data());
    }

    void run(const DeviceCoo& edges) {
        count(edges);
        plan();
        partition(edges);
        place(edges);
    }

    const Here here;
    BucketLayout layout;
    int num_edges, max_tiles, max_chunks;
    DeviceArray<int> bucket_count, bucket_offset, level_cursor, tile_start, chunk_start, row_fill,
        chunks_counted, no_offset;
    DeviceArray<WorkItem> tiles, chunks;
    DeviceArray<int> staged_rows[kMaxLevels], staged_cols[kMaxLevels];
    DeviceArray<float> staged_weights[kMaxLevels];
    DeviceCsr csr;
};

// The kernels' build, wherever they run: the offsets, each level's edges and the CSR brought back.
inline BucketedCsr build_csr_bucketed(const Here& here, const HostCoo& edges,
                                      const BucketLayout& layout) {
    const DeviceCoo d(here, edges);
    BucketedBuild build(here, edges.num_rows, edges.num_cols, edges.nnz(), layout);
    build.run(d);
    BucketedCsr b{build.bucket_offset.download(), {}, build.csr.download(), true};
    for (const DeviceArray<int>* kept : {&build.bucket_count, &build.row_fill, &build.chunks_counted})
        for (int count : kept->download()) b.counters_cleared &= count == 0;
    for (int level = 0; level < layout.levels; ++level)
        b.levels.push_back(coo_of(edges.num_rows, edges.num_cols,
                                  build.staged_rows[level].download(),
                                  build.staged_cols[level].download(),
                                  build.staged_weights[level].download()));
    return b;
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
    const size_t place_bytes = place_chunk_shared_bytes(layout.rows_per_bucket(), layout.chunk_edges);
    print_wrapped("buckets: " + counted(layout.num_buckets, "bucket") + " of " +
                  counted(layout.rows_per_bucket(), "row") + "; pass 2 in " +
                  counted(layout.levels, "level") + " of up to " +
                  with_separators(1 << layout.level_bits) +
                  " buckets each; pass 3 in chunks of at most " +
                  counted(layout.chunk_edges, "edge") + ", " +
                  shared_memory_text(place_bytes) + " of shared memory a block, of the " +
                  shared_memory_text(here.limits().shared_per_block) + " that the GPU gives");
    size_t largest = 0, in_hubs = 0;
    int hubs = 0;
    for (int b = 0; b < layout.num_buckets; ++b) {
        const size_t n = bucket_offset[b + 1] - bucket_offset[b];
        largest = std::max(largest, n);
        if (n > static_cast<size_t>(layout.chunk_edges)) hubs += 1, in_hubs += n;
        if (printable(edges))
            std::printf("  bucket %d: rows %d to %d, %s%s\n", b, b << layout.row_shift,
                        std::min((b + 1) << layout.row_shift, edges.num_rows) - 1,
                        counted(n, "edge").c_str(),
                        n > static_cast<size_t>(layout.chunk_edges) ? " (a hub: split)" : "");
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
        const std::vector<int>& staged_rows = build.levels[level].rows;
        const std::vector<int>& staged_cols = build.levels[level].cols;
        std::printf("after level %d of pass 2 (buckets of %s):\n", level,
                    counted(1 << layout.bucket_shift(level), "row").c_str());
        print_array("staged_rows", staged_rows, 15);
        print_array("staged_cols", staged_cols, 15);
    }
    print_csr("after pass 3:", build.csr);
}

// After every level of pass 2, each bucket of that level holds the baseline's edges: every
// edge lies in the rows of the bucket whose slots it is in, and the level, grouped by row, holds
// the baseline's CSR's multiset in every row (its rows in any order within). Linear in the
// edges, on every core.
inline bool same_level_multisets(const BucketedCsr& built, const BucketedCsr& baseline,
                                 const HostCsr& baseline_csr, const BucketLayout& layout) {
    if (built.levels.size() != static_cast<size_t>(layout.levels) ||
        built.bucket_offset != baseline.bucket_offset)
        return false;
    for (int level = 0; level < layout.levels; ++level) {
        const HostCoo& staged = built.levels[level];
        if (staged.nnz() != baseline_csr.nnz()) return false;
        const int shift = layout.bucket_shift(level);
        long long misplaced = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : misplaced)
        for (int g = 0; g < layout.buckets_at(level); ++g)
            for (int k = layout.level_start(baseline.bucket_offset.data(), level, g);
                 k < layout.level_start(baseline.bucket_offset.data(), level, g + 1); ++k)
                misplaced += staged.rows[k] < 0 || staged.rows[k] >= staged.num_rows ||
                             staged.rows[k] >> shift != g;
        if (misplaced > 0 || !holds_rows_of(staged, baseline_csr)) return false;
    }
    return true;
}

// The baseline against the edges stably sorted by row (each pass keeps arrival order, so they
// agree slot by slot, as 115's sequential build does, one edge at a time; the sort shares the
// edges among the cores), then the kernels' offsets, buckets and CSR against the baseline's.
inline void check_bucketed_build(const KernelProgram& p, const HostCoo& edges,
                                 const BucketedCsr& baseline, const BucketedCsr& built,
                                 const BucketLayout& layout, SelfCheck& check) {
    check.claim(
        "the CPU baseline's CSR equals the edges stably sorted by row (115's layout: every row in "
        "arrival order), slot by slot",
        same_slots(baseline.csr, csr_from_coo_by_stable_sort(edges)));
    const std::string where = "the " + std::string(p.here.name()) + " build's";
    check.claim(where + " bucket_offset (pass 1, then the plan's scan) equals the baseline's",
                built.bucket_offset == baseline.bucket_offset);
    announce_large(edges.nnz(), "comparing every bucket and every row with the baseline's");
    check.claim("after each level of pass 2, every bucket of " + where +
                    " staged edges holds the baseline's multiset of edges",
                same_level_multisets(built, baseline, baseline.csr, layout));
    check.claim(where + " row_offsets equal the baseline's",
                built.csr.row_offsets == baseline.csr.row_offsets);
    check.claim("every row of " + where + " CSR holds the baseline's multiset of (neighbour, weight)",
                built.csr.row_offsets == baseline.csr.row_offsets && is_well_formed(built.csr) &&
                    rows_hold_same_entries(baseline.csr.row_offsets, built.csr, baseline.csr));
    check.claim(where + " counters (pass 1's histogram, the hub rows' fill counts) are back at "
                        "zero, ready for the next build",
                built.counters_cleared);
    if (p.options.book_example())
        check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.csr.row_offsets == kBookRowOffsets);
    std::printf("\n");
}

// The strong library route's own small steps: pack each edge's destination and weight into one
// 64-bit value that the sort carries with the key, and unpack each sorted slot.
__host__ __device__ inline void pack_payload_thread(int e, const int* cols, const float* weights,
                                                    unsigned long long* payload) {
    unsigned weight_bits;
    memcpy(&weight_bits, &weights[e], sizeof weight_bits);
    payload[e] = static_cast<unsigned long long>(static_cast<unsigned>(cols[e])) << 32 | weight_bits;
}

__global__ void pack_payload_kernel(int num_edges, const int* cols, const float* weights,
                                    unsigned long long* payload) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) pack_payload_thread(e, cols, weights, payload);
}

__host__ __device__ inline void unpack_payload_thread(int slot, const unsigned long long* payload,
                                                      int* col_idx, float* values) {
    const unsigned weight_bits = static_cast<unsigned>(payload[slot]);
    col_idx[slot] = static_cast<int>(payload[slot] >> 32);
    memcpy(&values[slot], &weight_bits, sizeof weight_bits);
}

__global__ void unpack_payload_kernel(int num_edges, const unsigned long long* payload,
                                      int* col_idx, float* values) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot < num_edges) unpack_payload_thread(slot, payload, col_idx, values);
}

// The strong library route, on a GPU only: cub::DeviceRadixSort::SortPairs keyed on the source,
// the destination and weight moving with the key in one 64-bit value, so that no gather follows
// the sort; then an unpack, and 122's one pass over the sorted sources for row_offsets. The sort
// is stable, so each row keeps arrival order and the CSR equals the baseline's exactly. It is
// the fair comparison: the fastest way a library user groups edges, every pass coalesced.
struct PayloadSortCsrBuild {
    auto sort_call(const int* src) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(scratch, bytes, src, sorted_src.data(),
                                                   payload.data(), sorted_payload.data(),
                                                   static_cast<int>(payload.size()), 0, key_bits);
        };
    }

    PayloadSortCsrBuild(int num_rows, int num_cols, size_t num_edges)
        : payload(gpu, num_edges),
          sorted_payload(gpu, num_edges),
          sorted_src(gpu, num_edges),
          csr(gpu, num_rows, num_cols, num_edges) {
        key_bits = bits_for(num_rows);
        sort_scratch = CubScratch(sort_call(nullptr));
    }

    void sort(const DeviceCoo& edges) { sort_scratch.run(sort_call(edges.rows.data())); }

    void run(const DeviceCoo& edges) {
        const int n = edges.nnz();
        gpu.launch(blocks_for(n), kThreadsPerBlock, pack_payload_kernel, pack_payload_thread, n,
                   edges.cols.data(), edges.values.data(), payload.data());
        if (n > 0) sort(edges);
        gpu.launch(blocks_for(n), kThreadsPerBlock, unpack_payload_kernel, unpack_payload_thread, n,
                   sorted_payload.data(), csr.col_idx.data(), csr.values.data());
        gpu.launch(blocks_for(row_change_threads(n)), kThreadsPerBlock, row_change_kernel,
                   row_change_thread, row_change_threads(n), sorted_src.data(), n, csr.num_rows,
                   csr.row_offsets.data());
    }

    const Here gpu = Here::gpu();
    int key_bits = 1;
    DeviceArray<unsigned long long> payload, sorted_payload;
    DeviceArray<int> sorted_src;
    DeviceCsr csr;
    CubScratch sort_scratch;
};

// The bytes that a whole build must move at the least, 20 per edge (read src, dst and weight;
// write col_idx and weights) and 4 per row (row_offsets), and what each of the bucketed build's
// passes moves: pass 1 reads 4 per edge, each level of pass 2 reads 12 and writes 12, pass 3
// reads 16 (the rows twice) and writes 8 and the offsets.
struct BuildBytes {
    double least, pass1, pass2, pass3;
};

inline BuildBytes build_bytes(const HostCoo& edges, const BucketLayout& layout) {
    const double e = static_cast<double>(edges.nnz()), r = 4.0 * edges.num_rows;
    return {20 * e + r, 4 * e, 24 * e * layout.levels, 24 * e + r};
}

// At --scale on a GPU: the bucketed build, passes 1 to 3 timed cumulatively (a pass alone
// would start from counters that the previous one left), then the library builds and 115's, one
// at a time so that only one route's arrays are held at once.
inline void time_builds(const KernelProgram& p, const HostCoo& edges, const BucketLayout& layout) {
    const DeviceCoo d(p.here, edges);
    const BuildBytes bytes = build_bytes(edges, layout);
    TimingTable table(p, "124", p.options.skew,
                      "bytes: a whole build's, what it must move at least (20 per edge and 4 per "
                      "row); a pass's, what that pass moves (pass 1: 4 per edge; pass 2: 24 per "
                      "edge and level; pass 3: 24 per edge and 4 per row)");
    double bucketed_ms = 0, payload_ms = 0, gather_ms = 0, atomic_ms = 0;
    {
        BucketedBuild build(p.here, edges.num_rows, edges.num_cols, edges.nnz(), layout);
        const double planned = table.time("bucketed_count_plan", "pass 1 and the plan", bytes.pass1,
                                          [&] { build.count(d), build.plan(); });
        const double partitioned =
            table.time("bucketed_through_partition", "passes 1 and 2", bytes.pass1 + bytes.pass2,
                       [&] { build.count(d), build.plan(), build.partition(d); });
        bucketed_ms = table.time("bucketed_build", "bucketed build (passes 1, 2 and 3)",
                                 bytes.least, [&] { build.run(d); });
        std::printf("  by difference: pass 2 %.3f ms (%.0f GB/s), pass 3 %.3f ms (%.0f GB/s)\n",
                    partitioned - planned, gb_per_s(bytes.pass2, partitioned - planned),
                    bucketed_ms - partitioned, gb_per_s(bytes.pass3, bucketed_ms - partitioned));
    }
    {
        PayloadSortCsrBuild by_payload(edges.num_rows, edges.num_cols, edges.nnz());
        by_payload.run(d);
        table.time("cub_payload_sort", "SortPairs, (col, weight) moved with the key",
                   24.0 * edges.nnz(), [&] { by_payload.sort(d); });
        payload_ms = table.time("cub_payload_sort_build",
                                "payload-sort build (pack, SortPairs, unpack, 122)", bytes.least,
                                [&] { by_payload.run(d); });
    }
    {
        SortBasedCsrBuild by_gather(edges.num_rows, edges.num_cols, edges.nnz());
        gather_ms = table.time("cub_sort_build", "gather-sort build (115's: sort, gather, coo2csr)",
                               bytes.least, [&] { by_gather.run(d); });
    }
    {
        DeviceGrouping grouping(p.here, edges.num_rows, edges.num_cols, edges.nnz());
        atomic_ms = table.time("count_scan_scatter", "count + scan + scatter (115)", bytes.least,
                               [&] { grouping.build(p.here, p.here, d.rows, d.cols, d.values); });
    }
    table.ratio("bucketed / payload-sort build", bucketed_ms / payload_ms,
                "the bucketed build is faster; the target is 0.7");
    table.ratio("bucketed / gather-sort build", bucketed_ms / gather_ms,
                "the bucketed build is faster");
    table.ratio("bucketed / 115's atomic build", bucketed_ms / atomic_ms,
                "the bucketed build is faster");
}

// The library builds, checked on any input on a GPU, and timed at --scale.
inline void compare_with_library_builds(const KernelProgram& p, const HostCoo& edges,
                                        const BucketLayout& layout, const HostCsr& baseline,
                                        SelfCheck& check) {
    const std::string payload_claim =
        "the payload-sort build (CUB SortPairs with (col, weight) packed, unpack, 122's offsets) "
        "equals the baseline exactly";
    const std::string gather_claim =
        "the gather-sort build (CUB SortPairs of indices, gather, coo2csr) equals the baseline "
        "exactly";
    if (!p.on_gpu()) {
        check.skip(payload_claim);
        return check.skip(gather_claim);
    }
    {
        const DeviceCoo d(p.here, edges);
        PayloadSortCsrBuild by_payload(edges.num_rows, edges.num_cols, edges.nnz());
        by_payload.run(d);
        check.claim(payload_claim, same_slots(by_payload.csr.download(), baseline));
        SortBasedCsrBuild by_gather(edges.num_rows, edges.num_cols, edges.nnz());
        by_gather.run(d);
        check.claim(gather_claim, same_slots(by_gather.csr.download(), baseline));
    }
    if (p.options.scale == 0) return;
    std::printf("\n");
    time_builds(p, edges, layout);
}
