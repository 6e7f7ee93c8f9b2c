// What 150 prints, checks and times around its lesson (150_spmv_vector_csr_kernel.cu): the
// matrix's facts and the group size that they choose, which lanes take which entries on a small
// input, the claims about every group size's y, and at --scale on a GPU every group size timed
// beside the choice and cuSPARSE.
#pragma once
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "../regular_formats.h"

inline ProgramDescription vector_csr_program() {
    return ProgramDescription(
               "150 (14.3) kernel: vector CSR, G lanes a row, G chosen from the matrix",
               {"make 150_spmv_vector_csr_kernel && build/150_spmv_vector_csr_kernel",
                "build/150_spmv_vector_csr_kernel --scale 22 --max-memory 8G",
                "build/150_spmv_vector_csr_kernel --matrix data/1138_bus.mtx"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_memory({48, 100, 900e6});
}

inline std::string percent_text(double share) {
    return fixed_text(100 * share, 0) + "%";
}

// The facts, the choice and its reason, in one line.
inline void show_choice(const RowFacts& f, const GroupChoice& choice) {
    print_wrapped("group size " + std::to_string(choice.group_size) + ": mean row " +
                  fixed_text(f.mean, 1) + " entries, CV " + fixed_text(f.cv, 2) +
                  ", the longest " + fixed_text(f.longest_over_mean, 0) + " times the mean" +
                  ", neighbouring rows share " + percent_text(f.shared_sectors) +
                  " of their x sectors -> " + choice.reason);
    print_wrapped("a warp holds " + counted(kWarpSize / choice.group_size, "row") + ", " +
                  counted(choice.group_size, "lane") + " each");
    std::printf("\n");
}

// On a small input, which entries each lane of each row's group reads: lane l of the group
// takes entries l, l + G, ... of the row, G apart, so that each step reads G consecutive ones.
inline void show_group_layout(const HostCsr& a, int group_size) {
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

// The chosen group size's layout, and 4 lanes' beside it where the choice is another.
inline void show_groups(const HostCsr& a, int chosen) {
    if (!printable(a)) return;
    show_group_layout(a, chosen);
    if (chosen != 4) show_group_layout(a, 4);
    std::printf("\n");
}

// Every group size's y: the kernel's against the CPU baseline in its shape, both held to the
// double reference's float32 bound (a group adds a row's products in another order than a row
// loop, and the GPU fuses multiply-adds).
inline void check_every_group_size(const KernelProgram& p, const SpmvLessonInput& in, int chosen,
                                   SelfCheck& check) {
    const SpmvReference& reference = in.reference();
    // The baselines of the six group sizes are independent plain loops: they run at once, each
    // on a core of its own.
    constexpr size_t kSizes = std::size(kGroupSizes);
    std::vector<std::vector<float>> y_cpu_of(kSizes, in.y0);
#pragma omp parallel for schedule(dynamic, 1) if (in.csr.nnz() >= kParallelSize)
    for (size_t i = 0; i < kSizes; ++i)
        spmv_csr_vector_cpu(in.csr, kGroupSizes[i], in.x, y_cpu_of[i]);
    bool baselines_match = true;
    for (size_t i = 0; i < kSizes; ++i) {
        const int g = kGroupSizes[i];
        announce_emulation(p, static_cast<size_t>(in.csr.num_rows) * g,
                           "SpMV with " + counted(g, "lane") + " a row");
        const std::vector<float>& y_cpu = y_cpu_of[i];
        const std::vector<float> y = csr_vector_spmv(p.here, in.csr, g, in.x, in.y0);
        if (printable(in.csr) && g == chosen) {
            print_array("y", y, 8);
            print_array("y_cpu", y_cpu, 8);
            std::printf("\n");
        }
        baselines_match = baselines_match && spmv_matches(y_cpu, reference);
        claim_kernel_matches_baseline(
            check, std::string("the ") + p.here.name() + " G = " + std::to_string(g) + " kernel", y,
            y_cpu, reference);
    }
    check.claim(
        "the CPU baseline's y at every group size is within float32 rounding of the "
        "double reference",
        baselines_match);
}

// How near the fastest group size the choice must come to be called a good one: a measurement
// that the sweep reads, never a self-check.
constexpr double kChoiceTolerance = 0.10;

// At --scale on a GPU: every group size, then the chosen one, then cuSPARSE's CSR ALG1
// (cusparseSpMV with CUSPARSE_SPMV_CSR_ALG1, row-split like these kernels), all on the same
// arrays. cuSPARSE is the fair bar: the same format, the same float arithmetic, NVIDIA's tuned
// kernel. The bytes are the least that any of them moves: the CSR arrays, x once, y read and
// written once.
inline void time_group_sizes(const KernelProgram& p, const HostCsr& a, int chosen) {
    if (!p.on_gpu() || p.options.scale == 0 ||
        !cusparse_refusal(a.num_rows, a.num_cols, a.nnz()).empty())
        return;
    const Here& here = p.here;
    DeviceCsr d(here, a);
    DeviceArray<float> dx(here, lesson_x(a.num_cols)), dy(here, lesson_y0(a.num_rows));
    const double bytes = csr_spmv_bytes(a);
    TimingTable table(p, "150", p.options.skew,
                      "bytes: the CSR arrays, x once, y read and written once");
    std::vector<std::pair<int, double>> times;
    for (int g : kGroupSizes)
        times.emplace_back(
            g,
            table.time("csr_vector_g" + std::to_string(g),
                       "CSR vector, " + counted(g, "lane") + " a row" +
                           (g == chosen ? " (the choice)" : ""),
                       bytes, [&] { launch_spmv_csr_vector(here, d, g, dx.data(), dy.data()); }));
    const double chosen_ms =
        table.time("csr_vector_chosen", "CSR vector, the chosen " + counted(chosen, "lane"), bytes,
                   [&] { launch_spmv_csr_vector(here, d, chosen, dx.data(), dy.data()); });
    CusparseSpmv library(a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(), d.col_idx.data(),
                         d.values.data(), dx.data(), dy.data(), CUSPARSE_SPMV_CSR_ALG1);
    const double library_ms =
        table.time("cusparse_csr_alg1", "cuSPARSE CSR SpMV, ALG1", bytes, [&] { library.run(); });
    const auto fastest =
        *std::min_element(times.begin(), times.end(),
                          [](const auto& l, const auto& r) { return l.second < r.second; });
    table.ratio("chosen / fastest (" + counted(fastest.first, "lane") + ")",
                chosen_ms / fastest.second);
    table.ratio("chosen / cusparse_csr_alg1", chosen_ms / library_ms,
                "the chosen vector CSR is faster");
    std::printf("  measured: the choice, %s a row, is %swithin %s of the fastest, %s a row\n\n",
                counted(chosen, "lane").c_str(),
                chosen_ms <= (1 + kChoiceTolerance) * fastest.second ? "" : "not ",
                percent_text(kChoiceTolerance).c_str(), counted(fastest.first, "lane").c_str());
}
