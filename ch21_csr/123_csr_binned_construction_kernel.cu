// 123 (21.2) kernel: CSR from a raw edge list, binned, so that the scatter's atomics stay on chip.
// 115's scatter gives each edge a global atomicAdd on its source's cursor and two 4-byte writes
// anywhere in arrays of E entries: each write costs DRAM a whole 32-byte sector, and a hub's edges
// queue on one cursor. Here the rows are cut into bins of consecutive rows, and after 115's count
// and scan (steps 1 and 2) the scatter becomes two steps whose atomics are in shared memory: 3a
// partitions the edges into bins, 3b places each bin's edges within its rows.
//
// Build and run:  make 123_csr_binned_construction_kernel
//                 build/123_csr_binned_construction_kernel
//                 build/123_csr_binned_construction_kernel --scale 22 --max-memory 24G
#include <algorithm>
#include <string>
#include <vector>
// 115's lesson: the count and the scan that give row_offsets (DeviceGrouping), and their baselines
#include "115_csr_concurrent_construction_kernel.cu"
// warp_aggregated_claim: where a warp's lanes hit one counter, one atomic claims for all of them
#include "warp_cooperation.cuh"

// How the rows are cut. Bins of 2^bin_shift rows: about 2,048 bins for a large graph (2,048 rows
// per bin at scale 22), whose counts (3a) and cursors (3b) each fit in 32 KB of shared memory; a
// small graph gets bins of about sqrt(R) rows, so that its few bins can be printed.
constexpr int kMaxBinShift = 13;
constexpr int kMaxBins = 4096;
// So the bins fit every GPU that the suite builds for, with no opt-in and whatever the limits.
static_assert(2 * kMaxBins * sizeof(int) <= kSharedWithoutOptIn &&
                  (sizeof(int) << kMaxBinShift) <= kSharedWithoutOptIn,
              "3a's counts and 3b's cursors fit the 48 KB that every GPU gives a block");

constexpr int64_t kMaxBinnedRows = int64_t{kMaxBins} << kMaxBinShift;

struct BinLayout {
    int bin_shift = 0;
    int num_bins = 0;
    bool fits() const { return num_bins <= kMaxBins && bin_shift <= kMaxBinShift; }
    int rows_per_bin() const { return 1 << bin_shift; }
};

inline BinLayout bin_layout(int num_rows) {
    int log_rows = 0;
    while ((int64_t{1} << log_rows) < num_rows) ++log_rows;
    BinLayout layout;
    layout.bin_shift = std::min(kMaxBinShift, std::max(log_rows / 2, log_rows - 11));
    layout.num_bins =
        static_cast<int>((int64_t{num_rows} + layout.rows_per_bin() - 1) >> layout.bin_shift);
    return layout;
}

inline std::string bin_limit_text() {
    return "the binned build takes at most " + with_separators(kMaxBinnedRows) + " rows (" +
           with_separators(kMaxBins) + " bins of " + with_separators(1 << kMaxBinShift) + ")";
}

// Before 3a, one thread per bin: its cursor starts where its first row starts.
__host__ __device__ inline void start_bin_cursor_thread(int b, int bin_shift,
                                                        const int* row_offsets, int* bin_cursor) {
    bin_cursor[b] = row_offsets[b << bin_shift];
}

__global__ void start_bin_cursor_kernel(int num_bins, int bin_shift, const int* row_offsets,
                                        int* bin_cursor) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < num_bins) start_bin_cursor_thread(b, bin_shift, row_offsets, bin_cursor);
}

// 3a on the CPU, in the kernel's shape: each bin's cursor starts at its first row's offset, and
// the edges, one at a time (the tiles one after another), each take their bin's next slot. The
// bins lie in CSR order, bin b's slice starting at row_offsets[first row of b], which 115's count
// and scan give; each bin then holds its edges in arrival order.
inline HostCoo partition_into_bins_cpu(const HostCoo& edges, int bin_shift, int num_bins,
                                       const std::vector<int>& row_offsets) {
    std::vector<int> bin_cursor(num_bins);
    for (int b = 0; b < num_bins; ++b) bin_cursor[b] = row_offsets[b << bin_shift];
    HostCoo binned = edges;
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int slot = bin_cursor[edges.rows[e] >> bin_shift]++;
        binned.rows[slot] = edges.rows[e];
        binned.cols[slot] = edges.cols[e];
        binned.values[slot] = edges.values[e];
    }
    return binned;
}

constexpr int kPartitionThreads = 256;
constexpr int kEdgesPerThread = 16;
constexpr int kTileEdges = kPartitionThreads * kEdgesPerThread;

// 3a, one block per tile of edges: the block counts its tile's edges per bin in shared memory,
// claims each bin's share of the tile with one global atomic per bin, and copies its edges there.
// Edge i of a thread is tile_start + i * blockDim + thread, so each load is coalesced.
// A thread issues the loads of all of its edges before it waits for any of them: each phase
// first loads, then works, since waiting for one load at a time leaves the memory pipe idle.
// Every lane stays in the claiming loop to its end: the ballot names the full warp, so a lane
// that left early would never arrive and the others would wait for it forever (the emulator
// reports such a lane). Shared memory: the tile's count per bin, then each bin's first slot for
// this tile.
template <class Cuda>
__host__ __device__ void partition_into_bins_block(Cuda& cuda, int num_edges, const int* rows,
                                                   const int* cols, const float* weights,
                                                   int bin_shift, int num_bins, int* bin_cursor,
                                                   int* binned_rows, int* binned_cols,
                                                   float* binned_weights) {
    int* tile_count = shared_array<int>(cuda, num_bins);
    int* tile_base = shared_array<int>(cuda, num_bins);
    const int thread = cuda.threadIdx.x;
    for (int b = thread; b < num_bins; b += kPartitionThreads) tile_count[b] = 0;
    const long long tile_start = static_cast<long long>(cuda.blockIdx.x) * kTileEdges;
    int row[kEdgesPerThread], rank[kEdgesPerThread];
    UNROLL_ON_DEVICE
    for (int i = 0; i < kEdgesPerThread; ++i) {
        const long long e = tile_start + i * kPartitionThreads + thread;
        row[i] = e < num_edges ? rows[e] : 0;
    }
    cuda.syncthreads();
    UNROLL_ON_DEVICE
    for (int i = 0; i < kEdgesPerThread; ++i) {
        const long long e = tile_start + i * kPartitionThreads + thread;
        const unsigned active = cuda.ballot_sync(kFullWarp, e < num_edges);
        if (e < num_edges)
            rank[i] = warp_aggregated_claim(cuda, &tile_count[row[i] >> bin_shift],
                                            row[i] >> bin_shift, active);
    }
    cuda.syncthreads();
    for (int b = thread; b < num_bins; b += kPartitionThreads)
        tile_base[b] = tile_count[b] > 0 ? cuda.atomic_add(&bin_cursor[b], tile_count[b]) : 0;
    int col[kEdgesPerThread];
    float weight[kEdgesPerThread];
    UNROLL_ON_DEVICE
    for (int i = 0; i < kEdgesPerThread; ++i) {
        const long long e = tile_start + i * kPartitionThreads + thread;
        if (e < num_edges) {
            col[i] = cols[e];
            weight[i] = weights[e];
        }
    }
    cuda.syncthreads();
    UNROLL_ON_DEVICE
    for (int i = 0; i < kEdgesPerThread; ++i) {
        const long long e = tile_start + i * kPartitionThreads + thread;
        if (e < num_edges) {
            const int slot = tile_base[row[i] >> bin_shift] + rank[i];
            binned_rows[slot] = row[i];
            binned_cols[slot] = col[i];
            binned_weights[slot] = weight[i];
        }
    }
}

__global__ void partition_into_bins_kernel(int num_edges, const int* rows, const int* cols,
                                           const float* weights, int bin_shift, int num_bins,
                                           int* bin_cursor, int* binned_rows, int* binned_cols,
                                           float* binned_weights) {
    DeviceCuda cuda;
    partition_into_bins_block(cuda, num_edges, rows, cols, weights, bin_shift, num_bins, bin_cursor,
                              binned_rows, binned_cols, binned_weights);
}

// 3b on the CPU: the bins one after another, as the blocks are; within a bin every row's cursor
// starts at its offset, and the bin's edges, in turn, each take their row's next slot.
inline void place_within_bins_cpu(const HostCoo& binned, int bin_shift, HostCsr& csr) {
    std::vector<int> cursor = csr.row_offsets;
    for (int first_row = 0; first_row < csr.num_rows; first_row += 1 << bin_shift) {
        const int end_row = std::min(first_row + (1 << bin_shift), csr.num_rows);
        for (int k = csr.row_offsets[first_row]; k < csr.row_offsets[end_row]; ++k) {
            const int slot = cursor[binned.rows[k]]++;
            csr.col_idx[slot] = binned.cols[k];
            csr.values[slot] = binned.values[k];
        }
    }
}

constexpr int kPlaceThreads = 512;
constexpr int kPlaceEdgesPerTurn = 4;

// 3b, one block per bin: it loads its rows' offsets into shared memory as cursors and moves each
// of the bin's edges to its slot. A bin's writes all fall in its own slice, a few hundred
// kilobytes that L2 holds until whole sectors go out to DRAM.
// Block b owns rows [b << bin_shift, (b + 1) << bin_shift); shared memory holds their cursors.
// Each turn a thread loads four of the bin's edges, then places them. The loop steps by whole
// blocks, so every lane of a warp makes the same number of turns.
template <class Cuda>
__host__ __device__ void place_within_bins_block(Cuda& cuda, int num_rows, int bin_shift,
                                                 const int* row_offsets, const int* binned_rows,
                                                 const int* binned_cols,
                                                 const float* binned_weights, int* col_idx,
                                                 float* values) {
    const int first_row = cuda.blockIdx.x << bin_shift;
    const int rows_in_bin =
        num_rows - first_row < (1 << bin_shift) ? num_rows - first_row : 1 << bin_shift;
    int* cursor = shared_array<int>(cuda, 1 << bin_shift);
    const int thread = cuda.threadIdx.x;
    for (int r = thread; r < rows_in_bin; r += kPlaceThreads)
        cursor[r] = row_offsets[first_row + r];
    cuda.syncthreads();
    const int end = row_offsets[first_row + rows_in_bin];
    for (int start = row_offsets[first_row]; start < end;
         start += kPlaceEdgesPerTurn * kPlaceThreads) {
        int row[kPlaceEdgesPerTurn], col[kPlaceEdgesPerTurn];
        float weight[kPlaceEdgesPerTurn];
        UNROLL_ON_DEVICE
        for (int i = 0; i < kPlaceEdgesPerTurn; ++i) {
            const int k = start + i * kPlaceThreads + thread;
            if (k < end) {
                row[i] = binned_rows[k] - first_row;
                col[i] = binned_cols[k];
                weight[i] = binned_weights[k];
            }
        }
        UNROLL_ON_DEVICE
        for (int i = 0; i < kPlaceEdgesPerTurn; ++i) {
            const int k = start + i * kPlaceThreads + thread;
            const unsigned active = cuda.ballot_sync(kFullWarp, k < end);
            if (k < end) {
                const int slot = warp_aggregated_claim(cuda, &cursor[row[i]], row[i], active);
                col_idx[slot] = col[i];
                values[slot] = weight[i];
            }
        }
    }
}

__global__ void place_within_bins_kernel(int num_rows, int bin_shift, const int* row_offsets,
                                         const int* binned_rows, const int* binned_cols,
                                         const float* binned_weights, int* col_idx, float* values) {
    DeviceCuda cuda;
    place_within_bins_block(cuda, num_rows, bin_shift, row_offsets, binned_rows, binned_cols,
                            binned_weights, col_idx, values);
}

// What a binned build leaves: the edges staged by bin after 3a, and the CSR after 3b.
struct BinnedCsr {
    HostCoo binned;
    HostCsr csr;
};

// The whole CPU baseline: 115's count and scan one edge at a time, then 3a and 3b. Every step
// keeps arrival order, so its CSR is 115's baseline, slot by slot.
inline BinnedCsr build_csr_binned_cpu(const HostCoo& edges, const BinLayout& layout) {
    HostCsr csr{edges.num_rows, edges.num_cols,
                scan_degrees(count_degrees(edges)),
                std::vector<int>(edges.nnz()), std::vector<float>(edges.nnz())};
    HostCoo binned =
        partition_into_bins_cpu(edges, layout.bin_shift, layout.num_bins, csr.row_offsets);
    place_within_bins_cpu(binned, layout.bin_shift, csr);
    return {binned, csr};
}

// The build's arrays where the kernels run: 115's count and scan fill grouping.grouped's
// row_offsets, the bins stage the edges between 3a and 3b, and 3b fills grouping.grouped's
// col_idx and values. The staging starts poisoned, as the CSR does.
class BinnedBuild {
public:
    BinnedBuild(const Here& here, int num_rows, int num_cols, size_t num_edges)
        : here(here),
          layout(bin_layout(num_rows)),
          grouping(here, num_rows, num_cols, num_edges),
          bin_cursor(here, static_cast<size_t>(std::max(layout.num_bins, 1))),
          binned_rows(here, num_edges),
          binned_cols(here, num_edges),
          binned_weights(here, num_edges) {
        if (!layout.fits())
            throw std::invalid_argument(
                row_limit_problem({kMaxBinnedRows, bin_limit_text()}, num_rows));
        binned_rows.fill_bytes(0xFF);
        binned_cols.fill_bytes(0xFF);
        binned_weights.fill_bytes(0xFF);
    }

    void partition(const DeviceCoo& edges) {
        const int num_edges = edges.nnz();
        if (num_edges == 0) return;
        const unsigned cursor_threads = 256;  // one thread per bin
        const unsigned cursor_blocks = (layout.num_bins + cursor_threads - 1) / cursor_threads;
        here.launch(cursor_blocks, cursor_threads, start_bin_cursor_kernel, start_bin_cursor_thread,
                    layout.num_bins, layout.bin_shift, grouping.grouped.row_offsets.data(),
                    bin_cursor.data());
        const unsigned tiles = static_cast<unsigned>((num_edges + kTileEdges - 1) / kTileEdges);
        here.launch_blocks(
            {tiles, kPartitionThreads, SharedBytes().add<int>(2 * layout.num_bins).total()},
            partition_into_bins_kernel, partition_into_bins_block<EmulatedCuda>, num_edges,
            edges.rows.data(), edges.cols.data(), edges.values.data(), layout.bin_shift,
            layout.num_bins, bin_cursor.data(), binned_rows.data(), binned_cols.data(),
            binned_weights.data());
    }

    void place() {
        if (binned_rows.size() == 0) return;
        here.launch_blocks({static_cast<unsigned>(layout.num_bins), kPlaceThreads,
                            SharedBytes().add<int>(layout.rows_per_bin()).total()},
                           place_within_bins_kernel, place_within_bins_block<EmulatedCuda>,
                           grouping.grouped.num_rows, layout.bin_shift,
                           grouping.grouped.row_offsets.data(), binned_rows.data(),
                           binned_cols.data(), binned_weights.data(),
                           grouping.grouped.col_idx.data(), grouping.grouped.values.data());
    }

    void run(const DeviceCoo& edges) {
        grouping.count(here, edges.rows.data(), edges.nnz());
        grouping.scan();
        partition(edges);
        place();
    }

    const Here here;
    BinLayout layout;
    DeviceGrouping grouping;
    DeviceArray<int> bin_cursor, binned_rows, binned_cols;
    DeviceArray<float> binned_weights;
};

// The kernels' binned build, wherever they run: the staged bins and the CSR brought back.
inline BinnedCsr build_csr_binned(const Here& here, const HostCoo& edges) {
    const DeviceCoo d(here, edges);
    BinnedBuild build(here, edges.num_rows, edges.num_cols, edges.nnz());
    build.run(d);
    return {coo_of(edges.num_rows, edges.num_cols, build.binned_rows.download(),
                   build.binned_cols.download(), build.binned_weights.download()),
            build.grouping.grouped.download()};
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/123_csr_binned_construction_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, binned_construction_program());
    const HostCoo edges = chapter_input(p.options);
    const BinLayout layout = bin_layout(edges.num_rows);
    const BinnedCsr baseline = build_csr_binned_cpu(edges, layout);
    show_bins(edges, baseline.csr, layout);
    show_binned_build(
        "the CPU baseline, build_csr_binned_cpu: 115's count and scan, then 3a and "
        "3b one edge at a time (each bin and each row in arrival order):",
        baseline);
    const BinnedCsr built = build_csr_binned(p.here, edges);
    show_binned_build(std::string("the ") + p.here.name() +
                          " kernels: 3a, then 3b (each bin's edges in whatever order the tiles "
                          "claimed):",
                      built);

    SelfCheck check;
    check_binned_build(p, edges, layout, baseline, built, check);
    compare_with_library(p, edges);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
