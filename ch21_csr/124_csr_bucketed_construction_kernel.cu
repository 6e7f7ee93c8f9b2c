// 124 (21.2) kernel: CSR from a raw edge list by bucketing, each pass's writes gathered on chip.
// The rows are cut into buckets of 2^k consecutive rows, each small enough for one block. Pass 1
// counts each bucket's edges (a histogram in shared memory) and a plan scans the counts. Pass 2
// moves the edges into their buckets, in as few levels of up to 256 buckets as it can, each tile
// reordered in shared memory so that every bucket's run leaves as one coalesced write. Pass 3
// gives a bucket to a block: it counts its rows in shared memory, scans them into row_offsets,
// places the edges in shared memory and writes the slice out whole; a hub bucket is cut into
// chunks for several blocks. Rows are multisets, in whatever order the atomics made. Bytes per
// edge: pass 1 reads 4, a level of pass 2 moves 24, pass 3 moves 20. At 4.2 TB/s and scale 22
// (67 million edges): 0.32 ms for one ideal pass (20), 0.8 ms for one level (48), 1.15 ms for the
// two levels that scale 22 takes (72), since a bucket's edges must fit one block's shared memory.
//
// Build and run:  make 124_csr_bucketed_construction_kernel
//   build/124_csr_bucketed_construction_kernel
//   build/124_csr_bucketed_construction_kernel --matrix data/karate.mtx
//   build/124_csr_bucketed_construction_kernel --scale 22 --max-memory 24G
#ifndef CSR_BUCKETED_CONSTRUCTION_124
#define CSR_BUCKETED_CONSTRUCTION_124
#include <algorithm>
#include <string>
#include <vector>
#include "../common/binary_search.h"
// 114's lesson: scan_degrees, the CPU's scan of counts into offsets
#include "114_csr_construction_cpu_baseline.cpp"
// 115's lesson: the atomic build that this one is timed against
#include "115_csr_concurrent_construction_kernel.cu"
// 122's lesson: the one pass over sorted rows that the payload-sort library build ends with
#include "122_sorted_coo_to_csr_one_pass_kernel.cu"
// claim_for_peers (pass 2's warp-aggregated claim) and block_exclusive_prefix (the block scans)
#include "warp_cooperation.cuh"

// The largest of each, which a GPU of 227 KB of shared memory a block (an H200) takes; a smaller
// GPU takes less of pass 1's and pass 3's (bucket_caps, below).
constexpr int kMaxRowShift = 14;       // 16,384 rows: pass 3's counters, 8 bytes a row, 128 KB
constexpr int kMaxLevelBits = 8;       // 256 buckets per level: runs of 12 edges from a tile
constexpr int kMaxBuckets = 1 << 14;   // pass 1's histogram is 64 KB
constexpr int kMaxLevels = 2;          // pass 2's staging holds two levels' edges
constexpr int kTileEdges = 256 * 12;   // pass 2: 256 threads, 12 edges each, held in registers
constexpr int kChunkEdges = 8192;      // pass 3: 96 KB of staged edges, two blocks per SM
constexpr int kMinChunkEdges = 256;

// How the build cuts the graph. A row's bucket is row >> row_shift; pass 2's level l (0 first)
// sorts on the bucket's top bits, row >> bucket_shift(l), 2^level_bits buckets under each bucket
// of the level above. Offsets are kept per bucket of the last level; a bucket of level l starts
// where its first last-level bucket starts. Level -1 is the whole graph.
struct BucketLayout {
    int row_shift = 0, level_bits = 0, levels = 0, num_buckets = 0, chunk_edges = 1;

    __host__ __device__ int rows_per_bucket() const { return 1 << row_shift; }
    __host__ __device__ int fine_shift(int level) const {
        return level_bits * (levels - 1 - level);
    }
    __host__ __device__ int bucket_shift(int level) const { return row_shift + fine_shift(level); }
    __host__ __device__ int buckets_at(int level) const {
        return (num_buckets + (1 << fine_shift(level)) - 1) >> fine_shift(level);
    }
    __host__ __device__ int level_start(const int* bucket_offset, int level, int bucket) const {
        const int64_t first = int64_t{bucket} << fine_shift(level);
        return bucket_offset[first < num_buckets ? first : num_buckets];
    }
};

// Each pass's shared memory a block, array by array in the order that its body asks for them.
inline size_t count_buckets_shared_bytes(int num_buckets) {
    return SharedBytes().add<int>(num_buckets).total();
}
inline size_t plan_build_shared_bytes() { return SharedBytes().add<int>(kWarpSize + 1).total(); }
inline size_t partition_level_shared_bytes(int level_bits) {
    return SharedBytes().add<int>(1 << level_bits).add<int>(1 << level_bits)
        .add<int>(kWarpSize + 1).add<int>(kTileEdges).add<int>(kTileEdges).add<float>(kTileEdges)
        .total();
}
inline size_t count_hub_rows_shared_bytes(int rows_per_bucket) {
    return SharedBytes().add<int>(rows_per_bucket + 1).add<int>(kWarpSize + 1).add<int>(1).total();
}
inline size_t place_chunk_shared_bytes(int rows_per_bucket, int chunk_edges) {
    return SharedBytes().add<int>(rows_per_bucket + 1).add<int>(rows_per_bucket)
        .add<int>(kWarpSize + 1).add<unsigned short>(chunk_edges)
        .add<unsigned short>(chunk_edges).add<int>(chunk_edges).add<float>(chunk_edges).total();
}

// What the GPU's shared memory a block allows the layout: pass 1's histogram holds a counter a
// bucket, and pass 3's block a chunk's edges (12 bytes each) beside its bucket's row counters (8
// bytes a row). The chunk takes at most half of the block, so that a bucket of thousands of rows
// fits beside it. 227 KB (an H200) takes the largest of each; 99 KB (an RTX of the 30 and 40
// series) chunks of 4,096 edges and 4,096 rows; 64 KB (a T4) 2,048 and 4,096; 48 KB 1,024 and
// 4,096.
struct BucketCaps {
    int max_buckets = kMaxBuckets, max_row_shift = kMaxRowShift, chunk_edges = kChunkEdges;
};

inline BucketCaps bucket_caps(size_t shared_per_block) {
    BucketCaps caps;
    while (caps.chunk_edges > kMinChunkEdges &&
           place_chunk_shared_bytes(0, caps.chunk_edges) > shared_per_block / 2)
        caps.chunk_edges /= 2;
    while (caps.max_row_shift > 0 &&
           place_chunk_shared_bytes(1 << caps.max_row_shift, caps.chunk_edges) > shared_per_block)
        --caps.max_row_shift;
    while (count_buckets_shared_bytes(caps.max_buckets) > shared_per_block) caps.max_buckets /= 2;
    return caps;
}

inline bool layout_fits(const BucketLayout& layout, const BucketCaps& caps) {
    return layout.row_shift <= caps.max_row_shift && layout.num_buckets <= caps.max_buckets &&
           layout.levels <= kMaxLevels;
}

// The layout with 2^row_shift rows per bucket: as few levels as keep each at 2^kMaxLevelBits.
inline BucketLayout bucket_layout(int rows, int row_shift, int max_level_bits, int chunk_edges) {
    BucketLayout layout;
    layout.row_shift = row_shift;
    layout.num_buckets = static_cast<int>((int64_t{rows} + (1 << row_shift) - 1) >> row_shift);
    const int bits = bits_for(layout.num_buckets);
    layout.levels = (bits + max_level_bits - 1) / max_level_bits;
    layout.level_bits = layout.levels == 0 ? 0 : (bits + layout.levels - 1) / layout.levels;
    layout.chunk_edges = chunk_edges;
    return layout;
}

// A large graph gets buckets of 2^k rows with 0.8 of a chunk of edges on average, so that a
// uniform graph's buckets each fit one block; k grows where the buckets would be too many. The
// rows of a bucket are not all that must fit: a bucket far larger than a chunk would write its
// slice from many blocks at once, every store a partial sector of a slice too large for the L2
// to gather, so the edges, not the counters, set k (at scale 22, 256 rows and two levels). A
// printable input is cut small, about sqrt(rows) rows per bucket, two levels and chunks of the
// average bucket, so that every pass and both kinds of bucket show in its arrays.
inline BucketLayout bucket_layout(int rows, size_t edges, const BucketCaps& caps) {
    if (rows <= static_cast<int>(kPrintLimit) && edges <= kPrintLimit) {
        const BucketLayout shape = bucket_layout(rows, bits_for(rows) / 2, kMaxLevelBits, 1);
        const int small_level_bits = std::max(1, (bits_for(shape.num_buckets) + 1) / 2);
        const int average = static_cast<int>((edges + shape.num_buckets - 1) /
                                             std::max(1, shape.num_buckets));
        return bucket_layout(rows, shape.row_shift, small_level_bits, std::max(1, average));
    }
    const double rows_for_chunk = 0.8 * caps.chunk_edges * rows / std::max<size_t>(edges, 1);
    int row_shift =
        std::min(caps.max_row_shift, std::max(0, bits_for(int64_t(rows_for_chunk) + 1) - 1));
    while (row_shift < caps.max_row_shift &&
           ((int64_t{rows} + (1 << row_shift) - 1) >> row_shift) > caps.max_buckets)
        ++row_shift;
    return bucket_layout(rows, row_shift, kMaxLevelBits, caps.chunk_edges);
}

// A share of the work that one block takes in turn: `count` edges from `begin`, of bucket (or
// segment) `group`, whose edges come in `pieces` such shares.
struct alignas(16) WorkItem {
    int group, begin, count, pieces;
};

// Pass 1 on the CPU: how many edges fall in each bucket.
inline std::vector<int> count_buckets_cpu(const HostCoo& edges, const BucketLayout& layout) {
    std::vector<int> count(layout.num_buckets, 0);
    for (int row : edges.rows) ++count[row >> layout.row_shift];
    return count;
}

// Pass 1: each block counts its edges' buckets in shared memory, where the additions cost no
// trip to L2, and adds each nonzero count once to the global histogram. The blocks are as many as
// fit on the GPU at once and stride over the edges, so that the merge costs a few million
// atomics, not one per edge; each turn issues eight loads before it counts any of them.
constexpr int kCountItems = 8;

template <class Cuda>
__host__ __device__ void count_buckets_block(Cuda& cuda, int num_edges, const int* rows,
                                             int row_shift, int num_buckets, int* bucket_count) {
    int* block_count = shared_array<int>(cuda, num_buckets);
    const int thread = cuda.threadIdx.x, threads = cuda.blockDim.x;
    for (int b = thread; b < num_buckets; b += threads) block_count[b] = 0;
    cuda.syncthreads();
    const long long stride = static_cast<long long>(cuda.gridDim.x) * threads;
    for (long long first = static_cast<long long>(cuda.blockIdx.x) * threads + thread;
         first < num_edges; first += stride * kCountItems) {
        int row[kCountItems];
        UNROLL_ON_DEVICE
        for (int i = 0; i < kCountItems; ++i)
            row[i] = first + i * stride < num_edges ? rows[first + i * stride] : -1;
        UNROLL_ON_DEVICE
        for (int i = 0; i < kCountItems; ++i)
            if (row[i] >= 0) cuda.atomic_add(&block_count[row[i] >> row_shift], 1);
    }
    cuda.syncthreads();
    for (int b = thread; b < num_buckets; b += threads)
        if (block_count[b] > 0) cuda.atomic_add(&bucket_count[b], block_count[b]);
}

__global__ void count_buckets_kernel(int num_edges, const int* rows, int row_shift,
                                     int num_buckets, int* bucket_count) {
    DeviceCuda cuda;
    count_buckets_block(cuda, num_edges, rows, row_shift, num_buckets, bucket_count);
}

// An exclusive prefix sum of values[0, n) in place by one block; returns the total. Each thread
// sums a run of consecutive values, the block scans the runs' sums (block_exclusive_prefix), and
// each thread writes its run's prefixes. The caller has synchronised before it; it synchronises
// before it returns, so that the values and warp_sums may be used at once.
template <class Cuda>
__host__ __device__ int block_exclusive_scan(Cuda& cuda, int* values, int n, int* warp_sums) {
    const int thread = cuda.threadIdx.x, threads = cuda.blockDim.x;
    const int per_thread = (n + threads - 1) / threads;
    const int begin = min(n, thread * per_thread), end = min(n, begin + per_thread);
    int run_sum = 0;
    for (int i = begin; i < end; ++i) run_sum += values[i];
    int prefix = block_exclusive_prefix(cuda, run_sum, warp_sums);
    for (int i = begin; i < end; ++i) {
        const int value = values[i];
        values[i] = prefix;
        prefix += value;
    }
    const int total = warp_sums[kWarpSize];
    cuda.syncthreads();
    return total;
}

// The plan, one block: the buckets' offsets (the scan of pass 1's counts, which it leaves zero for
// the next build), each level's cursors, and how the work is cut for the blocks of passes 2 and 3:
// each level's tiles per segment, and each bucket's chunks, the hub buckets' (more than one
// chunk) counted apart so that pass 3a can take them alone. Tables of starts; describe_items
// turns them into WorkItems.
template <class Cuda>
__host__ __device__ void plan_build_block(Cuda& cuda, BucketLayout layout, int num_rows,
                                          int num_edges, int* bucket_count, int* bucket_offset,
                                          int* level_cursor, int* tile_start, int* chunk_start,
                                          int* row_offsets) {
    int* warp_sums = shared_array<int>(cuda, kWarpSize + 1);
    const int thread = cuda.threadIdx.x, threads = cuda.blockDim.x, F = layout.num_buckets;
    for (int b = thread; b <= F; b += threads) {
        bucket_offset[b] = b < F ? bucket_count[b] : 0;
        if (b < F) bucket_count[b] = 0;
    }
    cuda.syncthreads();
    block_exclusive_scan(cuda, bucket_offset, F + 1, warp_sums);
    for (int level = 0; level < layout.levels; ++level) {
        for (int g = thread; g < layout.buckets_at(level); g += threads)
            level_cursor[level * F + g] = layout.level_start(bucket_offset, level, g);
        int* starts = tile_start + level * (F + 1);
        const int segments = layout.buckets_at(level - 1);
        for (int s = thread; s <= segments; s += threads) {
            const int edges_in_segment = layout.level_start(bucket_offset, level - 1, s + 1) -
                                         layout.level_start(bucket_offset, level - 1, s);
            starts[s] = s < segments ? (edges_in_segment + kTileEdges - 1) / kTileEdges : 0;
        }
        cuda.syncthreads();
        block_exclusive_scan(cuda, starts, segments + 1, warp_sums);
    }
    int* single_start = chunk_start + F + 1;
    for (int b = thread; b <= F; b += threads) {
        const int edges_in_bucket = b < F ? bucket_offset[b + 1] - bucket_offset[b] : 0;
        const int pieces = max(1, (edges_in_bucket + layout.chunk_edges - 1) / layout.chunk_edges);
        chunk_start[b] = b < F && pieces > 1 ? pieces : 0;
        single_start[b] = b < F && pieces == 1 ? 1 : 0;
    }
    cuda.syncthreads();
    block_exclusive_scan(cuda, chunk_start, F + 1, warp_sums);
    block_exclusive_scan(cuda, single_start, F + 1, warp_sums);
    if (thread == 0) row_offsets[num_rows] = num_edges;
}

__global__ void plan_build_kernel(BucketLayout layout, int num_rows, int num_edges,
                                  int* bucket_count, int* bucket_offset, int* level_cursor,
                                  int* tile_start, int* chunk_start, int* row_offsets) {
    DeviceCuda cuda;
    plan_build_block(cuda, layout, num_rows, num_edges, bucket_count, bucket_offset, level_cursor,
                     tile_start, chunk_start, row_offsets);
}

// One thread per possible item of a table: item q falls in the group (segment or bucket) whose
// start is the last at or before q, found by a search of the starts. Done once here, so that no
// block of passes 2 and 3 waits on the 14 dependent loads of a search before its work.
// Groups are the buckets of `level`; items go to items[*first + q] (after the hub chunks, say).
__host__ __device__ inline void describe_items_thread(int q, BucketLayout layout, int level,
                                                      int capacity, const int* item_start,
                                                      const int* bucket_offset, const int* first,
                                                      WorkItem* items) {
    const int groups = layout.buckets_at(level);
    if (q >= item_start[groups]) return;
    const int g = partition_point_index(0, groups, [&](int p) { return item_start[p + 1] <= q; });
    const int begin = layout.level_start(bucket_offset, level, g) +
                      (q - item_start[g]) * capacity;
    const int end = layout.level_start(bucket_offset, level, g + 1);
    items[*first + q] = {g, begin, min(capacity, end - begin), item_start[g + 1] - item_start[g]};
}

__global__ void describe_items_kernel(int num_threads, BucketLayout layout, int level,
                                      int capacity, const int* item_start,
                                      const int* bucket_offset, const int* first,
                                      WorkItem* items) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q < num_threads)
        describe_items_thread(q, layout, level, capacity, item_start, bucket_offset, first, items);
}

// Pass 2 on the CPU, one level: each edge, in input order, takes its bucket's next slot. The
// input is already grouped by the level above, so this is the segments one after another.
inline HostCoo partition_level_cpu(const HostCoo& in, const BucketLayout& layout, int level,
                                   const std::vector<int>& bucket_offset) {
    HostCoo out = in;
    std::vector<int> cursor(layout.buckets_at(level));
    for (size_t g = 0; g < cursor.size(); ++g)
        cursor[g] = layout.level_start(bucket_offset.data(), level, static_cast<int>(g));
    for (size_t e = 0; e < in.nnz(); ++e) {
        const int slot = cursor[in.rows[e] >> layout.bucket_shift(level)]++;
        out.rows[slot] = in.rows[e];
        out.cols[slot] = in.cols[e];
        out.values[slot] = in.values[e];
    }
    return out;
}

// The warp-aggregated claim on counter[key], its peers (the lanes of `active` whose key equals
// this lane's) found with one ballot per bit of the key (CUB's way: __match_any_sync is one
// instruction, but a slow one): a bucket that many lanes of a warp hit costs one shared atomic.
template <class Cuda>
__host__ __device__ int claim_in_warp(Cuda& cuda, int* counter, int key, int key_bits,
                                      unsigned active) {
    unsigned peers = active;
    for (int bit = 0; bit < key_bits; ++bit) {
        const unsigned ones = cuda.ballot_sync(active, (key >> bit) & 1);
        peers &= (key >> bit) & 1 ? ones : ~ones;
    }
    return claim_for_peers(cuda, &counter[key], peers, active);
}

// Pass 2, one level; each block takes tiles of one segment (a bucket of the level above) in turn.
// It loads the tile into registers (all loads issued before any is used), ranks each edge within
// its bucket in shared memory, claims each bucket's run of the output with one global atomic,
// and scatters the tile into shared memory in bucket order. Written out in that order, a warp's
// 32 stores fall in one or two runs: whole sectors, where the unsorted edges would write 32.
constexpr int kPartitionThreads = 256;

template <class Cuda>
__host__ __device__ void partition_level_block(Cuda& cuda, BucketLayout layout, int level,
                                               const int* tile_start, const WorkItem* tiles,
                                               int* level_cursor, const int* in_rows,
                                               const int* in_cols, const float* in_weights,
                                               int* out_rows, int* out_cols, float* out_weights) {
    constexpr int kItems = kTileEdges / kPartitionThreads;
    const int bins = 1 << layout.level_bits, shift = layout.bucket_shift(level);
    int* tile_first = shared_array<int>(cuda, bins);  // counts, then each bucket's first position
    int* run_offset = shared_array<int>(cuda, bins);  // output slot minus position in the tile
    int* warp_sums = shared_array<int>(cuda, kWarpSize + 1);
    int* tile_rows = shared_array<int>(cuda, kTileEdges);
    int* tile_cols = shared_array<int>(cuda, kTileEdges);
    float* tile_weights = shared_array<float>(cuda, kTileEdges);
    const int thread = cuda.threadIdx.x;
    const int num_tiles = tile_start[layout.buckets_at(level - 1)];
    for (int q = cuda.blockIdx.x; q < num_tiles; q += cuda.gridDim.x) {
        const WorkItem tile = tiles[q];
        const int first_bucket = tile.group << layout.level_bits;
        for (int b = thread; b < bins; b += kPartitionThreads) tile_first[b] = 0;
        int row[kItems], col[kItems], rank[kItems];
        float weight[kItems];
        UNROLL_ON_DEVICE
        for (int i = 0; i < kItems; ++i) {
            const int k = i * kPartitionThreads + thread;
            if (k < tile.count) {
                row[i] = in_rows[tile.begin + k];
                col[i] = in_cols[tile.begin + k];
                weight[i] = in_weights[tile.begin + k];
            }
        }
        cuda.syncthreads();
        UNROLL_ON_DEVICE
        for (int i = 0; i < kItems; ++i) {
            const int k = i * kPartitionThreads + thread;
            const unsigned active = cuda.ballot_sync(kFullWarp, k < tile.count);
            if (k < tile.count)
                rank[i] = claim_in_warp(cuda, tile_first, (row[i] >> shift) - first_bucket,
                                        layout.level_bits, active);
        }
        cuda.syncthreads();
        for (int b = thread; b < bins; b += kPartitionThreads)
            run_offset[b] = tile_first[b] > 0
                                ? cuda.atomic_add(&level_cursor[first_bucket + b], tile_first[b])
                                : 0;
        block_exclusive_scan(cuda, tile_first, bins, warp_sums);
        for (int b = thread; b < bins; b += kPartitionThreads) run_offset[b] -= tile_first[b];
        UNROLL_ON_DEVICE
        for (int i = 0; i < kItems; ++i) {
            const int k = i * kPartitionThreads + thread;
            if (k < tile.count) {
                const int position = tile_first[(row[i] >> shift) - first_bucket] + rank[i];
                tile_rows[position] = row[i];
                tile_cols[position] = col[i];
                tile_weights[position] = weight[i];
            }
        }
        cuda.syncthreads();
        for (int k = thread; k < tile.count; k += kPartitionThreads) {
            const int slot = run_offset[(tile_rows[k] >> shift) - first_bucket] + k;
            out_rows[slot] = tile_rows[k];
            out_cols[slot] = tile_cols[k];
            out_weights[slot] = tile_weights[k];
        }
        cuda.syncthreads();
    }
}

__global__ void __launch_bounds__(kPartitionThreads)
    partition_level_kernel(BucketLayout layout, int level, const int* tile_start,
                           const WorkItem* tiles, int* level_cursor, const int* in_rows,
                           const int* in_cols, const float* in_weights, int* out_rows,
                           int* out_cols, float* out_weights) {
    DeviceCuda cuda;
    partition_level_block(cuda, layout, level, tile_start, tiles, level_cursor, in_rows, in_cols,
                          in_weights, out_rows, out_cols, out_weights);
}

// Pass 3 on the CPU: the buckets one after another; each counts its rows' lengths, scans them
// into row_offsets from the bucket's own offset, and places its edges in order at their rows'
// next slots. On the CPU one loop takes any bucket whole; chunks are how blocks share a hub.
inline HostCsr place_buckets_cpu(const HostCoo& staged, const BucketLayout& layout,
                                 const std::vector<int>& bucket_offset) {
    HostCsr csr{staged.num_rows, staged.num_cols, std::vector<int>(staged.num_rows + 1),
                std::vector<int>(staged.nnz()), std::vector<float>(staged.nnz())};
    for (int b = 0; b < layout.num_buckets; ++b) {
        const int first_row = b << layout.row_shift;
        const int rows = std::min(layout.rows_per_bucket(), staged.num_rows - first_row);
        std::vector<int> length(rows, 0);
        for (int k = bucket_offset[b]; k < bucket_offset[b + 1]; ++k)
            ++length[staged.rows[k] - first_row];
        std::vector<int> cursor = scan_degrees(length);
        for (int r = 0; r < rows; ++r)
            csr.row_offsets[first_row + r] = cursor[r] += bucket_offset[b];
        for (int k = bucket_offset[b]; k < bucket_offset[b + 1]; ++k) {
            const int slot = cursor[staged.rows[k] - first_row]++;
            csr.col_idx[slot] = staged.cols[k];
            csr.values[slot] = staged.values[k];
        }
    }
    csr.row_offsets[staged.num_rows] = static_cast<int>(staged.nnz());
    return csr;
}

// Pass 3a, for hub buckets only: each block counts one chunk's rows in shared memory and adds
// the counts to the rows' global fill counters, one atomic per row. The block that counts a
// bucket's last chunk (a counter per bucket says which: the fences put every other chunk's adds
// before its increment) scans the bucket's row lengths into row_offsets, so that 3c's chunks
// each know where their rows start. Both counters return to zero by the end of 3c.
constexpr int kPlaceThreads = 512;
constexpr int kPlaceItems = 8;

template <class Cuda>
__host__ __device__ void count_hub_rows_block(Cuda& cuda, BucketLayout layout, int num_rows,
                                              const int* chunk_start, const WorkItem* chunks,
                                              const int* rows, const int* bucket_offset,
                                              int* row_fill, int* chunks_counted,
                                              int* row_offsets) {
    int* length = shared_array<int>(cuda, layout.rows_per_bucket() + 1);
    int* warp_sums = shared_array<int>(cuda, kWarpSize + 1);
    int* last = shared_array<int>(cuda, 1);
    const int thread = cuda.threadIdx.x;
    for (int q = cuda.blockIdx.x; q < chunk_start[layout.num_buckets]; q += cuda.gridDim.x) {
        const WorkItem chunk = chunks[q];
        const int first_row = chunk.group << layout.row_shift;
        const int rows_here = min(layout.rows_per_bucket(), num_rows - first_row);
        for (int r = thread; r <= rows_here; r += kPlaceThreads) length[r] = 0;
        cuda.syncthreads();
        for (int start = 0; start < chunk.count; start += kPlaceItems * kPlaceThreads) {
            int row[kPlaceItems];
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i) {
                const int k = start + i * kPlaceThreads + thread;
                row[i] = k < chunk.count ? rows[chunk.begin + k] - first_row : -1;
            }
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i)
                if (row[i] >= 0) cuda.atomic_add(&length[row[i]], 1);
        }
        cuda.syncthreads();
        for (int r = thread; r < rows_here; r += kPlaceThreads)
            if (length[r] > 0) cuda.atomic_add(&row_fill[first_row + r], length[r]);
        cuda.threadfence();
        cuda.syncthreads();
        if (thread == 0)
            *last = cuda.atomic_add(&chunks_counted[chunk.group], 1) == chunk.pieces - 1;
        cuda.syncthreads();
        if (*last) {
            cuda.threadfence();
            // An atomic read: the other chunks' adds were made in L2, which this SM's L1 skips.
            for (int r = thread; r <= rows_here; r += kPlaceThreads)
                length[r] = r < rows_here ? cuda.atomic_add(&row_fill[first_row + r], 0) : 0;
            cuda.syncthreads();
            block_exclusive_scan(cuda, length, rows_here + 1, warp_sums);
            for (int r = thread; r < rows_here; r += kPlaceThreads)
                row_offsets[first_row + r] = bucket_offset[chunk.group] + length[r];
            if (thread == 0) cuda.atomic_add(&chunks_counted[chunk.group], -chunk.pieces);
        }
        cuda.syncthreads();
    }
}

__global__ void __launch_bounds__(kPlaceThreads)
    count_hub_rows_kernel(BucketLayout layout, int num_rows, const int* chunk_start,
                          const WorkItem* chunks, const int* rows, const int* bucket_offset,
                          int* row_fill, int* chunks_counted, int* row_offsets) {
    DeviceCuda cuda;
    count_hub_rows_block(cuda, layout, num_rows, chunk_start, chunks, rows, bucket_offset,
                         row_fill, chunks_counted, row_offsets);
}

// Pass 3c: each block takes a chunk (a whole bucket, or a hub bucket's share). It counts the
// chunk's rows in shared memory, each edge's atomic returning its rank within its row, and scans
// the counts into the rows' starts in the chunk; each edge's row stays in shared memory, so
// that the rows are read from memory once. A whole bucket writes its rows' row_offsets
// from these, no global atomic needed; a hub chunk takes its share of each row from the end of
// what 3a's counters leave, counting them back down to zero. The edges are then placed in
// shared memory at start + rank, and the chunk goes out in slot order: a whole bucket's slice
// in one coalesced sweep, a hub chunk's in runs of about chunk_edges / rows_per_bucket.
template <class Cuda>
__host__ __device__ void place_chunk_block(Cuda& cuda, BucketLayout layout, int num_rows,
                                           const int* chunk_start, const WorkItem* chunks,
                                           const int* rows, const int* cols,
                                           const float* weights, int* row_fill,
                                           int* row_offsets, int* col_idx, float* values) {
    const int rows_per_bucket = layout.rows_per_bucket();
    int* start = shared_array<int>(cuda, rows_per_bucket + 1);  // lengths, then starts
    int* first_slot = shared_array<int>(cuda, rows_per_bucket);  // a hub chunk's share of a row
    int* warp_sums = shared_array<int>(cuda, kWarpSize + 1);
    unsigned short* rank = shared_array<unsigned short>(cuda, layout.chunk_edges);
    unsigned short* staged_row = shared_array<unsigned short>(cuda, layout.chunk_edges);
    int* staged_cols = shared_array<int>(cuda, layout.chunk_edges);
    float* staged_weights = shared_array<float>(cuda, layout.chunk_edges);
    const int thread = cuda.threadIdx.x, F = layout.num_buckets;
    const int num_chunks = chunk_start[F] + chunk_start[2 * F + 1];
    for (int q = cuda.blockIdx.x; q < num_chunks; q += cuda.gridDim.x) {
        const WorkItem chunk = chunks[q];
        const int first_row = chunk.group << layout.row_shift;
        const int rows_here = min(rows_per_bucket, num_rows - first_row);
        for (int r = thread; r <= rows_here; r += kPlaceThreads) start[r] = 0;
        cuda.syncthreads();
        for (int base = 0; base < chunk.count; base += kPlaceItems * kPlaceThreads) {
            int row[kPlaceItems];
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i) {
                const int k = base + i * kPlaceThreads + thread;
                row[i] = k < chunk.count ? rows[chunk.begin + k] - first_row : -1;
            }
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i)
                if (row[i] >= 0) {
                    const int k = base + i * kPlaceThreads + thread;
                    staged_row[k] = static_cast<unsigned short>(row[i]);
                    rank[k] = static_cast<unsigned short>(cuda.atomic_add(&start[row[i]], 1));
                }
        }
        cuda.syncthreads();
        block_exclusive_scan(cuda, start, rows_here + 1, warp_sums);
        for (int r = thread; r < rows_here; r += kPlaceThreads) {
            const int length = start[r + 1] - start[r];
            if (chunk.pieces == 1)
                row_offsets[first_row + r] = chunk.begin + start[r];
            else if (length > 0)
                first_slot[r] = row_offsets[first_row + r] - length +
                                cuda.atomic_add(&row_fill[first_row + r], -length);
        }
        for (int base = 0; base < chunk.count; base += kPlaceItems * kPlaceThreads) {
            int col[kPlaceItems];
            float weight[kPlaceItems];
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i) {
                const int k = base + i * kPlaceThreads + thread;
                if (k < chunk.count) {
                    col[i] = cols[chunk.begin + k];
                    weight[i] = weights[chunk.begin + k];
                }
            }
            UNROLL_ON_DEVICE
            for (int i = 0; i < kPlaceItems; ++i) {
                const int k = base + i * kPlaceThreads + thread;
                if (k < chunk.count) {
                    const int position = start[staged_row[k]] + rank[k];
                    staged_cols[position] = col[i];
                    staged_weights[position] = weight[i];
                }
            }
        }
        cuda.syncthreads();
        for (int position = thread; position < chunk.count; position += kPlaceThreads) {
            int slot = chunk.begin + position;
            if (chunk.pieces > 1) {
                const int r = partition_point_index(
                    0, rows_here, [&](int p) { return start[p + 1] <= position; });
                slot = first_slot[r] + position - start[r];
            }
            col_idx[slot] = staged_cols[position];
            values[slot] = staged_weights[position];
        }
        cuda.syncthreads();
    }
}

__global__ void __launch_bounds__(kPlaceThreads, 2)
    place_chunk_kernel(BucketLayout layout, int num_rows, const int* chunk_start,
                       const WorkItem* chunks, const int* rows, const int* cols,
                       const float* weights, int* row_fill, int* row_offsets, int* col_idx,
                       float* values) {
    DeviceCuda cuda;
    place_chunk_block(cuda, layout, num_rows, chunk_start, chunks, rows, cols, weights, row_fill,
                      row_offsets, col_idx, values);
}

// What a build leaves after each pass: the buckets' offsets (pass 1 and the scan), the edges
// after each level of pass 2, the CSR (pass 3), and whether the counters that the kernels keep
// between builds (pass 1's histogram, the hub rows' fill counters) are back at zero.
struct BucketedCsr {
    std::vector<int> bucket_offset;
    std::vector<HostCoo> levels;
    HostCsr csr;
    bool counters_cleared = true;
};

// The whole CPU baseline. Every pass keeps arrival order, so its CSR is 115's, slot by slot.
inline BucketedCsr build_csr_bucketed_cpu(const HostCoo& edges, const BucketLayout& layout) {
    BucketedCsr b{scan_degrees(count_buckets_cpu(edges, layout)), {}, {}, true};
    for (int level = 0; level < layout.levels; ++level)
        b.levels.push_back(
            partition_level_cpu(level == 0 ? edges : b.levels.back(), layout, level,
                                b.bucket_offset));
    b.csr = place_buckets_cpu(layout.levels == 0 ? edges : b.levels.back(), layout,
                              b.bucket_offset);
    return b;
}

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

// The build's arrays where the kernels run, and its launches in pass order, each pass a call of
// its own so that main runs them one by one and the proof times them. The fill counters start
// at zero and every build leaves them so.
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
            const std::string rows =
                row_limit_problem(bucketed_row_limit(bucket_caps(here)), num_rows);
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

    // Pass 1: no more blocks than are resident at once, so that each block merges its shared
    // histogram into the global one only once.
    void count_buckets(const DeviceCoo& edges) {
        const unsigned threads = 1024;
        const size_t shared = count_buckets_shared_bytes(layout.num_buckets);
        const unsigned wanted = static_cast<unsigned>((num_edges + threads * kCountItems - 1) /
                                                      (threads * kCountItems));
        const unsigned blocks =
            std::min(wanted, resident_grid(here, count_buckets_kernel, threads, shared).blocks);
        here.launch_blocks({blocks, threads, shared}, count_buckets_kernel,
                           count_buckets_block<EmulatedCuda>, num_edges, edges.rows.data(),
                           layout.row_shift, layout.num_buckets, bucket_count.data());
    }

    // The plan: one block scans the counts, since they are few; then one thread per work item
    // finds its item's bucket, so that no block of passes 2 and 3 searches before it works.
    void plan_work() {
        const int F = layout.num_buckets;
        here.launch_blocks({1, 256, plan_build_shared_bytes()}, plan_build_kernel,
                           plan_build_block<EmulatedCuda>, layout, csr.num_rows, num_edges,
                           bucket_count.data(), bucket_offset.data(), level_cursor.data(),
                           tile_start.data(), chunk_start.data(), csr.row_offsets.data());
        const unsigned threads = kThreadsPerBlock, tile_blocks = blocks_for(max_tiles);
        const unsigned chunk_blocks = blocks_for(max_chunks), bucket_blocks = blocks_for(F);
        for (int level = 0; level < layout.levels; ++level)
            here.launch(tile_blocks, threads, describe_items_kernel, describe_items_thread,
                        max_tiles, layout, level - 1, kTileEdges,
                        tile_start.data() + level * (F + 1), bucket_offset.data(), no_offset.data(),
                        tiles.data() + level * max_tiles);
        // The hub buckets' chunks first, then one per other bucket, after them.
        here.launch(chunk_blocks, threads, describe_items_kernel, describe_items_thread, max_chunks,
                    layout, layout.levels - 1, layout.chunk_edges, chunk_start.data(),
                    bucket_offset.data(), no_offset.data(), chunks.data());
        here.launch(bucket_blocks, threads, describe_items_kernel, describe_items_thread, F, layout,
                    layout.levels - 1, layout.chunk_edges, chunk_start.data() + F + 1,
                    bucket_offset.data(), chunk_start.data() + F, chunks.data());
    }

    // Pass 2, a launch per level: each level's tiles read the edges as the level above left them.
    void partition_into_buckets(const DeviceCoo& edges) {
        const BlockGrid block{0, kPartitionThreads,
                              partition_level_shared_bytes(layout.level_bits)};
        const BlockGrid resident =
            resident_grid(here, partition_level_kernel, block.threads, block.shared_bytes);
        for (int level = 0; level < layout.levels && num_edges > 0; ++level) {
            const bool first = level == 0;
            here.launch_blocks(
                resident, partition_level_kernel, partition_level_block<EmulatedCuda>, layout,
                level, tile_start.data() + level * (layout.num_buckets + 1),
                tiles.data() + level * max_tiles, level_cursor.data() + level * layout.num_buckets,
                first ? edges.rows.data() : staged_rows[level - 1].data(),
                first ? edges.cols.data() : staged_cols[level - 1].data(),
                first ? edges.values.data() : staged_weights[level - 1].data(),
                staged_rows[level].data(), staged_cols[level].data(), staged_weights[level].data());
        }
    }

    // Pass 3: the hub buckets' rows are counted first (3a), so that every chunk of a hub knows
    // where its rows start before the chunks place their edges (3c).
    void place_in_rows(const DeviceCoo& edges) {
        // The edges as pass 2's last level left them, or as given where there is one bucket.
        const int last = layout.levels - 1;
        const int* rows = last < 0 ? edges.rows.data() : staged_rows[last].data();
        const int* cols = last < 0 ? edges.cols.data() : staged_cols[last].data();
        const float* weights = last < 0 ? edges.values.data() : staged_weights[last].data();
        const int rows_per_bucket = layout.rows_per_bucket();
        const size_t hubs = count_hub_rows_shared_bytes(rows_per_bucket);
        const BlockGrid hub_grid = resident_grid(here, count_hub_rows_kernel, kPlaceThreads, hubs);
        here.launch_blocks(hub_grid, count_hub_rows_kernel, count_hub_rows_block<EmulatedCuda>,
                           layout, csr.num_rows, chunk_start.data(), chunks.data(), rows,
                           bucket_offset.data(), row_fill.data(), chunks_counted.data(),
                           csr.row_offsets.data());
        const size_t chunk = place_chunk_shared_bytes(rows_per_bucket, layout.chunk_edges);
        const BlockGrid chunk_grid = resident_grid(here, place_chunk_kernel, kPlaceThreads, chunk);
        here.launch_blocks(chunk_grid, place_chunk_kernel, place_chunk_block<EmulatedCuda>, layout,
                           csr.num_rows, chunk_start.data(), chunks.data(), rows, cols, weights,
                           row_fill.data(), csr.row_offsets.data(), csr.col_idx.data(),
                           csr.values.data());
    }

    void run(const DeviceCoo& edges) {
        count_buckets(edges);
        plan_work();
        partition_into_buckets(edges);
        place_in_rows(edges);
    }

    // The offsets, each level's edges and the CSR brought back, and whether the counters that
    // the kernels keep between builds are back at zero.
    BucketedCsr download() const {
        BucketedCsr b{bucket_offset.download(), {}, csr.download(), true};
        for (const DeviceArray<int>* kept : {&bucket_count, &row_fill, &chunks_counted})
            for (int count : kept->download()) b.counters_cleared &= count == 0;
        for (int level = 0; level < layout.levels; ++level)
            b.levels.push_back(coo_of(csr.num_rows, csr.num_cols, staged_rows[level].download(),
                                      staged_cols[level].download(),
                                      staged_weights[level].download()));
        return b;
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

// The kernels' build, wherever they run, for a later lesson or a test.
inline BucketedCsr build_csr_bucketed(const Here& here, const HostCoo& edges,
                                      const BucketLayout& layout) {
    const DeviceCoo d(here, edges);
    BucketedBuild build(here, edges.num_rows, edges.num_cols, edges.nnz(), layout);
    build.run(d);
    return build.download();
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/124_csr_bucketed_construction_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, bucketed_construction_program());
    const HostCoo edges = chapter_input(p.options);
    refuse_rows_beyond_caps(p, edges.num_rows);
    const BucketLayout layout = bucket_layout(edges.num_rows, edges.nnz(), bucket_caps(p.here));
    const BucketedCsr baseline = build_csr_bucketed_cpu(edges, layout);
    show_layout(p.here, edges, layout, baseline.bucket_offset);
    show_bucketed_build(
        "the CPU baseline, build_csr_bucketed_cpu: each pass one edge at a time (every bucket "
        "and every row in arrival order):",
        baseline, layout);
    const DeviceCoo d(p.here, edges);
    BucketedBuild build(p.here, edges.num_rows, edges.num_cols, edges.nnz(), layout);
    build.count_buckets(d);
    build.plan_work();
    build.partition_into_buckets(d);
    build.place_in_rows(d);
    const BucketedCsr built = build.download();
    show_bucketed_build(std::string("the ") + p.here.name() +
                            " kernels: passes 1, 2 and 3 (each bucket's edges, and each row's, in "
                            "whatever order the atomics made):",
                        built, layout);

    SelfCheck check;
    check_bucketed_build(p, edges, baseline, built, layout, check);
    compare_with_library(p, edges, layout, baseline.csr, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
#endif  // CSR_BUCKETED_CONSTRUCTION_124
