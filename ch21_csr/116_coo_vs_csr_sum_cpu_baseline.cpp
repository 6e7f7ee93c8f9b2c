// 21.3, CPU baseline: one quantity, the total weight of all edges, summed over two formats.
// COO keeps each edge as a self-contained (src, dst, weight) triple in three flat arrays, so
// the sum is one flat loop that never asks which vertex an edge belongs to. CSR groups the
// same edges by source, so the same sum becomes a loop over vertices around a loop over each
// vertex's slice, and those inner loops have uneven lengths (an empty one, too). Both visit
// every edge once; 117 turns the flat loop into one thread per edge.
//
// Build and run:  make 116_coo_vs_csr_sum_cpu_baseline && build/116_coo_vs_csr_sum_cpu_baseline
#include <cstdio>
#include <string>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"

// The baselines. Weights are small whole numbers held in floats; a double holds every partial
// sum exactly, so two totals that add the same weights in different orders must agree to the
// last bit.
double total_weight_coo(const HostCoo& edges) {
    double total = 0;
    for (size_t e = 0; e < edges.nnz(); ++e) total += edges.values[e];
    return total;
}

// The outer loop walks every vertex, the ones with empty slices included; the inner loop's
// length is the vertex's degree.
double total_weight_csr(const HostCsr& g) {
    double total = 0;
    for (int v = 0; v < g.num_rows; ++v)
        for (int k = g.row_offsets[v]; k < g.row_offsets[v + 1]; ++k) total += g.values[k];
    return total;
}

inline double show_coo_sum(const HostCoo& edges) {
    std::printf("COO: three parallel arrays, entry e is edge e, in arrival order:\n");
    print_array("edge_src", edges.rows, 11);
    print_array("edge_dst", edges.cols, 11);
    print_array("edge_weight", edges.values, 11);
    const double sum_coo = total_weight_coo(edges);
    std::printf("one flat loop over the %s, blind to vertices:\n",
                counted(edges.nnz(), "edge").c_str());
    std::printf("  sum_coo = %g\n\n", sum_coo);
    return sum_coo;
}

// Each vertex's inner loop, with its trip count: the unevenness that the sum hides.
inline double show_csr_sum(const HostCsr& csr) {
    const double sum_csr = total_weight_csr(csr);
    std::printf("CSR: the same edges, gathered into one slice per source vertex:\n");
    print_array("row_offsets", csr.row_offsets, 11);
    print_array("col_idx", csr.col_idx, 11);
    print_array("weights", csr.values, 11);
    std::printf("an outer loop over the %s, an inner loop over each one's slice:\n",
                counted(csr.num_rows, "vertex", "vertices").c_str());
    for (int v = 0; v < csr.num_rows; ++v) {
        const int length = csr.row_offsets[v + 1] - csr.row_offsets[v];
        std::printf("  vertex %d: slice [%d,%d), inner loop runs %s%s\n", v, csr.row_offsets[v],
                    csr.row_offsets[v + 1], counted(length, "time").c_str(),
                    length == 0 ? " (visited for nothing)" : "");
    }
    std::printf("  sum_csr = %g\n\n", sum_csr);
    return sum_csr;
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

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    start_cpu_program(
        argc, argv,
        ProgramDescription("116 (21.3) CPU baseline: total edge weight, over COO and over CSR",
                           {"make 116_coo_vs_csr_sum_cpu_baseline && "
                            "build/116_coo_vs_csr_sum_cpu_baseline"})
            .with_book_input("the book's example: 6 vertices, 9 weighted edges")
            .without_inputs());
    const HostCoo edges = book_example_edges();
    const double sum_coo = show_coo_sum(edges);
    const HostCsr csr = csr_from_coo_by_stable_sort(edges);
    const double sum_csr = show_csr_sum(csr);
    explain_imbalance(edges);

    SelfCheck check;
    check_sums(csr, sum_coo, sum_csr, check);
    return check.finish();
}
#endif
