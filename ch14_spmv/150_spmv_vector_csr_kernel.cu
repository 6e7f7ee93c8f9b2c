// 150 (14.3) kernel: vector CSR, a group of G lanes per row, G chosen from the matrix's facts.
// 143 gives a row one thread, whose reads lie a row apart; 144 gives it a whole warp, which idles
// 27 of its lanes on a row of 5 entries. Between them, G lanes (1 to 32) share a row: in each step
// they read G consecutive entries, add their partial sums by shuffles of width G, and a warp holds
// 32 / G consecutive rows, whose gathers from x share sectors where their columns lie together.
// G is chosen from the row lengths' mean and spread and from how much of x neighbouring rows
// share; at --scale on a GPU every G is timed beside the choice and cuSPARSE.
// Build and run:  make 150_spmv_vector_csr_kernel && build/150_spmv_vector_csr_kernel
//                 build/150_spmv_vector_csr_kernel --scale 22 --max-memory 8G
//                 build/150_spmv_vector_csr_kernel --matrix data/1138_bus.mtx
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "chapter_inputs.h"

// The group sizes: powers of two that divide the warp, so that a group never straddles two warps
// and a shuffle of width G stays inside it.
constexpr int kGroupSizes[] = {1, 2, 4, 8, 16, 32};

template <class Each>
void for_each_group_size(Each&& each) {
    each(std::integral_constant<int, 1>());
    each(std::integral_constant<int, 2>());
    each(std::integral_constant<int, 4>());
    each(std::integral_constant<int, 8>());
    each(std::integral_constant<int, 16>());
    each(std::integral_constant<int, 32>());
}

// The CPU baseline, in the kernel's shape: for each row its G lane sums (lane l takes entries
// l, l + G, ... of the row), then added as the shuffles add them, G / 2 lanes down, then G / 4,
// ..., 1, until lane 0 holds the row's sum.
inline void spmv_csr_vector_cpu(const HostCsr& a, int group_size, const std::vector<float>& x,
                                std::vector<float>& y) {
    for (int row = 0; row < a.num_rows; ++row) {
        float lane_sum[kWarpSize] = {};
        for (int k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k)
            lane_sum[(k - a.row_offsets[row]) % group_size] += a.values[k] * x[a.col_idx[k]];
        for (int offset = group_size / 2; offset > 0; offset /= 2)
            for (int lane = 0; lane < offset; ++lane) lane_sum[lane] += lane_sum[lane + offset];
        y[row] += lane_sum[0];
    }
}

// Group g of the grid, lanes g * G .. g * G + G - 1, owns row g. Lane l of the group reads entries
// l, l + G, ... of the row, so each step of the group reads G consecutive entries; the shuffles'
// mask names the group's lanes alone and their width is G, so no shuffle reads another group's
// sum and each group may leave on its own (past the last row, or at an empty one) without
// stalling the others. After log2(G) shuffles lane 0 holds the row's sum and alone writes
// y[row]: no atomics. G = 1 is 143's thread per row, G = 32 144's warp per row.
template <int G, class Cuda>
__host__ __device__ void spmv_csr_vector_lane(Cuda& cuda, int num_rows, const int* row_offsets,
                                              const int* col_idx, const float* values,
                                              const float* x, float* y) {
    static_assert(G >= 1 && G <= kWarpSize && kWarpSize % G == 0, "G must divide the warp");
    const size_t thread = static_cast<size_t>(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x;
    const size_t row = thread / G;
    const int warp_lane = cuda.threadIdx.x % kWarpSize, lane = warp_lane % G;
    if (row >= static_cast<size_t>(num_rows)) return;
    const int begin = row_offsets[row], end = row_offsets[row + 1];
    if (begin == end) return;  // y + 0 is y: an empty row is neither read nor written
    // Lane 0 reads y[row] before the row's entries, so that its wait overlaps theirs.
    const float y_row = lane == 0 ? y[row] : 0.0f;
    float sum = 0.0f;
    for (int k = begin + lane; k < end; k += G) sum += values[k] * x[col_idx[k]];
    const unsigned group_mask = (kFullWarp >> (kWarpSize - G)) << (warp_lane - lane);
    for (int offset = G / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(group_mask, sum, offset, G);
    if (lane == 0) y[row] = y_row + sum;
}

template <int G>
__global__ void spmv_csr_vector_kernel(int num_rows, const int* row_offsets, const int* col_idx,
                                       const float* values, const float* x, float* y) {
    DeviceCuda cuda;
    spmv_csr_vector_lane<G>(cuda, num_rows, row_offsets, col_idx, values, x, y);
}
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must hold whole warps");

// What the choice reads off the matrix, in one pass over its rows.
struct RowFacts {
    double mean = 0, cv = 0;    // the row lengths' mean, and their standard deviation / mean
    double longest_over_mean = 0;  // the longest row's length over the mean's
    double shared_sectors = 0;  // of the entries after the first row, the share whose x sector
                                // the row before also reads
};

// How much of x neighbouring rows share. x is read in 32-byte sectors of 8 floats; entry
// (r, c) reads sector c / 8. It counts as shared when row r - 1 reads that sector too: a warp of
// 32 / G rows then fetches it once for several rows, from the same load or from L1. Each sector
// remembers the last row that read it, so the pass costs one int per sector and one visit per
// entry.
inline RowFacts row_facts(const HostCsr& a) {
    RowFacts f;
    if (a.num_rows == 0) return f;
    std::vector<int> last_reader(static_cast<size_t>(a.num_cols) / 8 + 1, -1);
    double squares = 0;
    size_t shared = 0, after_first = 0;
    int longest = 0;
    for (int row = 0; row < a.num_rows; ++row) {
        const int begin = a.row_offsets[row], end = a.row_offsets[row + 1];
        squares += static_cast<double>(end - begin) * (end - begin);
        longest = std::max(longest, end - begin);
        if (row > 0) {
            for (int k = begin; k < end; ++k) shared += last_reader[a.col_idx[k] / 8] == row - 1;
            after_first += end - begin;
        }
        for (int k = begin; k < end; ++k) last_reader[a.col_idx[k] / 8] = row;
    }
    f.mean = static_cast<double>(a.nnz()) / a.num_rows;
    const double variance = std::fmax(0.0, squares / a.num_rows - f.mean * f.mean);
    f.cv = f.mean > 0 ? std::sqrt(variance) / f.mean : 0;
    f.longest_over_mean = f.mean > 0 ? longest / f.mean : 0;
    f.shared_sectors = after_first > 0 ? static_cast<double>(shared) / after_first : 0;
    return f;
}

// The rule's constants, fitted to every G timed on an H200 at scale 22 (notes/ch14_spmv.md,
// "Vector CSR: G lanes a row"). On the 5- and 7-point Poisson matrices one lane a row was
// fastest (0.070 and 0.086 ms; 4 lanes 0.134 and 0.137). On R-MAT, 16 entries a row: 8 lanes at
// CV 0.25 and 1.9, 16 at CV 6.2 (the longest row 2,485 mean rows long), and the whole
// warp where the longest row is 10,004 (Graph500), 30,988 (a = 0.70) and 180,140 (a = 0.80)
// mean rows long.
// kSharedSectorsForOneLane: from this share on, neighbouring rows read x together.
// kShortRowForOneLane: rows of up to this many entries (mean * (1 + CV)) keep a lane's loop short.
// kHubMeanRows: from a longest row this many mean rows long on, that row's group finishes last,
//   and rows want every lane of a warp; between 2,485 (32 lanes 15% slower than 16) and 10,004
//   (32 lanes 40% faster than 16).
// kEntriesPerLane: a mean row gives each lane this many products, two loads in flight a lane.
// kCvPerExtraMeanRow: each CV of this much sizes the group for one more mean row, since the rows
//   a standard deviation above the mean keep their warp waiting. The rule gives 16 lanes at CV
//   0.25 and 1.9 (4% slower than 8) and 16 at 6.2; at 6, CV 6.2 would get 32 lanes, 15% slower.
constexpr double kSharedSectorsForOneLane = 0.5;
constexpr double kShortRowForOneLane = 8.0;
constexpr double kHubMeanRows = 5000;
constexpr double kEntriesPerLane = 2.0;
constexpr double kCvPerExtraMeanRow = 8.0;

struct GroupChoice {
    int group_size = 1;
    std::string reason;
};

// The rule. Where neighbouring rows share their x sectors and rows are short, one lane a
// row wins: a warp's 32 rows gather x together, and the strided reads of values and col_idx are
// few and land in sectors that the next steps use. Where one row is thousands of mean rows long,
// its group walks it alone after the others are done: the whole warp shortens that walk 32
// times. Otherwise the group gives a mean row two products a lane, and grows with the spread of
// the row lengths, the next power of two, at most the warp.
inline GroupChoice choose_group_size(const RowFacts& f) {
    GroupChoice choice;
    if (f.shared_sectors >= kSharedSectorsForOneLane &&
        f.mean * (1 + f.cv) <= kShortRowForOneLane) {
        choice.reason =
            "neighbouring rows share their x sectors and rows are short: one lane a "
            "row puts 32 neighbouring rows in a warp, whose gathers coincide";
        return choice;
    }
    if (f.longest_over_mean >= kHubMeanRows) {
        choice.group_size = kWarpSize;
        choice.reason = "the longest row is " + fixed_text(f.longest_over_mean, 0) +
                        " mean rows long (from " + fixed_text(kHubMeanRows, 0) +
                        " on, its group finishes last): a whole warp a row";
        return choice;
    }
    const double lanes = f.mean / kEntriesPerLane * (1 + f.cv / kCvPerExtraMeanRow);
    while (choice.group_size < kWarpSize && choice.group_size < lanes) choice.group_size *= 2;
    choice.reason = "lanes for a mean row at " + fixed_text(kEntriesPerLane, 0) +
                    " products a lane, times (1 + CV / " + fixed_text(kCvPerExtraMeanRow, 0) +
                    ") = " + fixed_text(lanes, 1) +
                    ", the next power of two up to the warp's 32";
    return choice;
}

// y += A * x: G lanes a row, in blocks of 256 threads (256 / G rows a block), as many blocks as
// cover the rows.
template <int G>
inline void launch_spmv_csr_vector(const Here& here, DeviceCsr& a, const float* x, float* y) {
    const unsigned threads = 256, rows_per_block = threads / G;
    const unsigned blocks = (a.num_rows + rows_per_block - 1) / rows_per_block;
    here.launch_blocks({blocks, threads, 0}, spmv_csr_vector_kernel<G>,
                       spmv_csr_vector_lane<G, EmulatedCuda>, a.num_rows, a.row_offsets.data(),
                       a.col_idx.data(), a.values.data(), x, y);
}

// The same for a group size known only when the program runs: the template of that size.
inline void launch_spmv_csr_vector(const Here& here, DeviceCsr& a, int group_size, const float* x,
                                   float* y) {
    for_each_group_size([&](auto g) {
        if (decltype(g)::value == group_size)
            launch_spmv_csr_vector<decltype(g)::value>(here, a, x, y);
    });
}

inline std::vector<float> csr_vector_spmv(const Here& here, const HostCsr& a, int group_size,
                                          const std::vector<float>& x,
                                          const std::vector<float>& y0) {
    DeviceCsr d(here, a);
    DeviceArray<float> dx(here, x), dy(here, y0);
    launch_spmv_csr_vector(here, d, group_size, dx.data(), dy.data());
    return dy.download();
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/150_spmv_vector_csr_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, vector_csr_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    const RowFacts facts = row_facts(in.csr);
    const GroupChoice choice = choose_group_size(facts);
    show_choice(facts, choice);
    show_groups(in.csr, choice.group_size);

    SelfCheck check;
    check_every_group_size(p, in, choice.group_size, check);
    time_group_sizes(p, in.csr, choice.group_size);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, csr_vector_spmv(p.here, in.csr, choice.group_size, ones(in.csr.num_cols),
                                    zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
