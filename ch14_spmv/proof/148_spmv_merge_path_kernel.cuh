// What 148 prints, checks and times around its lesson (148_spmv_merge_path_kernel.cu): each
// thread's share of the path and the block kernel's tiles, the claims about the split and about
// every version's y, and the timings of every version against 143's kernel and cuSPARSE's two
// CSR algorithms.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/figure_data.h"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "../regular_formats.h"

inline ProgramDescription merge_path_program() {
    return ProgramDescription(
               "148 (14.5) kernel: SpMV by merge path, equal work per thread",
               {"make 148_spmv_merge_path_kernel && build/148_spmv_merge_path_kernel",
                "build/148_spmv_merge_path_kernel --scale 22 --rmat 0.57,0.19,0.19 --max-memory 8G"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_figure_data(
            "the merge path of Fig. 14.1, each thread's share and, step by step, the row end or "
            "the nonzero that it takes")
        .with_memory({48, 100, 900e6});
}

// Each thread's share, as the rows and nonzeros that its steps touch: equal steps, whatever the
// row lengths. Computed with the same search that the kernel runs.
struct ThreadShare {
    int first_row, rows_closed, nonzeros;
};

inline std::vector<ThreadShare> merge_path_shares(const HostCsr& a, int steps) {
    const int nnz = a.nnz(), path = a.num_rows + nnz;
    const long long threads = (static_cast<long long>(path) + steps - 1) / steps;
    std::vector<ThreadShare> shares(static_cast<size_t>(threads));
    // Each share is two searches of its own: millions of them at scale 22, on every core.
#pragma omp parallel for if (shares.size() >= kParallelSize)
    for (long long t = 0; t < threads; ++t) {
        const int begin = static_cast<int>(t * steps), end = std::min(begin + steps, path);
        const int i0 = merge_path_rows_before(begin, a.row_offsets.data(), a.num_rows, nnz);
        const int i1 = merge_path_rows_before(end, a.row_offsets.data(), a.num_rows, nnz);
        shares[t] = {i0, i1 - i0, (end - i1) - (begin - i0)};
    }
    return shares;
}

// The shares cover the path: every row closed once, every nonzero multiplied once, and each
// share but the last exactly `steps` long.
inline bool shares_cover_the_path(const HostCsr& a, int steps) {
    const std::vector<ThreadShare> shares = merge_path_shares(a, steps);
    long rows = 0, nonzeros = 0;
    for (size_t t = 0; t < shares.size(); ++t) {
        rows += shares[t].rows_closed;
        nonzeros += shares[t].nonzeros;
        if (t + 1 < shares.size() && shares[t].rows_closed + shares[t].nonzeros != steps)
            return false;
    }
    return rows == a.num_rows && nonzeros == static_cast<long>(a.nnz());
}

inline void show_split(const HostCsr& a, int steps) {
    const std::vector<ThreadShare> shares = merge_path_shares(a, steps);
    print_wrapped("merge path of " + counted(a.num_rows, "row end") + " and " +
                  counted(a.nnz(), "nonzero") + ": " + counted(shares.size(), "thread") + " of " +
                  std::to_string(steps) + " steps each (the last may have fewer)");
    size_t most = 0;
    for (const ThreadShare& s : shares) most = std::max(most, static_cast<size_t>(s.nonzeros));
    print_wrapped("the longest row has " + counted(max_row_length(a), "nonzero") +
                  "; 143 gives it to one thread. Here no thread multiplies more than " +
                  counted(most, "nonzero") + ".");
    if (shares.size() <= 12)
        for (size_t t = 0; t < shares.size(); ++t)
            std::printf("  thread %zu: starts in row %d, closes %s, multiplies %s\n", t,
                        shares[t].first_row, counted(shares[t].rows_closed, "row").c_str(),
                        counted(shares[t].nonzeros, "nonzero").c_str());
    std::printf("\n");
}

// --figure-data: the path of Fig. 14.1 as the split cuts it. Each thread starts where
// merge_path_shares (the kernel's own search) puts it, and takes its steps by
// merge_path_thread's rule: nonzero j while j is inside row i, else row i's end.
inline void write_merge_path_figure(const ProgramOptions& options, const HostCsr& a, int steps) {
    if (!wants_figure_data(options)) return;
    JsonWriter figure = begin_figure_data(options, "148");
    figure.field("row_offsets", a.row_offsets).field("col_idx", a.col_idx);
    figure.field("values", a.values).field("num_rows", a.num_rows).field("nnz", a.nnz());
    figure.field("steps_per_thread", steps).key("threads").begin_array();
    const std::vector<ThreadShare> shares = merge_path_shares(a, steps);
    for (size_t t = 0; t < shares.size(); ++t) {
        int row = shares[t].first_row, nonzero = static_cast<int>(t) * steps - row;
        figure.begin_object().field("first_row", row).field("first_nonzero", nonzero);
        figure.field("rows_closed", shares[t].rows_closed).field("nonzeros", shares[t].nonzeros);
        figure.key("steps").begin_array();
        for (int s = 0; s < shares[t].rows_closed + shares[t].nonzeros; ++s) {
            const bool closes_row = nonzero >= a.row_offsets[row + 1];
            figure.begin_object().field("row", row).field("nonzero", nonzero);
            figure.field("takes", closes_row ? "row_end" : "nonzero").end();
            closes_row ? ++row : ++nonzero;
        }
        figure.end().end();
    }
    figure.end();
    write_figure_data(options, figure);
}

// The block kernel's steps, in the lesson's order, as they are checked and timed: each with its
// name in the code, its timing: name and its label. The last is the fastest, csr_merge_path.
template <class Each>
void for_each_tile_step(Each&& each) {
    using Step = MergeTile;
    each(std::integral_constant<Step, Step::staged>(), "staged", "csr_merge_path_staged",
         "merge path by blocks: staged, shared atomics");
    each(std::integral_constant<Step, Step::conflict_free>(), "conflict_free",
         "csr_merge_path_conflict_free", "  + products staged without bank conflicts");
    each(std::integral_constant<Step, Step::warp_carries>(), "warp_carries",
         "csr_merge_path_warp_carries", "  + carries summed per warp by shuffles");
    each(std::integral_constant<Step, Step::registers>(), "registers", "csr_merge_path_registers",
         "  + tiles inside one row summed in registers");
    each(std::integral_constant<Step, Step::streaming_loads>(), "streaming_loads",
         "csr_merge_path", "  + streaming loads: CSR, merge path (148)");
}

// The block kernel's tiles, and how many lie inside one row: those are the ones that the
// registers step sums without shared memory. Computed with the kernel's own search.
inline void show_tiles(const HostCsr& a) {
    const int tiles = merge_path_tiles(a.num_rows, a.nnz());
    int inside_one_row = 0, rows_before = 0;
    const long long path = static_cast<long long>(a.num_rows) + a.nnz();
    for (int t = 0; t < tiles; ++t) {
        const long long end = std::min(path, static_cast<long long>(t + 1) * kMergeTile);
        const int rows_at_end = merge_path_rows_before(static_cast<int>(end), a.row_offsets.data(),
                                                       a.num_rows, a.nnz());
        inside_one_row += rows_at_end == rows_before;
        rows_before = rows_at_end;
    }
    print_wrapped("the block kernel: " + counted(tiles, "tile") + " of " +
                  std::to_string(kMergeTile) + " steps (" + std::to_string(kMergeThreads) +
                  " threads of " + std::to_string(kMergeSteps) + " steps each); " +
                  counted(inside_one_row, "tile") +
                  " inside one row, which the registers step sums without shared memory");
    std::printf("\n");
}

// The split's fairness, then y: the per-thread kernel's, the block kernel's fastest version's and
// the CPU baseline's, each held to the double reference's float32 bound (the carries add a long
// row's pieces in another order than the row loop does), and 143's thread-per-row y beside them.
inline void check_merge_path(const KernelProgram& p, const SpmvLessonInput& in, int steps,
                             const std::vector<float>& y_cpu, const std::vector<float>& y,
                             const std::vector<float>& y_blocks, SelfCheck& check) {
    const HostCsr& a = in.csr;
    check.claim("every thread but the last takes exactly " + std::to_string(steps) +
                    " steps, and together they close every row once and multiply every nonzero "
                    "once",
                shares_cover_the_path(a, steps));
    const SpmvReference& reference = in.reference();
    if (printable(a)) {
        print_array("y", y, 8);
        print_array("y_blocks", y_blocks, 8);
        print_array("y_cpu", y_cpu, 8);
    }
    std::printf("\n");
    check.claim("the CPU baseline's y is within float32 rounding of the double reference",
                spmv_matches(y_cpu, reference));
    claim_kernel_matches_baseline(check, std::string("the ") + p.here.name() + " merge-path kernel",
                                  y, y_cpu, reference);
    check.claim("it equals 143's thread-per-row y within the same bound",
                spmv_matches(csr_spmv(p.here, a, in.x, in.y0), reference));
}

// Every step of the block kernel against the CPU baseline: the last step's y is y_blocks, the
// earlier steps run here, where the kernels run.
inline void check_tile_steps(const KernelProgram& p, const SpmvLessonInput& in,
                             const std::vector<float>& y_cpu, const std::vector<float>& y_blocks,
                             SelfCheck& check) {
    const SpmvReference& reference = in.reference();
    const std::string tiles = counted(merge_path_tiles(in.csr.num_rows, in.csr.nnz()), "tile");
    for_each_tile_step([&](auto step, const char* name, const char*, const char*) {
        constexpr MergeTile version = decltype(step)::value;
        const std::vector<float> y = version == kFastestMergeTile
                                         ? y_blocks
                                         : merge_path_blocks_spmv<version>(p.here, in.csr, in.x,
                                                                           in.y0);
        check.claim(std::string("y from the ") + p.here.name() + " block kernel at step " + name +
                        " (" + tiles + " of " + std::to_string(kMergeTile) +
                        " steps) and the CPU baseline's are both within the same bound",
                    spmv_matches(y, reference) && spmv_matches(y_cpu, reference));
    });
}

// At --scale on a GPU: every version against 143's kernel and cuSPARSE's two CSR algorithms
// (cusparseSpMV with CUSPARSE_SPMV_CSR_ALG1, then with ALG2), all on the same arrays. cuSPARSE is
// the fair bar: the same format, the same float arithmetic, NVIDIA's tuned kernels. The bytes are
// the least that any of them moves: the CSR arrays, x once, y read and written once.
inline void time_merge_path(const KernelProgram& p, const HostCsr& a) {
    if (!p.on_gpu() || p.options.scale == 0 ||
        !cusparse_refusal(a.num_rows, a.num_cols, a.nnz()).empty())
        return;
    const Here& here = p.here;
    DeviceCsr d(here, a);
    MergePathCarries carries(here, a, kStepsPerThread);
    DeviceArray<float> dx(here, lesson_x(a.num_cols)), dy(here, lesson_y0(a.num_rows));
    const double bytes = csr_spmv_bytes(a);
    TimingTable table(p, "148", p.options.skew,
                      "bytes: the CSR arrays, x once, y read and written once");
    MergePathTiles tiles(here, a);
    std::vector<std::pair<std::string, double>> versions = {
        {"csr_merge_path_per_thread",
         table.time("csr_merge_path_per_thread", "CSR, merge path, per thread (148)", bytes,
                    [&] { launch_spmv_merge_path(here, d, carries, dx.data(), dy.data()); })}};
    for_each_tile_step([&](auto step, const char*, const char* kernel, const char* label) {
        versions.emplace_back(kernel, table.time(kernel, label, bytes, [&] {
            launch_spmv_merge_path_blocks<decltype(step)::value>(here, d, tiles, dx.data(),
                                                                 dy.data());
        }));
    });
    const double per_thread_ms = versions.front().second, merge_ms = versions.back().second;
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
        for (const auto& [kernel, ms] : versions)
            table.ratio(kernel + " / " + key, ms / library_ms, "the merge path is faster");
    }
    std::printf("\n");
}
