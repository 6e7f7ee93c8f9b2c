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

inline std::vector<float> merge_path_spmv(const Here& here, const HostCsr& a,
                                          const std::vector<float>& x, const std::vector<float>& y0,
                                          int steps = kStepsPerThread) {
    DeviceCsr d(here, a);
    MergePathCarries carries(here, a, steps);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_merge_path(here, d, carries, dx.data(), dy.data());
    return dy.download();
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

// The block kernel in the steps that the lesson takes, each keeping the ones before it. Every
// step matters most at high skew, where hub rows of thousands of entries span whole tiles: there
// the first version's time was set by its shared memory, not by the gather from x.
enum class MergeTile {
    staged,           // products staged in shared memory, each carry a shared atomic
    conflict_free,    // products staged so that a warp's reads of one step hit 32 banks
    warp_carries,     // carries summed over each warp by shuffles: no atomic in shared memory
    registers,        // a tile inside one row summed in registers: no staging, no walk
    streaming_loads,  // what a tile reads once marked so, leaving the caches to x
};
constexpr MergeTile kFastestMergeTile = MergeTile::streaming_loads;

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

// Step conflict_free: where product k of a tile is staged. Thread t walks the products from
// k = 8t - (the rows closed before it), so inside a hub row, where no row ends, step s of a warp
// reads k = 8 * lane + s: 32 addresses 8 words apart, in 4 of the 32 banks, an 8-way conflict
// that makes each read 8 shared-memory wavefronts. Skipping one word after every 32 moves each
// group of four lanes one bank on, so those reads hit 32 banks; the staging's writes, 32
// consecutive k, still do. Where rows are short, the rows closed before each thread scatter k
// anyway, which is why the conflicts grew with the skew.
template <MergeTile version>
__host__ __device__ inline int product_slot(int k) {
    return version >= MergeTile::conflict_free ? k + k / kWarpSize : k;
}

// Step streaming_loads: a load of what a tile reads once (col_idx, values, row_offsets), marked
// so (__ldcs: evicted first). At high skew the hub columns of x are gathered again and again, and
// L1 keeps them only if the stream of entries, each used once, does not push them out.
template <MergeTile version, class T>
__host__ __device__ inline T load_once(const T* address) {
    return version >= MergeTile::streaming_loads ? load_streaming(address) : *address;
}

// A thread's walk: merge_path_thread's walk out of shared memory, its start found by the same
// search on the staged row ends. The end of the current row is kept in a register and each step's
// product is loaded before the step knows that it needs it, so the loads of a run of nonzeros do
// not wait for one another. A row that it closes gets this thread's part in row_sums; the row
// still open at its end is its carry.
template <MergeTile version>
__host__ __device__ inline TileCarry walk_tile(int thread, const TileItem* items, int rows,
                                               int nonzeros, float* row_sums) {
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
        const float product = k < nonzeros ? products[product_slot<version>(k)].product : 0.0f;
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
// The threads cooperate, so the body takes the cuda context of common/cooperative.cuh: the same
// code runs in the emulator.
template <MergeTile version, class Cuda>
__host__ __device__ void merge_path_block(Cuda& cuda, const int* tile_rows_before,
                                          const int* row_offsets, const int* col_idx,
                                          const float* values, const float* x, float* y,
                                          int num_rows, int nnz) {
    TileItem* items = shared_array<TileItem>(cuda, kTileItems);
    float* row_sums = shared_array<float>(cuda, kMergeTile + 1);
    float* warp_tail_sums = shared_array<float>(cuda, kMergeWarps);
    unsigned* warp_closers = shared_array<unsigned>(cuda, kMergeWarps);
    const int tile = cuda.blockIdx.x, thread = cuda.threadIdx.x;
    const int path = num_rows + nnz, d0 = tile * kMergeTile;
    const int d1 = path - d0 < kMergeTile ? path : d0 + kMergeTile;
    const int row0 = tile_rows_before[tile], rows = tile_rows_before[tile + 1] - row0;
    const int nz0 = d0 - row0, nonzeros = (d1 - row0 - rows) - nz0;
    const bool inside_one_row = version >= MergeTile::registers && rows == 0;

    // 1. Load: every load issued before the first use. The end of the row left open is loaded
    // too; where none is left open (the last tile), nnz stands in for it.
    int column[kMergeSteps];
    float product[kMergeSteps];
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const int k = s * kMergeThreads + thread;
        column[s] = k < nonzeros ? load_once<version>(&col_idx[nz0 + k]) : 0;
        product[s] = k < nonzeros ? load_once<version>(&values[nz0 + k]) : 0.0f;
    }
    int row_end[kMergeSteps + 1];
    UNROLL_ON_DEVICE
    for (int s = 0; s <= kMergeSteps; ++s) {
        const int r = s * kMergeThreads + thread;
        row_end[s] = !inside_one_row && r <= rows && row0 + r < num_rows
                         ? load_once<version>(&row_offsets[row0 + r + 1])
                         : nnz;
    }
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s)
        if (s * kMergeThreads + thread < nonzeros) product[s] *= load_read_only(&x[column[s]]);
    UNROLL_ON_DEVICE
    for (int s = 0; s <= kMergeSteps; ++s) {
        const int r = s * kMergeThreads + thread;
        if (!inside_one_row && r <= rows) items[r].row_end = row_end[s] - nz0;
    }

    // 2. Stage and walk, or, inside one row, sum in registers.
    TileCarry carry{0, 0, 0.0f};
    if (inside_one_row) {
        UNROLL_ON_DEVICE
        for (int s = 0; s < kMergeSteps; ++s) carry.sum += product[s];
    } else {
        UNROLL_ON_DEVICE
        for (int s = 0; s < kMergeSteps; ++s) {
            const int k = s * kMergeThreads + thread;
            if (k < nonzeros) items[rows + 1 + product_slot<version>(k)].product = product[s];
        }
        cuda.syncthreads();
        carry = walk_tile<version>(thread, items, rows, nonzeros, row_sums);
    }
    // 3. Carries.
    if (version >= MergeTile::warp_carries) {
        add_carries_by_warps(cuda, carry, rows, row_sums, warp_tail_sums, warp_closers);
    } else {
        // The first version: each carry is added where its row is summed, by a shared atomic,
        // since several threads may end in one row; the open row's sum starts at 0.
        if (thread == 0) row_sums[rows] = 0.0f;
        cuda.syncthreads();
        cuda.atomic_add(&row_sums[carry.row], carry.sum);
    }
    // 4. Rows.
    cuda.syncthreads();
    add_tile_rows(cuda, row_sums, row0, rows, num_rows, y);
}

template <MergeTile version>
__global__ void __launch_bounds__(kMergeThreads)
    merge_path_block_kernel(const int* tile_rows_before, const int* row_offsets, const int* col_idx,
                            const float* values, const float* x, float* y, int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_block<version>(cuda, tile_rows_before, row_offsets, col_idx, values, x, y, num_rows,
                              nnz);
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

// y += A * x, a tile per block: the tile starts (a thread for each, in blocks of 256 threads),
// then the tiles, in stream order.
template <MergeTile version = kFastestMergeTile>
inline void launch_spmv_merge_path_blocks(const Here& here, DeviceCsr& a, MergePathTiles& tiles,
                                          const float* x, float* y) {
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
    here.launch_blocks({blocks, threads, shared_bytes},
                       merge_path_block_kernel<version>, merge_path_block<version, EmulatedCuda>,
                       tiles.rows_before.data(), a.row_offsets.data(), a.col_idx.data(),
                       a.values.data(), x, y, a.num_rows, a.nnz());
}

template <MergeTile version = kFastestMergeTile>
inline std::vector<float> merge_path_blocks_spmv(const Here& here, const HostCsr& a,
                                                 const std::vector<float>& x,
                                                 const std::vector<float>& y0) {
    DeviceCsr d(here, a);
    MergePathTiles tiles(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_merge_path_blocks<version>(here, d, tiles, dx.data(), dy.data());
    return dy.download();
}

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
    const std::vector<float> y = merge_path_spmv(p.here, in.csr, in.x, in.y0, steps);
    const std::vector<float> y_blocks = merge_path_blocks_spmv(p.here, in.csr, in.x, in.y0);
    SelfCheck check;
    check_merge_path(p, in, steps, y_cpu, y, y_blocks, check);
    check_tile_steps(p, in, y_cpu, y_blocks, check);
    time_merge_path(p, in.csr);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo,
            merge_path_spmv(p.here, in.csr, ones(in.csr.num_cols), zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // SPMV_MERGE_PATH_KERNEL_148
