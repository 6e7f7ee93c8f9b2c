// 144 (14.3) kernel: why CSR's thread-per-row reads are strided and COO's contiguous; two fixes.
// In step i, CSR thread t reads entry row_offsets[t] + i: a warp's reads lie a row apart and touch
// many 32-byte sectors; COO thread t reads entry t. ELL stored column-major (step i of consecutive
// rows is consecutive slots, paid for by padding) and one warp per row (lanes read a row's
// consecutive entries, then add by shuffles) make each step contiguous. A model counts the sectors,
// make ncu-sectors measures them (bench/load_probes.cu), and --scale adds a stride benchmark.
// Build and run:  make 144_coalescing_kernel && build/144_coalescing_kernel
//                 build/144_coalescing_kernel --scale 20 --skew 0.8
//                 build/144_coalescing_kernel --scale 20 --skew 0.3
//                 make ncu-sectors
#ifndef COALESCING_KERNEL_144  // 145, 150 and bench/load_probes.cu take its kernels, 146 ELL
#define COALESCING_KERNEL_144
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
#include "../common/host_threads.h"
#include "../common/sparse_host.h"
#include "../common/warp.h"
// 142's lesson: the COO kernel and its baseline, the contiguous reads that the fixes aim for
#include "142_spmv_coo_kernel.cu"
// 143's lesson: the CSR kernel and its baseline, the strided reads that the fixes remove
#include "143_spmv_csr_kernel.cu"

// Which element of its entry array each thread reads, step by step: a mapping of threads to
// entries says how many threads there are, for how many steps thread t is active (it stops
// after its last entry), and which element it reads in step i. Printed as a table on a small
// matrix (the notes' table for CSR is the first one); request_model.h sums it up per warp request.
constexpr long long kDone = -1;  // in a table: this thread has no more entries

// The chapter's CSR kernel: thread t walks its row's slice, one entry per step. Neighbouring
// threads start a whole row apart: strided.
class CsrThreadPerRow {
public:
    explicit CsrThreadPerRow(const std::vector<int>& row_offsets) : row_offsets_(row_offsets) {}
    size_t num_threads() const { return row_offsets_.empty() ? 0 : row_offsets_.size() - 1; }
    int length(size_t t) const { return row_offsets_[t + 1] - row_offsets_[t]; }
    long long element(size_t t, int i) const { return row_offsets_[t] + static_cast<long long>(i); }

private:
    const std::vector<int>& row_offsets_;
};

// The chapter's COO kernel: thread t reads entry t, once.
class CooThreadPerEntry {
public:
    explicit CooThreadPerEntry(size_t nnz) : nnz_(nnz) {}
    size_t num_threads() const { return nnz_; }
    int length(size_t) const { return 1; }
    long long element(size_t t, int) const { return static_cast<long long>(t); }

private:
    size_t nnz_;
};

// CSR with one warp per row: lane l of warp w reads entries l, l + 32, l + 64, ... of row w.
class CsrWarpPerRow {
public:
    explicit CsrWarpPerRow(const std::vector<int>& row_offsets) : row_offsets_(row_offsets) {}
    size_t num_threads() const {
        return row_offsets_.empty() ? 0 : kWarpSize * (row_offsets_.size() - 1);
    }
    int length(size_t t) const {
        const int row_length = row_offsets_[t / kWarpSize + 1] - row_offsets_[t / kWarpSize];
        const int lane = static_cast<int>(t % kWarpSize);
        return row_length > lane ? (row_length - lane + kWarpSize - 1) / kWarpSize : 0;
    }
    long long element(size_t t, int i) const {
        return row_offsets_[t / kWarpSize] + static_cast<long long>(t % kWarpSize) +
               static_cast<long long>(i) * kWarpSize;
    }

private:
    const std::vector<int>& row_offsets_;
};

// ELL stored column-major, one thread per row: thread t reads slot i * num_rows + t in step i,
// so in each step the warp reads consecutive slots. Only the row lengths are needed, so the
// pattern can be computed even where ELL's padding is too large to build.
class EllThreadPerRow {
public:
    explicit EllThreadPerRow(const std::vector<int>& nnz_per_row) : nnz_per_row_(nnz_per_row) {}
    size_t num_threads() const { return nnz_per_row_.size(); }
    int length(size_t t) const { return nnz_per_row_[t]; }
    long long element(size_t t, int i) const {
        return static_cast<long long>(i) * static_cast<long long>(nnz_per_row_.size()) +
               static_cast<long long>(t);
    }

private:
    const std::vector<int>& nnz_per_row_;
};

// reads[i][t]: the element thread t reads in step i, or kDone. It has as many steps as the
// busiest thread, so it is for small inputs only.
struct AccessTable {
    size_t num_threads = 0;
    std::vector<std::vector<long long>> reads;
    int num_steps() const { return static_cast<int>(reads.size()); }
};

template <class Mapping>
AccessTable access_table(const Mapping& m) {
    AccessTable table;
    table.num_threads = m.num_threads();
    int steps = 0;
    for (size_t t = 0; t < table.num_threads; ++t) steps = std::max(steps, m.length(t));
    table.reads.assign(steps, std::vector<long long>(table.num_threads, kDone));
    for (size_t t = 0; t < table.num_threads; ++t)
        for (int i = 0; i < m.length(t); ++i) table.reads[i][t] = m.element(t, i);
    return table;
}

// The notes' table for Fig. 14.1 and the CSR kernel, one thread per row: reads[i][t] is the
// index into values[] that thread t reads in step i.
const std::vector<std::vector<long long>> kNotesCsrAccessTable = {
    {0, 2, 5, 7}, {1, 3, 6, kDone}, {kDone, 4, kDone, kDone}};
// And the COO kernel's, one thread per entry: thread t reads values[t], all in one step.
const std::vector<std::vector<long long>> kNotesCooAccessTable = {{0, 1, 2, 3, 4, 5, 6, 7}};

// ELL: every row padded to the longest row's length and stored column-major, so that in step i
// the threads of consecutive rows read consecutive slots.

// A padding slot's column. The kernels never read one (each row stops at its own length), and
// a stray read would index x[-1], which compute-sanitizer reports, instead of adding a quiet 0.
constexpr int kEllPadding = -1;

// Slot (row, i), the i-th entry of `row`, lives at i * num_rows + row: column-major, so that the
// slots of one step i are consecutive across rows. nnz_per_row tells each row where to stop and
// tells real entries (explicit zeros included) from padding.
struct HostEll {
    int num_rows = 0;
    int num_cols = 0;
    int width = 0;  // slots per row: the longest row's length (or HYB's chosen width)
    std::vector<int> nnz_per_row;
    std::vector<int> col_idx;  // num_rows * width
    std::vector<float> values;
    size_t slot(int row, int i) const { return static_cast<size_t>(i) * num_rows + row; }
    size_t num_slots() const { return col_idx.size(); }
};

// ELL with a given width: each row's first `width` entries (in CSR order); the rest are left
// out, which is how HYB's ELL part is made.
inline HostEll ell_from_csr(const HostCsr& a, int width) {
    HostEll e;
    e.num_rows = a.num_rows;
    e.num_cols = a.num_cols;
    e.width = width;
    e.nnz_per_row.resize(a.num_rows);
    const size_t slots = static_cast<size_t>(a.num_rows) * width;
    e.col_idx.assign(slots, kEllPadding);
    e.values.assign(slots, 0.0f);
#pragma omp parallel for schedule(dynamic, 4096) if (slots >= kParallelSize)
    for (int r = 0; r < a.num_rows; ++r) {
        const int kept = std::min(width, a.row_offsets[r + 1] - a.row_offsets[r]);
        e.nnz_per_row[r] = kept;
        for (int i = 0; i < kept; ++i) {
            e.col_idx[e.slot(r, i)] = a.col_idx[a.row_offsets[r] + i];
            e.values[e.slot(r, i)] = a.values[a.row_offsets[r] + i];
        }
    }
    return e;
}

inline HostEll ell_from_csr(const HostCsr& a) {
    return ell_from_csr(a, max_row_length(a));
}

inline size_t ell_bytes(int num_rows, int width) {
    return 8 * static_cast<size_t>(num_rows) * width + 4 * static_cast<size_t>(num_rows);
}

// On a skewed matrix ELL pads a million rows to the length of one hub: terabytes. Past this
// many times the CSR's bytes a program does not build ELL, and says so; it never trims rows
// to make ELL fit, which would change the matrix.
constexpr double kEllPaddingLimit = 8.0;

inline double ell_to_csr_bytes(const HostCsr& a) {
    return static_cast<double>(ell_bytes(a.num_rows, max_row_length(a))) /
           static_cast<double>(csr_bytes(a));
}

inline bool ell_is_practical(const HostCsr& a) {
    return ell_to_csr_bytes(a) <= kEllPaddingLimit;
}

inline std::string readable_ratio(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, ratio < 100 ? "%.1f times" : "%.0f times", ratio);
    return text;
}

// ELL, where its padding is affordable; otherwise nothing, and ell_not_built says why.
inline std::optional<HostEll> ell_if_practical(const HostCsr& a) {
    if (!ell_is_practical(a)) return std::nullopt;
    return ell_from_csr(a);
}

inline std::string ell_not_built(const HostCsr& a) {
    return "ELL is not built: its padding would take " + readable_ratio(ell_to_csr_bytes(a)) +
           " the CSR's bytes";
}

// ELL's CPU baseline, in the kernel's shape: row by row, each row's slots in step order.
inline void spmv_ell_cpu(const HostEll& a, const std::vector<float>& x, std::vector<float>& y) {
    for (int row = 0; row < a.num_rows; ++row) {
        float sum = 0.0f;
        for (int i = 0; i < a.nnz_per_row[row]; ++i)
            sum += a.values[a.slot(row, i)] * x[a.col_idx[a.slot(row, i)]];
        y[row] += sum;
    }
}

// The kernels; 146, compiled as plain C++, takes ELL's baseline alone
#if defined(__CUDACC__) || defined(SUITE_EMULATOR_ONLY)
#include "../common/kernel_program.cuh"

// Each row's entry count, and the slots column-major, where the kernels run.
struct DeviceEll {
    DeviceEll(const Here& here, const HostEll& e)
        : num_rows(e.num_rows),
          nnz_per_row(here, e.nnz_per_row),
          col_idx(here, e.col_idx),
          values(here, e.values) {}
    int num_rows;
    DeviceArray<int> nnz_per_row, col_idx;
    DeviceArray<float> values;
};

// ELL, one thread per row. Slot (row, i) lives at i * num_rows + row, so in step i the threads of
// a warp, rows r .. r + 31, read 32 consecutive slots. The row is this thread's alone: a private
// sum and a plain += suffice. The slot index is a size_t: num_rows * width can pass 2^31.
__host__ __device__ inline void spmv_ell_thread(int row, int num_rows, const int* nnz_per_row,
                                                const int* col_idx, const float* values,
                                                const float* x, float* y) {
    float sum = 0.0f;
    for (int i = 0; i < nnz_per_row[row]; ++i) {
        const size_t slot = static_cast<size_t>(i) * num_rows + row;
        sum += values[slot] * x[col_idx[slot]];
    }
    y[row] += sum;
}

// One thread per row: num_threads is num_rows, which the body needs again as the column height.
__global__ void spmv_ell_kernel(int num_threads, int num_rows, const int* nnz_per_row,
                                const int* col_idx, const float* values, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_threads) spmv_ell_thread(row, num_rows, nnz_per_row, col_idx, values, x, y);
}

// The warp-per-row CPU baseline, in the kernel's shape: each row's 32 lane sums (lane l takes
// entries l, l + 32, ... of the row), then added as the shuffles add them, 16 lanes down, then
// 8, 4, 2 and 1, until lane 0 holds the row's sum.
inline void spmv_csr_warp_per_row_cpu(const HostCsr& a, const std::vector<float>& x,
                                      std::vector<float>& y) {
    for (int row = 0; row < a.num_rows; ++row) {
        float lane_sum[kWarpSize] = {};
        for (int k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k)
            lane_sum[(k - a.row_offsets[row]) % kWarpSize] += a.values[k] * x[a.col_idx[k]];
        for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
            for (int lane = 0; lane < offset; ++lane) lane_sum[lane] += lane_sum[lane + offset];
        y[row] += lane_sum[0];
    }
}

// CSR, one warp per row: lane l of warp w reads entries l, l + 32, ... of row w, so in each step
// the warp reads 32 consecutive entries. Lane partial sums are added by shuffles (16, 8, 4, 2, 1
// lanes down), after which lane 0 holds the row's sum and alone writes y[row]: no atomics. The
// lanes cooperate, so the body takes the cuda context of common/cooperative.cuh, whose shuffle is
// __shfl_down_sync on the GPU and a meeting of the warp's fibers in emulation. Blocks hold whole
// warps, so a warp past the last row leaves whole and every shuffle sees all 32 lanes.
template <class Cuda>
__host__ __device__ void spmv_csr_warp_per_row_lane(Cuda& cuda, int num_rows,
                                                    const int* row_offsets, const int* col_idx,
                                                    const float* values, const float* x, float* y) {
    const size_t thread = static_cast<size_t>(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x;
    const size_t row = thread / kWarpSize;
    const int lane = cuda.threadIdx.x % kWarpSize;
    if (row >= static_cast<size_t>(num_rows)) return;
    const int begin = row_offsets[row], end = row_offsets[row + 1];
    if (begin == end) return;  // y + 0 is y: an empty row is neither read nor written
    // Lane 0 reads y[row] before the row's entries, not after them, so that its wait overlaps
    // theirs: each row's work is a chain of waits (its bounds, its columns, x), and a row of
    // Graph500's mean length gives a warp one or two rounds of it.
    const float y_row = lane == 0 ? y[row] : 0.0f;
    float sum = 0.0f;
    for (int k = begin + lane; k < end; k += kWarpSize)
        sum += values[k] * x[col_idx[k]];
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0) y[row] = y_row + sum;
}

__global__ void spmv_csr_warp_per_row_kernel(int num_rows, const int* row_offsets,
                                             const int* col_idx, const float* values,
                                             const float* x, float* y) {
    DeviceCuda cuda;
    spmv_csr_warp_per_row_lane(cuda, num_rows, row_offsets, col_idx, values, x, y);
}
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must hold whole warps");

// The stride benchmark: thread t reads element t * stride, taken modulo the array's length and
// shifted by the number of wraps, so that pass p reads p, p + stride, p + 2 * stride, ... and
// the passes together read every element once, whatever the stride (a power of two).
__host__ __device__ inline size_t strided_index(size_t t, int stride, int log2_length) {
    const size_t i = t * static_cast<size_t>(stride);
    return (i & ((size_t{1} << log2_length) - 1)) + (i >> log2_length);
}

// The data are zeros, so the store never happens; the compiler cannot know that, so the load
// stays, and only the loads reach memory.
__global__ void strided_read_kernel(const float* data, int stride, int log2_length, float* sink) {
    const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= (size_t{1} << log2_length)) return;
    const float v = data[strided_index(t, stride, log2_length)];
    if (v != 0.0f) *sink = v;
}

// y += A * x: one thread per row, in blocks of 256 threads, as many blocks as cover the rows.
inline void launch_spmv_ell(const Here& here, DeviceEll& a, const float* x, float* y) {
    const unsigned threads = 256;
    const unsigned blocks = (a.num_rows + threads - 1) / threads;
    here.launch(blocks, threads, spmv_ell_kernel, spmv_ell_thread, a.num_rows, a.num_rows,
                a.nnz_per_row.data(), a.col_idx.data(), a.values.data(), x, y);
}

// y += A * x: one warp per row, in blocks of 256 threads (eight rows a block), as many blocks
// as cover the rows.
inline void launch_spmv_csr_warp_per_row(const Here& here, DeviceCsr& a, const float* x, float* y) {
    const unsigned threads = 256, rows_per_block = threads / kWarpSize;
    const unsigned blocks = (a.num_rows + rows_per_block - 1) / rows_per_block;
    here.launch_blocks({blocks, threads, 0}, spmv_csr_warp_per_row_kernel,
                       spmv_csr_warp_per_row_lane<EmulatedCuda>, a.num_rows, a.row_offsets.data(),
                       a.col_idx.data(), a.values.data(), x, y);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/144_coalescing_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, coalescing_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    const HostCoo coo = sorted_by_row(in.coo);
    SelfCheck check;

    std::printf(
        "(1) which entry each thread reads, step by step, and the warp requests that "
        "follow\n");
    show_reads_by_step(in.csr);
    const RequestModel model = model_requests(in.csr);
    show_request_model(in.csr, model);
    check_request_model(p, in.csr, model, check);

    std::printf("(2) the fixes: one warp per row, and ELL stored column-major\n");
    const std::optional<HostEll> ell = ell_if_practical(in.csr);
    show_fixes(in.csr, ell);
    write_access_figure(p.options, in.csr, ell);
    if (in.csr.nnz() >= kAnnouncedSize) announce("multiplying by each mapping's kernel");
    const std::vector<SpmvRun> runs = {
        spmv_run(p.here, "CSR thread-per-row kernel", launch_spmv_csr, spmv_csr_cpu, in.csr, in.x,
                 in.y0),
        spmv_run(p.here, "COO thread-per-nonzero kernel", launch_spmv_coo, spmv_coo_cpu, coo, in.x,
                 in.y0),
        spmv_run(p.here, "CSR warp-per-row kernel", launch_spmv_csr_warp_per_row,
                 spmv_csr_warp_per_row_cpu, in.csr, in.x, in.y0),
        ell ? spmv_run(p.here, "ELL thread-per-row kernel", launch_spmv_ell, spmv_ell_cpu, *ell,
                       in.x, in.y0)
            : SpmvRun{"ELL thread-per-row kernel", {}, {}, ell_not_built(in.csr)}};
    check_runs(p, in, runs, check);
    compare_with_library(p, in, coo, ell, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, spmv_on_device(p.here, launch_spmv_csr_warp_per_row, in.csr,
                                   ones(in.csr.num_cols), zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__ || SUITE_EMULATOR_ONLY
#endif  // COALESCING_KERNEL_144
