// 148 (14.5) kernel: CSR SpMV split by merge path, equal work per thread at any skew.
// 143 gives each thread a row, so the thread of a 40,000-entry row loops 40,000 times while its
// warp waits. Here the work is the merge of two sorted lists, the row ends (row_offsets[1..]) and
// the nonzero indices 0 .. nnz - 1: each step multiplies one nonzero or closes one row, and every
// thread takes the same number of steps, finding where they start by one binary search along its
// diagonal (Merrill and Garland, SC'16). The second kernel walks the same path a block at a time.
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

// y += A * x: the path, then the carries, in stream order.
inline void launch_spmv_merge_path(const Here& here, DeviceCsr& a, MergePathCarries& carries,
                                   const float* x, float* y) {
    const size_t threads = carries.row.size();
    here.launch(threads, merge_path_kernel, merge_path_thread, a.row_offsets.data(),
                a.col_idx.data(), a.values.data(), x, y, a.num_rows, a.nnz(), carries.steps,
                carries.row.data(), carries.sum.data());
    here.launch(threads, merge_path_carry_kernel, merge_path_carry_thread, carries.row.data(),
                carries.sum.data(), a.num_rows, y);
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
// path, so a block owns a tile of kMergeTile consecutive steps.
constexpr int kMergeThreads = 128;
constexpr int kMergeSteps = 8;
constexpr int kMergeTile = kMergeThreads * kMergeSteps;

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

// merge_path_thread's walk is balanced but not coalesced: the 32 threads of a warp read 32 runs
// of nonzeros that lie 16 steps apart, so each load instruction touches many sectors. Here a
// block walks one tile, which closes the rows row0 .. row1 - 1 and multiplies the nonzeros
// nz0 .. nz1 - 1; row1 may be left open. Phase 1 stages the tile's row ends and products
// (value * x[column]) in shared memory, consecutive threads at consecutive addresses, so every
// global load is coalesced. A tile has at most kMergeTile nonzeros, so a thread stages at most
// kMergeSteps of them: it issues all of their loads before it waits for any, then all of their
// gathers from x, since a load's latency, not the bandwidth, is what a thread that waits for each
// load in turn is bound by. Phase 2 is merge_path_thread's walk out of shared memory, each
// thread's start found by the same search on the staged row ends; the end of the current row is
// kept in a register and each step's product is loaded before the step knows that it needs it,
// so the loads of a run of nonzeros do not wait for one another. A thread that closes a row
// records its part in row_sums, and its carry is added there after a barrier (a shared atomic:
// several threads may carry into one row). Phase 3 adds row_sums into y, coalesced. Rows
// row0 + 1 .. row1 - 1 start and end inside this tile, so no other block touches them; row0 may
// have begun in earlier tiles and row1 goes on in later ones, so they get atomics: one block
// issues two global atomics, whatever its threads did. The threads cooperate, so the body takes
// the cuda context of common/cooperative.cuh: the same code runs in the emulator.
template <class Cuda>
__host__ __device__ void merge_path_block(Cuda& cuda, const int* tile_rows_before,
                                          const int* row_offsets, const int* col_idx,
                                          const float* values, const float* x, float* y,
                                          int num_rows, int nnz) {
    int* row_ends = shared_array<int>(cuda, kMergeTile + 1);
    float* products = shared_array<float>(cuda, kMergeTile);
    float* row_sums = shared_array<float>(cuda, kMergeTile);
    float* open_row_sum = shared_array<float>(cuda, 1);
    const int tile = cuda.blockIdx.x, thread = cuda.threadIdx.x;
    const int path = num_rows + nnz;
    const int d0 = tile * kMergeTile;
    const int d1 = path - d0 < kMergeTile ? path : d0 + kMergeTile;
    const int row0 = tile_rows_before[tile], row1 = tile_rows_before[tile + 1];
    const int nz0 = d0 - row0, rows = row1 - row0, nonzeros = (d1 - row1) - nz0;

    for (int i = thread; i <= rows; i += kMergeThreads)
        row_ends[i] = row0 + i < num_rows ? row_offsets[row0 + i + 1] : nnz;
    int column[kMergeSteps];
    float value[kMergeSteps];
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const int k = s * kMergeThreads + thread;
        if (k < nonzeros) {
            column[s] = col_idx[nz0 + k];
            value[s] = values[nz0 + k];
        }
    }
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const int k = s * kMergeThreads + thread;
        if (k < nonzeros) products[k] = value[s] * load_read_only(&x[column[s]]);
    }
    if (thread == 0) *open_row_sum = 0.0f;
    cuda.syncthreads();

    const int steps = rows + nonzeros;
    const int begin = thread * kMergeSteps < steps ? thread * kMergeSteps : steps;
    const int end = begin + kMergeSteps < steps ? begin + kMergeSteps : steps;
    int i = rows_before_diagonal(begin, rows, nonzeros, [&](int r) { return row_ends[r] - nz0; });
    int k = begin - i;
    int row_end = row_ends[i];
    float sum = 0.0f;
    UNROLL_ON_DEVICE
    for (int s = 0; s < kMergeSteps; ++s) {
        const float product = k < nonzeros ? products[k] : 0.0f;
        if (begin + s < end) {
            if (nz0 + k < row_end) {
                sum += product;
                ++k;
            } else {
                row_sums[i] = sum;
                sum = 0.0f;
                row_end = row_ends[++i];
            }
        }
    }
    cuda.syncthreads();
    cuda.atomic_add(i < rows ? &row_sums[i] : open_row_sum, sum);
    cuda.syncthreads();

    for (int r = thread; r < rows; r += kMergeThreads) {
        if (r == 0)
            cuda.atomic_add(&y[row0], row_sums[0]);
        else
            y[row0 + r] += row_sums[r];
    }
    if (thread == 0 && row1 < num_rows) cuda.atomic_add(&y[row1], *open_row_sum);
}

__global__ void __launch_bounds__(kMergeThreads)
    merge_path_block_kernel(const int* tile_rows_before, const int* row_offsets, const int* col_idx,
                            const float* values, const float* x, float* y, int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_block(cuda, tile_rows_before, row_offsets, col_idx, values, x, y, num_rows, nnz);
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

// y += A * x, a tile per block: the tile starts, then the tiles, in stream order.
inline void launch_spmv_merge_path_blocks(const Here& here, DeviceCsr& a, MergePathTiles& tiles,
                                          const float* x, float* y) {
    here.launch(tiles.count + 1, merge_path_tile_start_kernel, merge_path_tile_start_thread,
                a.row_offsets.data(), a.num_rows, a.nnz(), tiles.rows_before.data());
    const size_t shared_bytes = SharedBytes()
                                    .add<int>(kMergeTile + 1)
                                    .add<float>(kMergeTile)
                                    .add<float>(kMergeTile)
                                    .add<float>(1)
                                    .total();
    here.launch_blocks({static_cast<unsigned>(tiles.count), kMergeThreads, shared_bytes},
                       merge_path_block_kernel, merge_path_block<EmulatedCuda>,
                       tiles.rows_before.data(), a.row_offsets.data(), a.col_idx.data(),
                       a.values.data(), x, y, a.num_rows, a.nnz());
}

inline std::vector<float> merge_path_blocks_spmv(const Here& here, const HostCsr& a,
                                                 const std::vector<float>& x,
                                                 const std::vector<float>& y0) {
    DeviceCsr d(here, a);
    MergePathTiles tiles(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_merge_path_blocks(here, d, tiles, dx.data(), dy.data());
    return dy.download();
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/148_spmv_merge_path_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, merge_path_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    const int steps = p.options.book_example() ? kBookStepsPerThread : kStepsPerThread;
    show_split(in.csr, steps);

    std::vector<float> y_cpu = in.y0;
    merge_path_cpu(in.csr, in.x, y_cpu);
    const std::vector<float> y = merge_path_spmv(p.here, in.csr, in.x, in.y0, steps);
    const std::vector<float> y_blocks = merge_path_blocks_spmv(p.here, in.csr, in.x, in.y0);
    SelfCheck check;
    check_merge_path(p, in, steps, y_cpu, y, y_blocks, check);
    time_merge_path(p, in.csr);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo,
            merge_path_spmv(p.here, in.csr, ones(in.csr.num_cols), zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // SPMV_MERGE_PATH_KERNEL_148
