// 148 (14.5) kernel: CSR SpMV split by merge path, equal work per thread at any skew.
// 143 gives each thread a row, so the thread of a 40,000-entry row loops 40,000 times while its
// warp waits. Here the work is the merge of two sorted lists, the row ends (row_offsets[1..]) and
// the nonzero indices 0 .. nnz - 1: each step multiplies one nonzero or closes one row, and every
// thread takes the same number of steps, finding where they start by one binary search along its
// diagonal (Merrill and Garland, SC'16). The block kernel walks the same path a tile per block,
// built in steps that each remove a cost which hub rows, spanning whole tiles, make the largest.
//
// Build and run:  make 148_spmv_merge_path_kernel && build/148_spmv_merge_path_kernel
//                 build/148_spmv_merge_path_kernel --scale 22 --rmat 0.57,0.19,0.19 --max-memory 8G
#ifndef SPMV_MERGE_PATH_KERNEL_148  // 149 takes this lesson's block-staged kernel
#define SPMV_MERGE_PATH_KERNEL_148
#include <vector>
#include "../common/binary_search.h"
// 143's lesson: the thread-per-row kernel, which 148 is checked and timed against.
#include "143_spmv_csr_kernel.cu"

// Merge-path steps per thread: enough that the search at its start is a small part of its work;
// the book's 4 x 4 example takes 4, so that its 12 steps are split between threads.
constexpr int kStepsPerThread = 16;
constexpr int kBookStepsPerThread = 4;

// Where diagonal d of the merge path of `rows` row ends and `nonzeros` nonzeros crosses it: the
// number of row ends taken before it (the rest of the d steps are nonzeros). Row end i, at
// row_end(i), is taken before nonzero j when it is not above j: the row has no entries from j on.
template <class RowEnd>
__host__ __device__ inline int rows_before_diagonal(int d, int rows, int nonzeros, RowEnd row_end) {
    return partition_point_index(d > nonzeros ? d - nonzeros : 0, d < rows ? d : rows,
                                 [&](int i) { return row_end(i) <= d - i - 1; });
}

__host__ __device__ inline int merge_path_rows_before(int d, const int* row_offsets, int num_rows,
                                                      int nnz) {
    return rows_before_diagonal(d, num_rows, nnz, [&](int i) { return row_offsets[i + 1]; });
}

// The CPU baseline, in the kernel's shape: the same walk along the path, all of it, one step
// after another. Each row's products are added in the order of its entries.
inline void merge_path_cpu(const HostCsr& a, const std::vector<float>& x, std::vector<float>& y) {
    const int path = a.num_rows + static_cast<int>(a.nnz());
    int i = 0, j = 0;
    float sum = 0.0f;
    for (int step = 0; step < path; ++step) {
        if (j < a.row_offsets[i + 1]) {
            sum += a.values[j] * x[a.col_idx[j]];
            ++j;
        } else {
            y[i] += sum;
            sum = 0.0f;
            ++i;
        }
    }
}

// Thread t walks the steps [t * K, (t + 1) * K) of the path. Closing row i adds this thread's
// part of it into y[i]: no other thread closes row i, so the add needs no atomic. The row still
// open at the end, if any, is left as a carry (its row and this thread's partial sum).
__host__ __device__ inline void merge_path_thread(int t, const int* row_offsets, const int* col_idx,
                                                  const float* values, const float* x, float* y,
                                                  int num_rows, int nnz, int steps, int* carry_row,
                                                  float* carry_sum) {
    const int path = num_rows + nnz;
    const int begin = t * steps, end = begin + steps < path ? begin + steps : path;
    int i = merge_path_rows_before(begin, row_offsets, num_rows, nnz);
    int j = begin - i;
    float sum = 0.0f;
    for (int step = begin; step < end; ++step) {
        if (j < row_offsets[i + 1]) {
            sum += values[j] * x[col_idx[j]];
            ++j;
        } else {
            y[i] += sum;
            sum = 0.0f;
            ++i;
        }
    }
    carry_row[t] = i;
    carry_sum[t] = sum;
}

// Thread t adds thread t's carry into its row; several carries may name one long row, so the add
// is an atomic. A second launch, because every carry must be known first.
__host__ __device__ inline void merge_path_carry_thread(int t, const int* carry_row,
                                                        const float* carry_sum, int num_rows,
                                                        float* y) {
    if (carry_row[t] < num_rows) atomic_add_shim(&y[carry_row[t]], carry_sum[t]);
}

__global__ void merge_path_kernel(int num_threads, const int* row_offsets, const int* col_idx,
                                  const float* values, const float* x, float* y, int num_rows,
                                  int nnz, int steps, int* carry_row, float* carry_sum) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads)
        merge_path_thread(t, row_offsets, col_idx, values, x, y, num_rows, nnz, steps, carry_row,
                          carry_sum);
}

__global__ void merge_path_carry_kernel(int num_threads, const int* carry_row,
                                        const float* carry_sum, int num_rows, float* y) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads) merge_path_carry_thread(t, carry_row, carry_sum, num_rows, y);
}

// The carries where the kernels run, one per thread of the path, and the steps of each thread.
struct MergePathCarries {
    MergePathCarries(const Here& here, const HostCsr& a, int steps_per_thread)
        : steps(steps_per_thread), row(here, threads(a, steps)), sum(here, threads(a, steps)) {}
    static size_t threads(const HostCsr& a, int steps) {
        return (static_cast<size_t>(a.num_rows) + a.nnz() + steps - 1) / steps;
    }
    int steps;
    DeviceArray<int> row;
    DeviceArray<float> sum;
};

// y += A * x: the path, then the carries, in stream order. Both kernels have a thread for each
// `steps` items of the path, in blocks of 256 threads, as many blocks as cover them.
inline void launch_spmv_merge_path(const Here& here, DeviceCsr& a, MergePathCarries& carries,
                                   const float* x, float* y) {
    const size_t path_threads = carries.row.size();
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((path_threads + threads - 1) / threads);
    here.launch(blocks, threads, merge_path_kernel, merge_path_thread, path_threads,
                a.row_offsets.data(), a.col_idx.data(), a.values.data(), x, y, a.num_rows, a.nnz(),
                carries.steps, carries.row.data(), carries.sum.data());
    here.launch(blocks, threads, merge_path_carry_kernel, merge_path_carry_thread, path_threads,
                carries.row.data(), carries.sum.data(), a.num_rows, y);
}

// The block-staged walk: blocks of kMergeThreads threads, each thread kMergeSteps steps of the
// path, so a block owns a tile of kMergeTile consecutive steps. 256 threads of 8 steps were the
// fastest of the shapes measured on an H200 (against 128 x 8, 128 x 12 and 128 x 16, in
// notes/ch14_spmv.md): against 128 x 8 a tile is twice as long, so there are half as many tile
// searches and global atomics, and each thread still walks 8 steps.
constexpr int kMergeThreads = 256;
constexpr int kMergeSteps = 8;
constexpr int kMergeTile = kMergeThreads * kMergeSteps;
constexpr int kMergeWarps = kMergeThreads / kWarpSize;

// The block kernel, in the five steps that the lesson takes, each keeping the ones before it,
// each a kernel of its own. Every step matters most at high skew, where hub rows of thousands of
// entries span whole tiles: there the first step's time was set by its shared memory, not by the
// gather from x.
//   staged         products staged in shared memory, each carry a shared atomic
//   conflict_free  products staged so that a warp's reads of one step hit 32 banks
//   warp_carries   carries summed over each warp by shuffles: no atomic in shared memory
//   registers      a tile inside one row summed in registers: no staging, no walk
//   streaming      what a tile reads once marked so, leaving the caches to x
// A tile's shared items: its rows + 1 row ends, then its products. rows + nonzeros is the tile's
// steps, so one array holds both, with room for the products' padding (product_slot).
union TileItem {
    int row_end;
    float product;
};
constexpr int kTileItems = kMergeTile + 1 + kMergeTile / kWarpSize;
// A tile's items, its row sums and a few words a warp: 17 KB, within the 48 KB that every GPU
// gives a block without opting in, so the tile is the same on a T4 as on an H200.
static_assert(sizeof(TileItem) * kTileItems + sizeof(float) * (kMergeTile + 1 + 2 * kMergeWarps) +
                      64 <= kSharedWithoutOptIn,
              "a merge-path tile fits the 48 KB that every GPU gives a block");

// What a thread's walk leaves: the row it started in, the row still open at its end (rows for
// the row that goes on past the tile) and its partial sum of that row.
struct TileCarry {
    int first_row, row;
    float sum;
};

inline int merge_path_tiles(int num_rows, int nnz) {
    return static_cast<int>((static_cast<long long>(num_rows) + nnz + kMergeTile - 1) / kMergeTile);
}

// Where tile t starts: the rows taken before its first diagonal. One thread per tile, plus one for
// the end of the last tile, so that tile t ends where tile t + 1 starts.
__host__ __device__ inline void merge_path_tile_start_thread(int t, const int* row_offsets,
                                                             int num_rows, int nnz,
                                                             int* tile_rows_before) {
    const long long diagonal = static_cast<long long>(t) * kMergeTile, path = num_rows + nnz;
    tile_rows_before[t] = merge_path_rows_before(
        static_cast<int>(diagonal < path ? diagonal : path), row_offsets, num_rows, nnz);
}

__global__ void merge_path_tile_start_kernel(int num_threads, const int* row_offsets, int num_rows,
                                             int nnz, int* tile_rows_before) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads)
        merge_path_tile_start_thread(t, row_offsets, num_rows, nnz, tile_rows_before);
}

// Where product k of a tile is staged: at k in step staged. Thread t walks the products from
// k = 8t - (the rows closed before it), so inside a hub row, where no row ends, step s of a warp
// reads k = 8 * lane + s: 32 addresses 8 words apart, in 4 of the 32 banks, an 8-way conflict
// that makes each read 8 shared-memory wavefronts. From step conflict_free on, one word is
// skipped after every 32, which moves each group of four lanes one bank on, so those reads hit
// 32 banks; the staging's writes, 32 consecutive k, still do. Where rows are short, the rows
// closed before each thread scatter k anyway, which is why the conflicts grew with the skew.
struct StagedSlot {
    __host__ __device__ int operator()(int k) const { return k; }
};
struct ConflictFreeSlot {
    __host__ __device__ int operator()(int k) const { return k + k / kWarpSize; }
};

// How a tile loads what it reads once (col_idx, values, row_offsets): plainly, or from step
// streaming on marked so (__ldcs: evicted first). At high skew the hub columns of x are gathered
// again and again, and L1 keeps them only if the stream of entries, each used once, does not
// push them out.
struct PlainLoad {
    template <class T>
    __host__ __device__ T operator()(const T* address) const { return *address; }
};
struct StreamingLoad {
    template <class T>
    __host__ __device__ T operator()(const T* address) const { return load_streaming(address); }
};

// A thread's walk: merge_path_thread's walk out of shared memory, its start found by the same
// search on the staged row ends. The end of the current row is kept in a register and each step's
// product is loaded before the step knows that it needs it, so the loads of a run of nonzeros do
// not wait for one another. A row that it closes gets this thread's part in row_sums; the row
// still open at its end is its carry.
template <class Slot>
__host__ __device__ inline TileCarry walk_tile(int thread, const TileItem* items, int rows,
                                               int nonzeros, float* row_sums, Slot slot) {
    const TileItem* products = items + rows + 1;
    const int steps = rows + nonzeros;
    const int begin = thread * kMergeSteps < steps ? thread * kMergeSteps : steps;
    const int end = begin + kMergeSteps < steps ? begin + kMergeSteps : steps;
    const int first_row =
        rows_before_diagonal(begin, rows, nonzeros, [&](int r) { return items[r].row_end; });
    TileCarry carry{first_row, first_row, 0.0f};
    int k = begin - first_row;
    int row_end = items[first_row].row_end;
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const float product = k < nonzeros ? products[slot(k)].product : 0.0f;
        if (begin + s < end) {
            if (k < row_end) {
                carry.sum += product;
                ++k;
            } else {
                row_sums[carry.row] = carry.sum;
                carry.sum = 0.0f;
                row_end = items[++carry.row].row_end;
            }
        }
    }
    return carry;
}

// Step warp_carries: the carries added without atomics. A thread that closes rows owes the first
// of them the carries of the threads before it that ended in that row. Those threads are a run of
// consecutive lanes, because a lane's row never decreases across the warp; so a scan segmented by
// row sums each run into its last lane (lanes d apart with the same row have only that row
// between them), and the thread takes the run that ends in the lane before it. A run that no lane
// before the thread began (none of them closed a row) goes on into the warps before: each warp
// leaves its last run's sum in shared memory, and the thread adds those of the warps before it,
// back to the nearest one that closed a row, where the run began. The last thread's run is the
// row left open, which y gets by one atomic. Inside a hub row all kMergeThreads carries name one
// address: as shared atomics they were a compare-and-swap loop each, retried while the others
// won; here they are a scan of five shuffle rounds a warp and a pass over the warps' sums.
template <class Cuda>
__host__ __device__ void add_carries_by_warps(Cuda& cuda, const TileCarry& carry, int rows,
                                              float* row_sums, float* warp_tail_sums,
                                              unsigned* warp_closers) {
    const int thread = cuda.threadIdx.x, lane = thread % kWarpSize, warp = thread / kWarpSize;
    float run_sum = carry.sum;
    UNROLL_ON_DEVICE
    for (int d = 1; d < kWarpSize; d *= 2) {
        const float earlier_sum = cuda.shfl_up_sync(kFullWarp, run_sum, d);
        const int earlier_row = cuda.shfl_up_sync(kFullWarp, carry.row, d);
        if (lane >= d && earlier_row == carry.row) run_sum += earlier_sum;
    }
    const float run_before = cuda.shfl_up_sync(kFullWarp, run_sum, 1);
    const unsigned closers = cuda.ballot_sync(kFullWarp, carry.row != carry.first_row);
    if (lane == kWarpSize - 1) {
        warp_tail_sums[warp] = run_sum;
        warp_closers[warp] = closers;
    }
    cuda.syncthreads();
    float from_earlier_warps = 0.0f;
    for (int w = warp - 1; w >= 0; --w) {
        from_earlier_warps += warp_tail_sums[w];
        if (warp_closers[w] != 0) break;
    }
    const bool run_began_in_earlier_warps = (closers & ((1u << lane) - 1)) == 0;
    if (carry.row != carry.first_row)
        row_sums[carry.first_row] += (lane > 0 ? run_before : 0.0f) +
                                     (run_began_in_earlier_warps ? from_earlier_warps : 0.0f);
    if (thread == kMergeThreads - 1)
        row_sums[rows] = run_sum + (closers == 0 ? from_earlier_warps : 0.0f);
}

// y += the tile's row sums, consecutive threads on consecutive rows, so that the accesses are
// coalesced. Rows row0 + 1 .. row0 + rows - 1 start and end inside this tile, so no other block
// touches them; row0 may have begun in earlier tiles and the open row row0 + rows goes on in
// later ones, so they get atomics: two global atomics a block, whatever its threads did. y + 0 is
// y, so a row that adds nothing is neither read nor written: at high skew most rows are empty.
// The test sum == 0 holds for -0 too and never for NaN, so a NaN still reaches y; the one
// difference from adding is that a y of -0 stays -0, where -0 + 0 gives +0, and the two are equal.
template <class Cuda>
__host__ __device__ void add_tile_rows(Cuda& cuda, const float* row_sums, int row0, int rows,
                                       int num_rows, float* y) {
    const int thread = cuda.threadIdx.x;
    for (int r = thread; r < rows; r += kMergeThreads) {
        const float sum = row_sums[r];
        if (sum == 0.0f) continue;
        if (r == 0)
            cuda.atomic_add(&y[row0], sum);
        else
            y[row0 + r] += sum;
    }
    if (thread == 0 && row0 + rows < num_rows && row_sums[rows] != 0.0f)
        cuda.atomic_add(&y[row0 + rows], row_sums[rows]);
}

// merge_path_thread's walk is balanced but not coalesced: the 32 threads of a warp read 32 runs
// of nonzeros that lie kStepsPerThread steps apart, so each load instruction touches many sectors.
// Here a block walks one tile, which closes the rows row0 .. row0 + rows - 1, multiplies the
// nonzeros nz0 .. nz0 + nonzeros - 1 and may leave the row row0 + rows open, in four parts:
// 1. Load. A thread loads the nonzeros k = thread, thread + kMergeThreads, ..., consecutive
//    threads at consecutive addresses, so every global load is coalesced; a tile has at most
//    kMergeTile nonzeros, so that is at most kMergeSteps of them, held in registers. It issues all
//    of their loads, and those of the tile's row ends, before it waits for any, and only then
//    gathers from x: a thread that waited for each load in turn would be bound by the latency,
//    not by the bandwidth.
// 2. Stage and walk. The row ends and the products go to shared memory, and after a barrier each
//    thread walks its steps of the tile out of it (walk_tile). Step registers: a tile inside one
//    row (at high skew most tiles are: a hub row of 100,000 entries spans 100,000 / kMergeTile of
//    them) has no row end to find, so it skips both, and each thread adds up its own products.
// 3. Carries. The partial sums of threads that end inside a row are added where that row is
//    summed (add_carries_by_warps; a shared atomic each in the first two steps).
// 4. Rows. After a barrier, y gets the tile's row sums (add_tile_rows).
// The threads cooperate, so the bodies take the cuda context of common/cooperative.cuh: the same
// code runs in the emulator.

// The tile of block `tile`: it closes the rows row0 .. row0 + rows - 1 and multiplies the
// nonzeros nz0 .. nz0 + nonzeros - 1.
struct Tile {
    int row0, rows, nz0, nonzeros;
};

__host__ __device__ inline Tile tile_of(int tile, const int* tile_rows_before, int num_rows,
                                        int nnz) {
    const int path = num_rows + nnz, d0 = tile * kMergeTile;
    const int d1 = path - d0 < kMergeTile ? path : d0 + kMergeTile;
    const int row0 = tile_rows_before[tile], rows = tile_rows_before[tile + 1] - row0;
    const int nz0 = d0 - row0;
    return {row0, rows, nz0, (d1 - row0 - rows) - nz0};
}

// A block's shared memory: the tile's items, its row sums, and a few words a warp.
struct TileShared {
    TileItem* items;
    float* row_sums;
    float* warp_tail_sums;
    unsigned* warp_closers;
};

template <class Cuda>
__host__ __device__ TileShared tile_shared(Cuda& cuda) {
    return {shared_array<TileItem>(cuda, kTileItems), shared_array<float>(cuda, kMergeTile + 1),
            shared_array<float>(cuda, kMergeWarps), shared_array<unsigned>(cuda, kMergeWarps)};
}

// 1. Load: every load issued before the first use; the products left in registers, the row ends
// staged. The end of the row left open is loaded too; where none is left open (the last tile),
// nnz stands in for it. A tile inside one row has no row end to load.
template <class Load, class Cuda>
__host__ __device__ void load_tile(Cuda& cuda, const Tile t, bool inside_one_row,
                                   const int* row_offsets, const int* col_idx,
                                   const float* values, const float* x, int num_rows, int nnz,
                                   TileItem* items, float (&product)[kMergeSteps], Load load) {
    const int thread = cuda.threadIdx.x;
    int column[kMergeSteps];
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const int k = s * kMergeThreads + thread;
        column[s] = k < t.nonzeros ? load(&col_idx[t.nz0 + k]) : 0;
        product[s] = k < t.nonzeros ? load(&values[t.nz0 + k]) : 0.0f;
    }
    int row_end[kMergeSteps + 1];
    UNROLL_ON_DEVICE
    for (int s = 0; s <= kMergeSteps; ++s) {
        const int r = s * kMergeThreads + thread;
        row_end[s] = !inside_one_row && r <= t.rows && t.row0 + r < num_rows
                         ? load(&row_offsets[t.row0 + r + 1])
                         : nnz;
    }
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s)
        if (s * kMergeThreads + thread < t.nonzeros) product[s] *= load_read_only(&x[column[s]]);
    UNROLL_ON_DEVICE
    for (int s = 0; s <= kMergeSteps; ++s) {
        const int r = s * kMergeThreads + thread;
        if (!inside_one_row && r <= t.rows) items[r].row_end = row_end[s] - t.nz0;
    }

}

// 2. Stage the products and walk the tile out of shared memory.
template <class Slot, class Cuda>
__host__ __device__ TileCarry stage_and_walk(Cuda& cuda, const Tile& t,
                                             const float (&product)[kMergeSteps],
                                             const TileShared& shared, Slot slot) {
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const int k = s * kMergeThreads + cuda.threadIdx.x;
        if (k < t.nonzeros) shared.items[t.rows + 1 + slot(k)].product = product[s];
    }
    cuda.syncthreads();
    return walk_tile(cuda.threadIdx.x, shared.items, t.rows, t.nonzeros, shared.row_sums, slot);
}

// 3. Carries, in the first two steps: each added where its row is summed, by a shared atomic,
// since several threads may end in one row; the open row's sum starts at 0.
template <class Cuda>
__host__ __device__ void add_carries_by_shared_atomics(Cuda& cuda, const TileCarry& carry,
                                                       int rows, float* row_sums) {
    if (cuda.threadIdx.x == 0) row_sums[rows] = 0.0f;
    cuda.syncthreads();
    cuda.atomic_add(&row_sums[carry.row], carry.sum);
}

// Steps staged and conflict_free, which differ in where the products are staged (Slot).
template <class Slot, class Cuda>
__host__ __device__ void merge_path_staged_block(Cuda& cuda, const int* tile_rows_before,
                                                 const int* row_offsets, const int* col_idx,
                                                 const float* values, const float* x, float* y,
                                                 int num_rows, int nnz) {
    const TileShared shared = tile_shared(cuda);
    const Tile t = tile_of(cuda.blockIdx.x, tile_rows_before, num_rows, nnz);
    float product[kMergeSteps];
    load_tile(cuda, t, false, row_offsets, col_idx, values, x, num_rows, nnz, shared.items,
              product, PlainLoad());
    const TileCarry carry = stage_and_walk(cuda, t, product, shared, Slot());
    add_carries_by_shared_atomics(cuda, carry, t.rows, shared.row_sums);
    cuda.syncthreads();  // 4. Rows.
    add_tile_rows(cuda, shared.row_sums, t.row0, t.rows, num_rows, y);
}

// Step warp_carries: the carries summed by shuffles, no shared atomic.
template <class Cuda>
__host__ __device__ void merge_path_warp_carries_block(Cuda& cuda, const int* tile_rows_before,
                                                       const int* row_offsets, const int* col_idx,
                                                       const float* values, const float* x,
                                                       float* y, int num_rows, int nnz) {
    const TileShared shared = tile_shared(cuda);
    const Tile t = tile_of(cuda.blockIdx.x, tile_rows_before, num_rows, nnz);
    float product[kMergeSteps];
    load_tile(cuda, t, false, row_offsets, col_idx, values, x, num_rows, nnz, shared.items,
              product, PlainLoad());
    const TileCarry carry = stage_and_walk(cuda, t, product, shared, ConflictFreeSlot());
    add_carries_by_warps(cuda, carry, t.rows, shared.row_sums, shared.warp_tail_sums,
                         shared.warp_closers);
    cuda.syncthreads();  // 4. Rows.
    add_tile_rows(cuda, shared.row_sums, t.row0, t.rows, num_rows, y);
}

// Steps registers and streaming, which differ in how the tile loads what it reads once (Load):
// a tile inside one row adds its products in registers, with no staging and no walk.
template <class Load, class Cuda>
__host__ __device__ void merge_path_registers_block(Cuda& cuda, const int* tile_rows_before,
                                                    const int* row_offsets, const int* col_idx,
                                                    const float* values, const float* x, float* y,
                                                    int num_rows, int nnz) {
    const TileShared shared = tile_shared(cuda);
    const Tile t = tile_of(cuda.blockIdx.x, tile_rows_before, num_rows, nnz);
    const bool inside_one_row = t.rows == 0;
    float product[kMergeSteps];
    load_tile(cuda, t, inside_one_row, row_offsets, col_idx, values, x, num_rows, nnz,
              shared.items, product, Load());
    TileCarry carry{0, 0, 0.0f};
    if (inside_one_row) {
        UNROLL_ON_DEVICE
        for (int s = 0; s < kMergeSteps; ++s) carry.sum += product[s];
    } else {
        carry = stage_and_walk(cuda, t, product, shared, ConflictFreeSlot());
    }
    add_carries_by_warps(cuda, carry, t.rows, shared.row_sums, shared.warp_tail_sums,
                         shared.warp_closers);
    cuda.syncthreads();  // 4. Rows.
    add_tile_rows(cuda, shared.row_sums, t.row0, t.rows, num_rows, y);
}

// The five steps' kernels.
__global__ void __launch_bounds__(kMergeThreads)
    merge_path_staged_kernel(const int* tile_rows_before, const int* row_offsets,
                             const int* col_idx, const float* values, const float* x, float* y,
                             int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_staged_block<StagedSlot>(cuda, tile_rows_before, row_offsets, col_idx, values, x,
                                        y, num_rows, nnz);
}

__global__ void __launch_bounds__(kMergeThreads)
    merge_path_conflict_free_kernel(const int* tile_rows_before, const int* row_offsets,
                                    const int* col_idx, const float* values, const float* x,
                                    float* y, int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_staged_block<ConflictFreeSlot>(cuda, tile_rows_before, row_offsets, col_idx,
                                              values, x, y, num_rows, nnz);
}

__global__ void __launch_bounds__(kMergeThreads)
    merge_path_warp_carries_kernel(const int* tile_rows_before, const int* row_offsets,
                                   const int* col_idx, const float* values, const float* x,
                                   float* y, int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_warp_carries_block(cuda, tile_rows_before, row_offsets, col_idx, values, x, y,
                                  num_rows, nnz);
}

__global__ void __launch_bounds__(kMergeThreads)
    merge_path_registers_kernel(const int* tile_rows_before, const int* row_offsets,
                                const int* col_idx, const float* values, const float* x, float* y,
                                int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_registers_block<PlainLoad>(cuda, tile_rows_before, row_offsets, col_idx, values,
                                          x, y, num_rows, nnz);
}

__global__ void __launch_bounds__(kMergeThreads)
    merge_path_streaming_kernel(const int* tile_rows_before, const int* row_offsets,
                                const int* col_idx, const float* values, const float* x, float* y,
                                int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_registers_block<StreamingLoad>(cuda, tile_rows_before, row_offsets, col_idx,
                                              values, x, y, num_rows, nnz);
}

// Where each tile starts, where the kernels run; refreshed by every product, as the search is
// part of the work.
struct MergePathTiles {
    MergePathTiles(const Here& here, const HostCsr& a)
        : count(merge_path_tiles(a.num_rows, a.nnz())),
          rows_before(here, static_cast<size_t>(count) + 1) {}
    int count;
    DeviceArray<int> rows_before;
};

using MergeTileKernel = void (*)(const int*, const int*, const int*, const float*, const float*,
                                float*, int, int);
using MergeTileBlock = void (*)(EmulatedCuda&, const int*, const int*, const int*, const float*,
                                const float*, float*, int, int);

// y += A * x, a tile per block: the tile starts (a thread for each, in blocks of 256 threads),
// then the tiles, by one step's kernel (its block body in the emulator), in stream order.
inline void launch_merge_path_tiles(const Here& here, DeviceCsr& a, MergePathTiles& tiles,
                                    const float* x, float* y, MergeTileKernel kernel,
                                    MergeTileBlock block) {
    const unsigned tile_threads = 256;
    const unsigned tile_blocks = (tiles.count + 1 + tile_threads - 1) / tile_threads;
    here.launch(tile_blocks, tile_threads, merge_path_tile_start_kernel,
                merge_path_tile_start_thread, tiles.count + 1, a.row_offsets.data(), a.num_rows,
                a.nnz(), tiles.rows_before.data());
    const size_t shared_bytes = SharedBytes()
                                    .add<TileItem>(kTileItems)
                                    .add<float>(kMergeTile + 1)
                                    .add<float>(kMergeWarps)
                                    .add<unsigned>(kMergeWarps)
                                    .total();
    const unsigned blocks = static_cast<unsigned>(tiles.count), threads = kMergeThreads;
    here.launch_blocks({blocks, threads, shared_bytes}, kernel, block, tiles.rows_before.data(),
                       a.row_offsets.data(), a.col_idx.data(), a.values.data(), x, y, a.num_rows,
                       a.nnz());
}

inline void launch_spmv_merge_path_staged(const Here& here, DeviceCsr& a, MergePathTiles& tiles,
                                          const float* x, float* y) {
    launch_merge_path_tiles(here, a, tiles, x, y, merge_path_staged_kernel,
                            merge_path_staged_block<StagedSlot, EmulatedCuda>);
}

inline void launch_spmv_merge_path_conflict_free(const Here& here, DeviceCsr& a,
                                                 MergePathTiles& tiles, const float* x,
                                                 float* y) {
    launch_merge_path_tiles(here, a, tiles, x, y, merge_path_conflict_free_kernel,
                            merge_path_staged_block<ConflictFreeSlot, EmulatedCuda>);
}

inline void launch_spmv_merge_path_warp_carries(const Here& here, DeviceCsr& a,
                                                MergePathTiles& tiles, const float* x, float* y) {
    launch_merge_path_tiles(here, a, tiles, x, y, merge_path_warp_carries_kernel,
                            merge_path_warp_carries_block<EmulatedCuda>);
}

inline void launch_spmv_merge_path_registers(const Here& here, DeviceCsr& a,
                                             MergePathTiles& tiles, const float* x, float* y) {
    launch_merge_path_tiles(here, a, tiles, x, y, merge_path_registers_kernel,
                            merge_path_registers_block<PlainLoad, EmulatedCuda>);
}

// The last step, streaming: the fastest, the block kernel that 149 takes.
inline void launch_spmv_merge_path_blocks(const Here& here, DeviceCsr& a, MergePathTiles& tiles,
                                          const float* x, float* y) {
    launch_merge_path_tiles(here, a, tiles, x, y, merge_path_streaming_kernel,
                            merge_path_registers_block<StreamingLoad, EmulatedCuda>);
}

// The five steps in the lesson's order, each under its name.
struct MergeTileStep {
    const char* name;
    void (*launch)(const Here&, DeviceCsr&, MergePathTiles&, const float*, float*);
};
const MergeTileStep kMergeTileSteps[] = {
    {"staged", launch_spmv_merge_path_staged},
    {"conflict_free", launch_spmv_merge_path_conflict_free},
    {"warp_carries", launch_spmv_merge_path_warp_carries},
    {"registers", launch_spmv_merge_path_registers},
    {"streaming_loads", launch_spmv_merge_path_blocks}};

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/148_spmv_merge_path_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, merge_path_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    const int steps = p.options.book_example() ? kBookStepsPerThread : kStepsPerThread;
    show_split(in.csr, steps);
    write_merge_path_figure(p.options, in.csr, steps);
    show_tiles(in.csr);

    std::vector<float> y_cpu = in.y0;
    merge_path_cpu(in.csr, in.x, y_cpu);
    DeviceCsr d(p.here, in.csr);
    MergePathCarries carries(p.here, in.csr, steps);
    MergePathTiles tiles(p.here, in.csr);
    const std::vector<float> y = spmv_on_device(p.here, in.x, in.y0, [&](const float* x, float* y) {
        launch_spmv_merge_path(p.here, d, carries, x, y);
    });
    std::vector<std::vector<float>> y_tile_steps;
    for (const MergeTileStep& step : kMergeTileSteps)
        y_tile_steps.push_back(spmv_on_device(p.here, in.x, in.y0, [&](const float* x, float* y) {
            step.launch(p.here, d, tiles, x, y);
        }));
    const std::vector<float> y_rows = spmv_on_device(p.here, launch_spmv_csr, in.csr, in.x, in.y0);
    const std::vector<float>& y_blocks = y_tile_steps.back();
    show_ys(in, {{"y", &y}, {"y_blocks", &y_blocks}, {"y_cpu", &y_cpu}});
    SelfCheck check;
    check_merge_path(p, in, steps, y_cpu, y, y_rows, y_tile_steps, check);
    compare_with_library(p, in, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, spmv_on_device(p.here, ones(in.csr.num_cols), zeros(in.csr.num_rows),
                                   [&](const float* x, float* y) {
                                       launch_spmv_merge_path(p.here, d, carries, x, y);
                                   })));
    return check.finish();
}
#endif
#endif  // SPMV_MERGE_PATH_KERNEL_148
