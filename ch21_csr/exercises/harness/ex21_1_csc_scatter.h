// Exercise 21.1's harness: the inputs, the launch and the checks around the scatter body that
// ex21_1_csc_scatter.cu asks for. The count and the scan are 115's, keyed on the destination as
// 118 keys them; only the scatter is the exercise's. Atomics decide the order of the sources
// within a column and nothing else, so each column is compared with 118's CPU baseline (115's
// steps one edge at a time, keyed on the destination) as a multiset.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
// 118's lesson: its CPU baseline, and 115's DeviceGrouping, which it keys on the destination
#include "../../118_csc_construction_kernel.cu"
#include "exercise_program.h"

// The exercise: edge e, from src[e] to dst[e] with weight[e], placed in a slot of column dst[e]
// of the CSC: its source into row_idx, its weight into out_weight. cursor[v] starts at column
// v's first slot; the threads of all the edges into v run at the same time.
__host__ __device__ void csc_scatter_thread(int e, const int* src, const int* dst,
                                            const float* weight, int* cursor, int* row_idx,
                                            float* out_weight);

__global__ void csc_scatter_kernel(int num_edges, const int* src, const int* dst,
                                   const float* weight, int* cursor, int* row_idx,
                                   float* out_weight) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) csc_scatter_thread(e, src, dst, weight, cursor, row_idx, out_weight);
}

// The CSC comes back as a HostCsr whose rows are the graph's columns (118's convention). Its
// slots start poisoned, every byte 0xFF: a slot that no edge wrote holds the source -1.
inline HostCsr csc_by_exercise_scatter(const Here& here, const HostCoo& edges) {
    const DeviceCoo d(here, edges);
    DeviceGrouping csc(here, edges.num_cols, edges.num_rows, edges.nnz());
    csc.count(here, d.cols.data(), edges.nnz());
    csc.scan();
    csc.start_cursors(here);
    here.launch(blocks_for(edges.nnz()), kThreadsPerBlock, csc_scatter_kernel, csc_scatter_thread,
                edges.nnz(), d.rows.data(), d.cols.data(), d.values.data(), csc.cursor.data(),
                csc.grouped.col_idx.data(), csc.grouped.values.data());
    return csc.grouped.download();
}

// The grouping's row_offsets and col_idx are the CSC's col_offsets and row_idx.
inline void show_scatter(const HostCsr& got, const HostCsr& expected) {
    const std::vector<int>& col_offsets = got.row_offsets;
    const std::vector<int>& row_idx = got.col_idx;
    const std::vector<int>& row_idx_cpu = expected.col_idx;
    const std::vector<float>& weights_cpu = expected.values;
    print_array("col_offsets", col_offsets, 11);
    print_array("row_idx", row_idx, 11);
    print_array("weights", got.values, 11);
    print_array("row_idx_cpu", row_idx_cpu, 11);
    print_array("weights_cpu", weights_cpu, 11);
    std::printf(
        "  (the order within a column may differ from the baseline's; -1 marks a slot "
        "that no edge wrote)\n\n");
}

inline void check_csc_scatter(const KernelProgram& p, const ExerciseInput& input,
                              SelfCheck& check) {
    const HostCoo& edges = input.coo;
    print_wrapped("--- " + input.name + ": " + counted(edges.num_rows, "vertex", "vertices") +
                  ", " + counted(edges.nnz(), "edge") + ", one scatter thread per edge ---");
    const HostCsr got = csc_by_exercise_scatter(p.here, edges);
    const HostCsr expected = build_csc_cpu(edges).grouped;
    if (printable(edges)) show_scatter(got, expected);
    check.claim(input.name + ": every slot of row_idx was written (none is still -1)",
                std::none_of(got.col_idx.begin(), got.col_idx.end(), [](int u) { return u < 0; }));
    check.claim(input.name + ": each column holds the baseline's (source, weight) multiset",
                same_row_multisets(got, expected));
}

int main(int argc, char** argv) {
    const KernelProgram p = start_graph_exercise(
        argc, argv, "ex21_1_csc_scatter", "exercise 21.1: CSC's scatter, keyed on the destination",
        "the book's example and an R-MAT graph of 2^10 vertices", {152, 48, 1000e6});
    return run_exercise(
        p,
        {{"the book's example", book_example_edges()},
         {"R-MAT scale 10", make_rmat(10, kEdgeFactor, kDefaultSkew, kGraphSeed)}},
        [&](const ExerciseInput& input, SelfCheck& check) { check_csc_scatter(p, input, check); });
}
