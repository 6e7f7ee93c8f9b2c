// What 116 prints and checks around its lesson (116_coo_vs_csr_sum_cpu_baseline.cpp): the edges
// in both formats, each loop's trip counts and total, and the claims about the two totals.
#pragma once
#include <cstdio>
#include <string>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"

inline ProgramDescription coo_vs_csr_sum_program() {
    return ProgramDescription("116 (21.3) CPU baseline: total edge weight, over COO and over CSR",
                              {"make 116_coo_vs_csr_sum_cpu_baseline && "
                               "build/116_coo_vs_csr_sum_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}

inline void show_coo(const HostCoo& edges) {
    std::printf("COO: three parallel arrays, entry e is edge e, rows[e] -> cols[e], in arrival "
                "order:\n");
    print_array("rows", edges.rows, 7);
    print_array("cols", edges.cols, 7);
    print_array("weights", edges.values, 7);
}

inline void show_coo_loop(const HostCoo& edges, double sum_coo) {
    std::printf("one flat loop over the %s, blind to vertices:\n",
                counted(edges.nnz(), "edge").c_str());
    std::printf("  sum_coo = %g\n\n", sum_coo);
}

// Each vertex's inner loop, with its trip count: the unevenness that the sum hides.
inline void show_csr_loops(const HostCsr& csr, double sum_csr) {
    std::printf("an outer loop over the %s, an inner loop over each one's slice:\n",
                counted(csr.num_rows, "vertex", "vertices").c_str());
    for (int v = 0; v < csr.num_rows; ++v) {
        const int length = csr.row_offsets[v + 1] - csr.row_offsets[v];
        std::printf("  vertex %d: slice [%d,%d), inner loop runs %s%s\n", v, csr.row_offsets[v],
                    csr.row_offsets[v + 1], counted(length, "time").c_str(),
                    length == 0 ? " (visited for nothing)" : "");
    }
    std::printf("  sum_csr = %g\n\n", sum_csr);
}

inline void explain_imbalance(const HostCoo& edges) {
    print_wrapped(
        "Both loops add each of the " + with_separators(edges.nnz()) +
            " weights once. The COO loop does the same step for every edge; the CSR "
            "loop's inner trip counts follow the degrees, so vertex 0 does twice the work "
            "of vertex 4 and vertex 5 does none. Split across threads, that unevenness is "
            "load imbalance, which one thread per COO edge does not have.",
        0);
    std::printf("\n");
}

inline void check_sums(const HostCsr& csr, double sum_coo, double sum_csr, SelfCheck& check) {
    check.claim("the flat COO loop's total is 41, as in the book", sum_coo == kBookTotalWeight);
    check.claim("the nested CSR loop's total is 41, as in the book", sum_csr == kBookTotalWeight);
    check.claim("the two totals agree exactly", sum_coo == sum_csr);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                csr.row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
}
