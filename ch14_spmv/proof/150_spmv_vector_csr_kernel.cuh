// What 150 prints, checks and times around its lesson (150_spmv_vector_csr_kernel.cu): the rule
// and its choice, which lanes take which entries, the claims about y, and every group size timed.
#pragma once
#include <algorithm>
#include <iterator>
#include "spmv_proof.cuh"

inline ProgramDescription vector_csr_program() {
    return spmv_kernel_program(
        "150 (14.3) kernel: vector CSR, G lanes a row, G chosen from the matrix",
        {"make 150_spmv_vector_csr_kernel && build/150_spmv_vector_csr_kernel",
         "build/150_spmv_vector_csr_kernel --scale 22 --max-memory 8G",
         "build/150_spmv_vector_csr_kernel --matrix data/1138_bus.mtx"},
        {48, 100, 900e6});
}

inline void show_choice(const RowFacts& f, const GroupChoice& choice) {
    print_wrapped("the rule: a whole warp a row when the longest row is " +
                  with_separators(kHubMeanRows) +
                  " mean rows long or more, else one lane when the mean row has at most " +
                  std::to_string(kShortMeanRow) + " entries, else " +
                  std::to_string(kMiddleGroupSize) + " lanes");
    print_wrapped("group size " + std::to_string(choice.group_size) + ": mean row " +
                  fixed_text(f.mean, 1) + " entries, the longest " +
                  fixed_text(f.longest_over_mean, 0) + " times the mean -> " + choice.reason);
    print_wrapped("a warp holds " + counted(kWarpSize / choice.group_size, "row") + ", " +
                  counted(choice.group_size, "lane") + " each");
    std::printf("\n");
}

// On a small input, which entries each lane of each row's group reads, for the chosen group size
// and 4 beside it: lane l takes entries l, l + G, ... of the row, so a step reads G in a row.
inline void show_groups(const HostCsr& a, int chosen) {
    if (!printable(a)) return;
    for (int group_size : chosen == 4 ? std::vector<int>{4} : std::vector<int>{chosen, 4}) {
        std::printf("with %s a row:\n", counted(group_size, "lane").c_str());
        for (int row = 0; row < a.num_rows; ++row) {
            const int first = row * group_size % kWarpSize, warp = row * group_size / kWarpSize;
            const std::string lanes = group_size == 1 ? "lane " + std::to_string(first)
                                                      : "lanes " + std::to_string(first) + ".." +
                                                            std::to_string(first + group_size - 1);
            std::string line = "  row " + std::to_string(row) + ", " + lanes + " of warp " +
                               std::to_string(warp) + ":";
            for (int lane = 0; lane < group_size; ++lane) {
                std::string entries;
                for (int k = a.row_offsets[row] + lane; k < a.row_offsets[row + 1]; k += group_size)
                    entries += (entries.empty() ? "" : ",") + std::to_string(k);
                line += " lane " + std::to_string(first + lane) + " " +
                        (entries.empty() ? "none" : "values[" + entries + "]") + ";";
            }
            line.back() = '.';
            print_wrapped(line, 4);
        }
    }
    std::printf("\n");
}

inline void show_chosen_ys(const SpmvLessonInput& in, const std::vector<SpmvRun>& runs,
                           int chosen) {
    const SpmvRun& run = runs[std::find(std::begin(kGroupSizes), std::end(kGroupSizes), chosen) -
                              std::begin(kGroupSizes)];
    show_ys(in, {{"y", &run.y}, {"y_cpu", &run.y_cpu}});
}

inline void check_every_group_size(const KernelProgram& p, const SpmvLessonInput& in,
                                   const std::vector<SpmvRun>& runs, SelfCheck& check) {
    check_runs(p, in, runs, check);
    check.claim(
        "the CPU baseline's y at every group size is within float32 rounding of the double "
        "reference",
        std::all_of(runs.begin(), runs.end(),
                    [&](const SpmvRun& run) { return spmv_matches(run.y_cpu, in.reference()); }));
}

// How near the fastest group size the choice must come to be called a good one: a measurement
// that the sweep reads, never a self-check.
constexpr double kChoiceTolerance = 0.10;

// At --scale on a GPU, every group size, the chosen one, and cuSPARSE's row-split ALG1.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in, int chosen,
                                 SelfCheck& check) {
    const auto kernel_of = [](int g) { return "csr_vector_g" + std::to_string(g); };
    std::vector<TimedSpmv> kernels;
    for (int g : kGroupSizes)
        kernels.push_back(timed_spmv(
            p.here, kernel_of(g),
            "CSR vector, " + counted(g, "lane") + " a row" + (g == chosen ? " (the choice)" : ""),
            csr_vector_launch(g), &in.csr));
    kernels.push_back(timed_spmv(p.here, "csr_vector_chosen",
                                 "CSR vector, the chosen " + counted(chosen, "lane"),
                                 csr_vector_launch(chosen), &in.csr));
    compare_with_library(
        p, in, "150", kCsrBytesNote, kernels, {kCusparseAlg1}, check,
        [&](TimingTable& table, SpmvTimes& ms) {
            const int fastest = *std::min_element(
                std::begin(kGroupSizes), std::end(kGroupSizes),
                [&](int a, int b) { return ms.at(kernel_of(a)) < ms.at(kernel_of(b)); });
            print_ratio(table, ms, "chosen / fastest (" + counted(fastest, "lane") + ")",
                        "csr_vector_chosen", kernel_of(fastest));
            print_ratio(table, ms, "chosen / cusparse_csr_alg1", "csr_vector_chosen",
                        "cusparse_csr_alg1", "the chosen vector CSR is faster");
            const bool near =
                ms.at("csr_vector_chosen") <= (1 + kChoiceTolerance) * ms.at(kernel_of(fastest));
            std::printf(
                "  measured: the choice, %s a row, is %swithin %s%% of the fastest, %s a row\n\n",
                counted(chosen, "lane").c_str(), near ? "" : "not ",
                fixed_text(100 * kChoiceTolerance, 0).c_str(), counted(fastest, "lane").c_str());
        });
}
