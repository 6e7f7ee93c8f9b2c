// What 149 prints, checks and times: the splits and gathers, and the ranks against one rank.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "../../common/self_check.h"
#include "../../common/stencils.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"

inline ProgramDescription spmv_across_ranks_program() {
    return ProgramDescription(
               "149 (14.7) kernel: SpMV across ranks, rows split by nonzeros",
               {"make 149_spmv_across_ranks_kernel && build/149_spmv_across_ranks_kernel",
                "build/149_spmv_across_ranks_kernel --scale 16 --ranks 4",
                "build/149_spmv_across_ranks_kernel --scale 22 --max-memory 64G"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_whole_flag({"--ranks", "P", "ranks, each with a block of rows; default 2", 1, 64})
        .with_memory({80, 320, 900e6});
}

// The chapter's input, refused (exit 2) unless it is square: each product's y becomes the next x.
inline HostCoo square_spmv_input(const ProgramOptions& options) {
    HostCoo coo = spmv_input(options);
    if (coo.num_rows != coo.num_cols)
        fail_bad_input(options.matrix + ": not square (" + std::to_string(coo.num_rows) + " x " +
                       std::to_string(coo.num_cols) +
                       "); each product's y is gathered into the next x, so A must be square");
    return coo;
}

inline void show_fabric(const RankFabric& fabric) {
    std::printf("%s: %s\n\n", counted(fabric.ranks(), "rank").c_str(), fabric.describe().c_str());
}

inline void show_split(const char* how, const RowSplit& split, const HostCsr& a, int ranks) {
    std::printf("split %s:\n", how);
    int64_t most = 0;
    for (int k = 0; k < split.ranks(); ++k) {
        most = std::max(most, split.nonzeros(k, a.row_offsets));
        std::printf(
            "  rank %d: rows %d .. %d (%s), %s\n", k, split.first_row[k],
            split.first_row[k + 1] - 1, counted(split.rows(k), "row").c_str(),
            counted(static_cast<size_t>(split.nonzeros(k, a.row_offsets)), "nonzero").c_str());
    }
    const double share = split.ranks() ? double(a.nnz()) / split.ranks() : 0.0;
    std::printf("  the busiest rank holds %.2f times an equal share of the nonzeros\n",
                share > 0 ? most / share : 0.0);
    const int piece = PaddedLayout(split).piece;
    std::printf("  each gather: %s of %s, %s received by each rank\n\n",
                counted(ranks, "piece").c_str(), counted(piece, "float").c_str(),
                readable_bytes(4.0 * piece * (ranks - 1)).c_str());
}

// A^3 x: enough products that a wrong gather reaches every later one.
constexpr int kCheckedPowers = 3;

// The same products on one rank, with 143's kernel on the whole matrix.
inline std::vector<float> power_on_one(const Here& here, const HostCsr& a,
                                       const std::vector<float>& x0, int steps) {
    std::vector<float> x = x0;
    for (int s = 0; s < steps; ++s)
        x = spmv_on_device(here, launch_spmv_csr, a, x, zeros(a.num_rows));
    return x;
}

// Bit for bit against one rank (same row body, order and x); 148's kernel adds a long row's
// pieces in another order, so it and the CPU baseline are held to the double reference.
inline void check_split(const HostCoo& coo, const char* how, int ranks,
                        const std::vector<float>& power_one_rank, const std::vector<float>& power,
                        const std::vector<float>& merged, const std::vector<float>& y_cpu,
                        SelfCheck& check) {
    check.claim(std::string("A^3 x across ") + counted(ranks, "rank") + ", split " + how +
                    ", equals the one-rank products bit for bit",
                power == power_one_rank);
    const SpmvReference reference =
        spmv_reference(coo, lesson_x(coo.num_cols), zeros(coo.num_rows));
    check.claim("A x across " + counted(ranks, "rank") + " with 148's merge path, split " + how +
                    ", matches the CPU baseline's: both within float32 rounding of the double "
                    "reference",
                spmv_matches(merged, reference) && spmv_matches(y_cpu, reference));
}

// 147's Poisson matrix of a side x side grid, as 147 solves it.
inline CgSystem poisson_system(int side) {
    return make_cg_system(csr_from_coo_by_stable_sort(make_stencil({StencilKind::two_d, side})),
                          false);
}

// The check's two solves stop at a 128 x 128 grid; the timings take the full 2^S unknowns.
inline int cg_grid_side(const ProgramOptions& options) {
    return options.scale > 0 ? std::min(1 << (options.scale / 2), 128) : 16;
}

// CG across the ranks against one rank: only the dot products' order of terms differs.
inline void check_cg(int ranks, const HostCsr& a, const CgOutcome& one, const CgOutcome& across,
                     SelfCheck& check) {
    double largest = 0, difference = 0;
    for (size_t i = 0; i < one.y.size(); ++i) {
        largest = std::max(largest, std::fabs(double(one.y[i])));
        difference = std::max(difference, std::fabs(double(one.y[i]) - across.y[i]));
    }
    const int side = static_cast<int>(std::lround(std::sqrt(a.num_rows)));
    char line[200];
    std::snprintf(line, sizeof line,
                  "CG on the Poisson matrix of a %d x %d grid: %d iterations to a relative "
                  "residual of %.2e on one rank, %.2e across %s",
                  side, side, one.iterations, one.final_residual, across.final_residual,
                  counted(ranks, "rank").c_str());
    print_wrapped(line);
    std::printf("  largest difference of x across ranks from x on one rank: %.3g (of %.3g)\n\n",
                difference, largest);
    check.claim("CG across " + counted(ranks, "rank") +
                    " gets within twice 147's tolerance in the iterations that one rank takes",
                across.final_residual <= kCgTolerance * 2);
    check.claim("its x equals one rank's to within 1e-5 of x's largest entry",
                difference <= 1e-5 * largest);
}

// Median host time of `step` and the wait for every rank: the ranks run at once.
template <class Step>
double median_step_ms(const RankFabric& fabric, Step step) {
    const TimedRuns runs = timed_runs();
    const double warmup_ms = host_ms([&] {
        for (int i = 0; i < runs.warmups; ++i) step();
        fabric.synchronize();
    });
    std::vector<double> ms(repetitions_for(runs, warmup_ms));
    for (double& run_ms : ms)
        run_ms = host_ms([&] {
            step();
            fabric.synchronize();
        });
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// Ten CG iterations (tolerance 0: none stops early) on 147's --scale input, one GPU vs ranks.
inline void time_cg_iterations(const KernelProgram& p, const RankFabric& fabric,
                               const TimingTable& table) {
    const CgSystem s = poisson_system(1 << (p.options.scale / 2));
    const int n = s.matrix.num_rows, iterations = 10;
    const double bytes = 8.0 * s.matrix.nnz() + 64.0 * n;
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    CgRanks one(alone, s.matrix, PaddedLayout(split_by_rows(n, 1)), s.b);
    CgRanks across(fabric, s.matrix,
                   PaddedLayout(split_by_nonzeros(s.matrix.row_offsets, fabric.ranks())), s.b);
    const auto iteration_ms = [&](const RankFabric& f, CgRanks& cg) {
        const auto solve = [&] { run_conjugate_gradient(cg, rhs_norm(s), 0.0, iterations); };
        return median_step_ms(f, solve) / iterations;
    };
    const double one_ms = iteration_ms(alone, one), across_ms = iteration_ms(fabric, across);
    table.report("cg_iteration_one_gpu", "one CG iteration on one rank (Poisson)", bytes, one_ms);
    table.report("cg_iteration_ranks", "one CG iteration across the ranks (Poisson)", bytes,
                 across_ms);
    table.ratio("CG iteration across ranks / one rank", across_ms / one_ms, "the ranks are faster");
}

// Every rank's SpMV launched at once, each on its own GPU where it has one; then the wait for all.
inline double median_ranks_ms(const RankFabric& fabric, std::vector<RankArrays>& ranks,
                              RankKernel kernel) {
    return median_step_ms(fabric, [&] {
        fabric.each_rank([&](int k) { launch_on_rank(fabric.here(), kernel, ranks[k]); });
    });
}

struct TimedKernel {
    RankKernel kernel;
    const char* key;
    const char* name;
};
constexpr TimedKernel kTimedKernels[] = {
    {RankKernel::thread_per_row, "thread_per_row", "143's thread per row"},
    {RankKernel::merge_path, "merge_path", "148's merge path by blocks"}};

// At --scale on a GPU, per kernel and split: each rank's SpMV, all at once, and one rank's, the
// bar (no library splits one SpMV across ranks); each split's all-gather; then CG.
inline void compare_with_library(const KernelProgram& p, const RankFabric& fabric,
                                 const HostCsr& a) {
    if (!p.on_gpu() || p.options.scale == 0) return;
    const double bytes = 8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + 8.0 * a.num_rows;
    TimingTable table(p, "149", p.options.skew,
                      "bytes: the CSR arrays, x once, y written once; " + fabric.describe());
    if (fabric.kind() == RankFabric::Kind::one_gpu)
        print_wrapped(
            "  the ranks share GPU 0 and take turns, so a step of all ranks costs the sum "
            "of their times: the ratios below show what the split costs, not a "
            "speed-up, which needs one GPU per rank");
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    std::vector<RankArrays> one =
        make_ranks(alone, a, PaddedLayout(split_by_rows(a.num_rows, 1)), x0);
    std::vector<double> one_ms;
    for (const TimedKernel& k : kTimedKernels) {
        one_ms.push_back(median_ranks_ms(alone, one, k.kernel));
        table.report(std::string("spmv_one_gpu_") + k.key,
                     std::string("SpMV on one rank, ") + k.name, bytes, one_ms.back());
    }
    for (const auto& [split_key, split] :
         {std::pair{"by_nonzeros", split_by_nonzeros(a.row_offsets, fabric.ranks())},
          std::pair{"by_rows", split_by_rows(a.num_rows, fabric.ranks())}}) {
        const PaddedLayout layout(split);
        std::vector<RankArrays> ranks = make_ranks(fabric, a, layout, x0);
        std::vector<const float*> pieces;
        std::vector<float*> wholes;
        for (RankArrays& r : ranks) {
            pieces.push_back(r.y.data());
            wholes.push_back(r.x.data());
        }
        const double gather_ms =
            median_step_ms(fabric, [&] { fabric.all_gather(pieces, wholes, layout.piece); });
        table.report(std::string("gather_ranks_") + split_key,
                     std::string("all-gather of y, split ") + split_key,
                     4.0 * layout.piece * (fabric.ranks() - 1) * fabric.ranks(), gather_ms);
        for (size_t i = 0; i < std::size(kTimedKernels); ++i) {
            const TimedKernel& k = kTimedKernels[i];
            std::vector<double> rank_ms;
            for (int r = 0; r < fabric.ranks(); ++r) {
                fabric.on(r);
                rank_ms.push_back(
                    median_step_ms(fabric, [&] { launch_on_rank(p.here, k.kernel, ranks[r]); }));
                std::printf(
                    "  rank %d, split %s, %s: %s, %.3f ms\n", r, split_key, k.name,
                    counted(static_cast<size_t>(split.nonzeros(r, a.row_offsets)), "nonzero")
                        .c_str(),
                    rank_ms.back());
            }
            fabric.on(0);
            const double spmv_ms = median_ranks_ms(fabric, ranks, k.kernel);
            const std::string what = std::string(k.name) + ", split " + split_key;
            table.report(std::string("spmv_ranks_") + k.key + "_" + split_key,
                         "SpMV on every rank at once, " + what, bytes, spmv_ms);
            const auto [fastest, slowest] = std::minmax_element(rank_ms.begin(), rank_ms.end());
            table.ratio("slowest / fastest rank's SpMV, " + what, *slowest / *fastest);
            table.ratio("SpMV across ranks / one rank, " + what, spmv_ms / one_ms[i],
                        "the ranks are faster");
            table.ratio("SpMV and gather across ranks / one rank, " + what,
                        (spmv_ms + gather_ms) / one_ms[i], "the ranks are faster");
            std::printf("  a step: compute %.3f ms, gather %.3f ms (%.0f%% of the step)\n\n",
                        spmv_ms, gather_ms, 100.0 * gather_ms / (spmv_ms + gather_ms));
        }
    }
    time_cg_iterations(p, fabric, table);
}
