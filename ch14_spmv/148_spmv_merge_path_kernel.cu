// 14.5 (load balance), kernel: CSR SpMV split by merge path, equal work per thread at any skew.
// 143 gives each thread a row, so the thread of a 40,000-entry row loops 40,000 times while
// its warp waits. Here the work is the merge of two sorted lists, the row ends (row_offsets[1..])
// and the nonzero indices 0 .. nnz - 1: each step either multiplies one nonzero or closes one
// row, and the path has num_rows + nnz steps in all. Each thread takes the same number of steps,
// finding where its share starts by one binary search along its diagonal (Merrill and Garland,
// SC'16). A thread that closes a row writes that y entry alone; the part of a row that it leaves
// open is its carry, added by a second, tiny kernel with an atomic, since a long row's pieces
// come from several threads.
//
// That per-thread walk is balanced but not coalesced: the 32 threads of a warp read 32 runs of
// nonzeros that lie 16 steps apart, so each load instruction touches many sectors. The second
// kernel below walks the same path a block at a time. The block's threads first copy the row
// ends and the products (value * x[column]) of the block's stretch of the path into shared
// memory, side by side, so every global load is coalesced; then each thread walks its steps out
// of shared memory. The carries stay in shared memory too, so a block issues one atomic for the
// row that it leaves open and one for the row that it starts in, whatever its threads did.
//
// Build and run:  make 148_spmv_merge_path_kernel && build/148_spmv_merge_path_kernel
//                 build/148_spmv_merge_path_kernel --scale 22 --rmat 0.57,0.19,0.19 --max-memory 8G
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>
#include "143_spmv_csr_kernel.cu"

// Merge-path steps per thread: enough that the search at its start is a small part of its work;
// the book's 4 x 4 example takes 4, so that its 12 steps are split between threads.
constexpr int kStepsPerThread = 16;
constexpr int kBookStepsPerThread = 4;

// Where diagonal d of the merge path crosses it: the number of row ends taken before it (the
// rest of the d steps are nonzeros). A row end row_offsets[i + 1] is taken before nonzero j when
// it is not above j: the row has no more entries from j on.
__host__ __device__ inline int merge_path_rows_before(int d, const int* row_offsets, int num_rows,
                                                      int nnz) {
    int lo = d > nnz ? d - nnz : 0, hi = d < num_rows ? d : num_rows;
    while (lo < hi) {
        const int pivot = lo + (hi - lo) / 2;
        if (row_offsets[pivot + 1] <= d - pivot - 1)
            lo = pivot + 1;
        else
            hi = pivot;
    }
    return lo;
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

// Thread t adds thread t's carry into its row; several carries may name one long row.
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
    tile_rows_before[t] = merge_path_rows_before(static_cast<int>(diagonal < path ? diagonal : path),
                                                 row_offsets, num_rows, nnz);
}

__global__ void merge_path_tile_start_kernel(int num_threads, const int* row_offsets, int num_rows,
                                             int nnz, int* tile_rows_before) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads)
        merge_path_tile_start_thread(t, row_offsets, num_rows, nnz, tile_rows_before);
}

// One block per tile. The tile closes the rows row0 .. row1 - 1 and multiplies the nonzeros
// nz0 .. nz1 - 1; row1 may be left open. Phase 1 stages the tile's row ends and products in
// shared memory (consecutive threads, consecutive addresses). A tile has at most kMergeTile
// nonzeros, so a thread stages at most kMergeSteps of them: it issues all of their loads before
// it waits for any, then all of their gathers from x, since a load's latency, not the bandwidth,
// is what a thread that waits for each load in turn is bound by. Phase 2 is the per-thread walk of
// merge_path_thread, reading shared memory; the end of the current row is kept in a register and
// each step's product is loaded before the step knows that it needs it, so the loads of a run of
// nonzeros do not wait for one another. A thread that closes a row records its part in
// row_sums, and its carry is added there after a barrier (a shared atomic: several threads may
// carry into one row). Phase 3 adds row_sums into y, coalesced. Rows row0 + 1 .. row1 - 1 start
// and end inside this tile, so no other block touches them. Row row0 may have begun in earlier
// tiles and row1 goes on in later ones; they get atomics. The threads cooperate, so the body
// takes the cuda context of common/cooperative.cuh: the same code runs in the emulator.
template <class Cuda>
__host__ __device__ void merge_path_block_body(Cuda& cuda, const int* tile_rows_before,
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
    int lo = begin > nonzeros ? begin - nonzeros : 0, hi = begin < rows ? begin : rows;
    while (lo < hi) {
        const int pivot = lo + (hi - lo) / 2;
        if (row_ends[pivot] <= nz0 + begin - pivot - 1)
            lo = pivot + 1;
        else
            hi = pivot;
    }
    int i = lo, k = begin - lo;
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
    merge_path_block_kernel(const int* tile_rows_before, const int* row_offsets,
                            const int* col_idx, const float* values, const float* x, float* y,
                            int num_rows, int nnz) {
    DeviceCuda cuda;
    merge_path_block_body(cuda, tile_rows_before, row_offsets, col_idx, values, x, y, num_rows,
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
                       merge_path_block_kernel, merge_path_block_body<EmulatedCuda>,
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

// Each thread's share, as the rows and nonzeros that its steps touch: equal steps, whatever the
// row lengths. Computed with the same search that the kernel runs.
struct ThreadShare {
    int first_row, rows_closed, nonzeros;
};

inline std::vector<ThreadShare> merge_path_shares(const HostCsr& a, int steps) {
    std::vector<ThreadShare> shares;
    const int nnz = a.nnz(), path = a.num_rows + nnz;
    for (int begin = 0; begin < path; begin += steps) {
        const int end = std::min(begin + steps, path);
        const int i0 = merge_path_rows_before(begin, a.row_offsets.data(), a.num_rows, nnz);
        const int i1 = merge_path_rows_before(end, a.row_offsets.data(), a.num_rows, nnz);
        shares.push_back({i0, i1 - i0, (end - i1) - (begin - i0)});
    }
    return shares;
}

inline void show_split(const HostCsr& a, int steps) {
    const std::vector<ThreadShare> shares = merge_path_shares(a, steps);
    print_wrapped("merge path of " + counted(a.num_rows, "row end") + " and " +
                  counted(a.nnz(), "nonzero") + ": " + counted(shares.size(), "thread") + " of " +
                  std::to_string(steps) + " steps each (the last may have fewer)");
    int longest = 0;
    for (int r = 0; r < a.num_rows; ++r)
        longest = std::max(longest, a.row_offsets[r + 1] - a.row_offsets[r]);
    size_t most = 0;
    for (const ThreadShare& s : shares) most = std::max(most, static_cast<size_t>(s.nonzeros));
    print_wrapped("the longest row has " + counted(longest, "nonzero") +
                  "; 143 gives it to one thread. Here no thread multiplies more than " +
                  counted(most, "nonzero") + ".");
    if (shares.size() > 12) return;
    for (size_t t = 0; t < shares.size(); ++t)
        std::printf("  thread %zu: starts in row %d, closes %s, multiplies %s\n", t,
                    shares[t].first_row, counted(shares[t].rows_closed, "row").c_str(),
                    counted(shares[t].nonzeros, "nonzero").c_str());
}

// The properties that make the split fair and the sum right, then y itself.
inline void check_merge_path(const KernelProgram& p, const HostCoo& coo, const HostCsr& a,
                             int steps, SelfCheck& check) {
    const std::vector<ThreadShare> shares = merge_path_shares(a, steps);
    bool fair = true;
    long rows = 0, nonzeros = 0;
    for (size_t t = 0; t < shares.size(); ++t) {
        rows += shares[t].rows_closed;
        nonzeros += shares[t].nonzeros;
        fair =
            fair && (t + 1 == shares.size() || shares[t].rows_closed + shares[t].nonzeros == steps);
    }
    check.claim("every thread but the last takes exactly " + std::to_string(steps) +
                    " steps, and together they close every row once and multiply every nonzero "
                    "once",
                fair && rows == a.num_rows && nonzeros == static_cast<long>(a.nnz()));
    const std::vector<float> x = lesson_x(a.num_cols), y0 = lesson_y0(a.num_rows);
    const SpmvReference reference = spmv_reference(coo, x, y0);
    const std::vector<float> y = merge_path_spmv(p.here, a, x, y0, steps);
    if (printable(a)) {
        print_array("y = A*x + y0", y, 12);
        print_array("reference", reference.y, 12);
    }
    std::printf("\n");
    check.claim(std::string("y from the ") + p.here.name() +
                    " merge-path kernel matches the double reference within float32 rounding",
                spmv_matches(y, reference));
    check.claim("it equals 143's thread-per-row y within the same bound",
                spmv_matches(csr_spmv(p.here, a, x, y0), reference));
    check.claim("y from the " + std::string(p.here.name()) +
                    " block-staged merge path (" +
                    counted(merge_path_tiles(a.num_rows, a.nnz()), "tile") + " of " +
                    std::to_string(kMergeTile) + " steps) matches the reference within the same bound",
                spmv_matches(merge_path_blocks_spmv(p.here, a, x, y0), reference));
}

// Against 143's kernel and cuSPARSE's two CSR algorithms, all on the same arrays; the bytes are
// the least that any of them moves: the CSR arrays, x once, y read and written once.
inline void time_merge_path(const KernelProgram& p, const HostCsr& a) {
    const Here& here = p.here;
    DeviceCsr d(here, a);
    MergePathCarries carries(here, a, kStepsPerThread);
    DeviceArray<float> dx(here, lesson_x(a.num_cols)), dy(here, lesson_y0(a.num_rows));
    const double bytes =
        8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + 4.0 * a.num_cols + 8.0 * a.num_rows;
    TimingTable table(p, "148", p.options.skew,
                      "bytes: the CSR arrays, x once, y read and written once");
    MergePathTiles tiles(here, a);
    const double per_thread_ms =
        table.time("csr_merge_path_per_thread", "CSR, merge path, per thread (148)", bytes, [&] {
            launch_spmv_merge_path(here, d, carries, dx.data(), dy.data());
        });
    const double merge_ms =
        table.time("csr_merge_path", "CSR, merge path, staged by blocks (148)", bytes,
                   [&] { launch_spmv_merge_path_blocks(here, d, tiles, dx.data(), dy.data()); });
    const double row_ms = table.time("csr_thread_per_row", "CSR, thread per row (143)", bytes,
                                     [&] { launch_spmv_csr(here, d, dx.data(), dy.data()); });
    table.ratio("staged by blocks / per thread", merge_ms / per_thread_ms,
                "staging by blocks is faster");
    table.ratio("merge path / thread per row", merge_ms / row_ms, "the merge path is faster");
    for (const auto& [key, label, algorithm] :
         {std::tuple{"cusparse_csr_alg1", "cuSPARSE CSR SpMV, ALG1", CUSPARSE_SPMV_CSR_ALG1},
          std::tuple{"cusparse_csr_alg2", "cuSPARSE CSR SpMV, ALG2", CUSPARSE_SPMV_CSR_ALG2}}) {
        CusparseSpmv library(a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(),
                             d.col_idx.data(), d.values.data(), dx.data(), dy.data(), algorithm);
        const double library_ms = table.time(key, label, bytes, [&] { library.run(); });
        table.ratio(std::string("merge path / ") + label, merge_ms / library_ms,
                    "the merge path is faster");
    }
    std::printf("\n");
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "148 (14.5) kernel: SpMV by merge path, equal work per thread",
            {"make 148_spmv_merge_path_kernel && build/148_spmv_merge_path_kernel",
             "build/148_spmv_merge_path_kernel --scale 22 --rmat 0.57,0.19,0.19 --max-memory 8G"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_memory({48, 100, 900e6}));
    const HostCoo coo = spmv_input(p.options);
    const HostCsr a = csr_for_lesson(coo);
    const int steps = p.options.book_example() ? kBookStepsPerThread : kStepsPerThread;
    show_split(a, steps);
    std::printf("\n");
    SelfCheck check;
    check_merge_path(p, coo, a, steps, check);
    if (p.on_gpu() && p.options.scale > 0 &&
        cusparse_refusal(a.num_rows, a.num_cols, a.nnz()).empty())
        time_merge_path(p, a);
    if (!p.options.book_example())
        check.end_with(
            spmv_result_line(coo, merge_path_spmv(p.here, a, ones(a.num_cols), zeros(a.num_rows))));
    return check.finish();
}
#endif
