// 150 (14.3) kernel: vector CSR, a group of G lanes per row, G chosen from the row lengths.
// 143 gives a row one thread, whose reads lie a row apart; 144 gives it a whole warp, which idles
// 27 of its lanes on a row of 5 entries. Between them, G lanes (1 to 32) share a row: in each step
// they read G consecutive entries, add their partial sums by shuffles of width G, and a warp holds
// 32 / G consecutive rows, whose gathers from x share sectors where their columns lie together.
// The rule, in one sentence that the timings can check: a whole warp a row when the longest row
// is 5,000 mean rows long or more, else one lane when the mean row has at most 8 entries, else 16
// lanes. At --scale on a GPU every G is timed beside the choice and cuSPARSE.
// Build and run:  make 150_spmv_vector_csr_kernel && build/150_spmv_vector_csr_kernel
//                 build/150_spmv_vector_csr_kernel --scale 22 --max-memory 8G
//                 build/150_spmv_vector_csr_kernel --matrix data/1138_bus.mtx
#include <string>
#include <type_traits>
#include <vector>
// 144's lesson: the warp-per-row kernel, which is G = 32, and with it 143's thread per row
#include "144_coalescing_kernel.cu"

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
// y[row]: no atomics. G = 1 is 143's thread per row; G = 32 is 144's warp per row, whose kernel
// the launch takes.
template <int G, class Cuda>
__host__ __device__ void spmv_csr_vector_lane(Cuda& cuda, int num_rows, const int* row_offsets,
                                              const int* col_idx, const float* values,
                                              const float* x, float* y) {
    static_assert(G >= 1 && G < kWarpSize && kWarpSize % G == 0, "G must divide the warp");
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

// What the rule reads off the matrix, in one pass over its rows.
struct RowFacts {
    double mean = 0;               // the mean row length
    double longest_over_mean = 0;  // the longest row's length over the mean's
};

inline RowFacts row_facts(const HostCsr& a) {
    RowFacts f;
    if (a.num_rows == 0 || a.nnz() == 0) return f;
    f.mean = static_cast<double>(a.nnz()) / a.num_rows;
    f.longest_over_mean = max_row_length(a) / f.mean;
    return f;
}

// The rule's constants, read off every G timed on an H200 at scale 22
// (notes/bench/sweep-scale22-20261202-1432.csv). The 5- and 7-point Poisson matrices, rows of 5
// and 7 entries, ran fastest at one lane (0.071 and 0.088 ms; two lanes 0.108 and 0.115): a
// warp's 32 neighbouring rows gather x together, and a lane's loop is short. R-MAT rows of 16
// entries on the mean ran fastest at 8 or 16 lanes (16 within 5% of 8) while the longest row was
// at most 2,485 mean rows long, where 16 beat 8 by 29%; from 10,004 mean rows on (Graph500,
// a = 0.70, 0.80) at 32, 40% faster than 16 on Graph500: that row's group finishes last, and the
// whole warp shortens its walk 32 times.
constexpr int kShortMeanRow = 8;
constexpr int kHubMeanRows = 5000;
constexpr int kMiddleGroupSize = 16;

struct GroupChoice {
    int group_size = 1;
    std::string reason;
};

inline GroupChoice choose_group_size(const RowFacts& f) {
    if (f.longest_over_mean >= kHubMeanRows)
        return {kWarpSize, "the longest row is " + with_separators(kHubMeanRows) +
                               " mean rows long or more: a whole warp a row"};
    if (f.mean <= kShortMeanRow)
        return {1, "the mean row has at most " + std::to_string(kShortMeanRow) +
                       " entries: one lane a row"};
    return {kMiddleGroupSize, "no row " + with_separators(kHubMeanRows) +
                                  " mean rows long, and a mean row of more than " +
                                  std::to_string(kShortMeanRow) + " entries: " +
                                  std::to_string(kMiddleGroupSize) + " lanes a row"};
}

// y += A * x: G lanes a row, in blocks of 256 threads (256 / G rows a block), as many blocks as
// cover the rows; at G = 32, 144's warp per row.
template <int G>
inline void launch_spmv_csr_vector(const Here& here, DeviceCsr& a, const float* x, float* y) {
    if constexpr (G == kWarpSize) {
        launch_spmv_csr_warp_per_row(here, a, x, y);
    } else {
        const unsigned threads = 256, rows_per_block = threads / G;
        const unsigned blocks = (a.num_rows + rows_per_block - 1) / rows_per_block;
        here.launch_blocks({blocks, threads, 0}, spmv_csr_vector_kernel<G>,
                           spmv_csr_vector_lane<G, EmulatedCuda>, a.num_rows,
                           a.row_offsets.data(), a.col_idx.data(), a.values.data(), x, y);
    }
}

// The launch of a group size known only when the program runs: the template of that size.
using CsrLaunch = void (*)(const Here&, DeviceCsr&, const float*, float*);

inline CsrLaunch csr_vector_launch(int group_size) {
    CsrLaunch launch = nullptr;
    for_each_group_size([&](auto g) {
        if (decltype(g)::value == group_size) launch = launch_spmv_csr_vector<decltype(g)::value>;
    });
    return launch;
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

    std::vector<SpmvRun> runs;
    for (int g : kGroupSizes) {
        announce_emulation(p, static_cast<size_t>(in.csr.num_rows) * g,
                           "SpMV with " + counted(g, "lane") + " a row");
        std::vector<float> y_cpu = in.y0;
        spmv_csr_vector_cpu(in.csr, g, in.x, y_cpu);
        runs.push_back({"G = " + std::to_string(g) + " kernel",
                        spmv_on_device(p.here, csr_vector_launch(g), in.csr, in.x, in.y0), y_cpu,
                        ""});
    }
    show_chosen_ys(in, runs, choice.group_size);
    SelfCheck check;
    check_every_group_size(p, in, runs, check);
    compare_with_library(p, in, choice.group_size, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            in.coo, spmv_on_device(p.here, csr_vector_launch(choice.group_size), in.csr,
                                   ones(in.csr.num_cols), zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
