// What 148 prints, checks and times around its lesson (148_spmv_merge_path_kernel.cu): the
// threads' shares and the tiles, the claims about the split and y, and every version timed.
#pragma once
#include <algorithm>
#include <iterator>
#include "../../common/figure_data.h"
#include "spmv_proof.cuh"

inline ProgramDescription merge_path_program() {
    return spmv_kernel_program(
               "148 (14.5) kernel: SpMV by merge path, equal work per thread",
               {"make 148_spmv_merge_path_kernel && build/148_spmv_merge_path_kernel",
                "build/148_spmv_merge_path_kernel --scale 22 --rmat 0.57,0.19,0.19 "
                "--max-memory 8G"},
               {48, 100, 900e6})
        .with_figure_data(
            "the merge path of Fig. 14.1, each thread's share and, step by step, the row end or "
            "the nonzero that it takes");
}

// Each share of `steps` steps of the path (a thread's, or a block's tile), as the rows and
// nonzeros that it touches, found by the kernel's own search.
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

// Every row closed once, every nonzero multiplied once, each share but the last `steps` long.
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

// The block kernel's tiles, and how many lie inside one row: those the registers step sums
// without shared memory.
inline void show_tiles(const HostCsr& a) {
    const std::vector<ThreadShare> tiles = merge_path_shares(a, kMergeTile);
    const auto inside_one_row = std::count_if(tiles.begin(), tiles.end(),
                                              [](const ThreadShare& s) { return !s.rows_closed; });
    print_wrapped("the block kernel: " + counted(tiles.size(), "tile") + " of " +
                  std::to_string(kMergeTile) + " steps (" + std::to_string(kMergeThreads) +
                  " threads of " + std::to_string(kMergeSteps) + " steps each); " +
                  counted(inside_one_row, "tile") +
                  " inside one row, which the registers step sums without shared memory");
    std::printf("\n");
}

// --figure-data: the path of Fig. 14.1 as the split cuts it. Each thread starts where
// merge_path_shares puts it, and steps by merge_path_thread's rule: nonzero j while j is inside
// row i, else row i's end.
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

// The timing: name and label of each step of kMergeTileSteps; the last is the fastest.
const std::pair<const char*, const char*> kTileStepTimings[] = {
    {"csr_merge_path_staged", "merge path by blocks: staged, shared atomics"},
    {"csr_merge_path_conflict_free", "  + products staged without bank conflicts"},
    {"csr_merge_path_warp_carries", "  + carries summed per warp by shuffles"},
    {"csr_merge_path_registers", "  + tiles inside one row summed in registers"},
    {"csr_merge_path", "  + streaming loads: CSR, merge path (148)"}};

// The split's fairness, then every y held to the double reference's bound: the carries add a
// long row's pieces in another order than the row loop does.
inline void check_merge_path(const KernelProgram& p, const SpmvLessonInput& in, int steps,
                             const std::vector<float>& y_cpu, const std::vector<float>& y,
                             const std::vector<float>& y_rows,
                             const std::vector<std::vector<float>>& y_tile_steps,
                             SelfCheck& check) {
    check.claim("every thread but the last takes exactly " + std::to_string(steps) +
                    " steps, and together they close every row once and multiply every nonzero "
                    "once",
                shares_cover_the_path(in.csr, steps));
    check_spmv(p, in, "merge-path kernel", y_cpu, y, check);
    check.claim("it equals 143's thread-per-row y within the same bound",
                spmv_matches(y_rows, in.reference()));
    const std::string tiles = counted(merge_path_tiles(in.csr.num_rows, in.csr.nnz()), "tile");
    for (size_t i = 0; i < y_tile_steps.size(); ++i)
        check.claim(
            std::string("y from the ") + p.here.name() + " block kernel at step " +
                kMergeTileSteps[i].name + " (" + tiles + " of " + std::to_string(kMergeTile) +
                " steps) and the CPU baseline's are both within the same bound",
            spmv_matches(y_tile_steps[i], in.reference()) && spmv_matches(y_cpu, in.reference()));
}

// A version on the table's copy of the matrix, its carries or tile starts made before timing.
template <class Scratch, class... ScratchArgs>
TimedSpmv timed_merge_path(const Here& here, const std::string& kernel, const std::string& label,
                           void (*launch)(const Here&, DeviceCsr&, Scratch&, const float*, float*),
                           ScratchArgs... args) {
    return {kernel, label,
            [&here, launch, args...](const HostCsr& a, DeviceCsr& d) -> SpmvLaunch {
                auto scratch = std::make_shared<Scratch>(here, a, args...);
                return [&here, launch, &d, scratch](const float* x, float* y) {
                    launch(here, d, *scratch, x, y);
                };
            },
            0, ""};
}

// At --scale on a GPU, every version beside 143's kernel and cuSPARSE's ALG1 and ALG2.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 SelfCheck& check) {
    std::vector<TimedSpmv> versions = {timed_merge_path(p.here, "csr_merge_path_per_thread",
                                                        "CSR, merge path, per thread (148)",
                                                        launch_spmv_merge_path, kStepsPerThread)};
    for (size_t i = 0; i < std::size(kTileStepTimings); ++i)
        versions.push_back(timed_merge_path(p.here, kTileStepTimings[i].first,
                                            kTileStepTimings[i].second, kMergeTileSteps[i].launch));
    std::vector<TimedSpmv> kernels = versions;
    kernels.push_back(timed_spmv(p.here, "csr_thread_per_row", "CSR, thread per row (143)",
                                 launch_spmv_csr, &in.csr));
    compare_with_library(
        p, in, "148", kCsrBytesNote, kernels, {kCusparseAlg1, kCusparseAlg2}, check,
        [&](TimingTable& table, SpmvTimes& ms) {
            print_ratio(table, ms, "staged by blocks / per thread", "csr_merge_path",
                        "csr_merge_path_per_thread", "staging by blocks is faster");
            print_ratio(table, ms, "merge path / thread per row", "csr_merge_path",
                        "csr_thread_per_row", "the merge path is faster");
            for (const char* library : {"cusparse_csr_alg1", "cusparse_csr_alg2"})
                for (const TimedSpmv& version : versions)
                    print_ratio(table, ms, version.kernel + " / " + library, version.kernel,
                                library, "the merge path is faster");
            std::printf("\n");
        });
}
