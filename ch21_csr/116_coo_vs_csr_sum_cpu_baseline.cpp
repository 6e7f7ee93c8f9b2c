// 21.3, CPU baseline: one quantity, the total weight of all edges, summed over two formats.
// COO keeps each edge as a self-contained (src, dst, weight) triple in three flat arrays, so
// the sum is one flat loop that never asks which vertex an edge belongs to. CSR groups the
// same edges by source, so the same sum becomes a loop over vertices around a loop over each
// vertex's slice, and those inner loops have uneven lengths (an empty one, too). Both visit
// every edge once; 117 turns the flat loop into one thread per edge.
//
// Build and run:  make 116_coo_vs_csr_sum_cpu_baseline && build/116_coo_vs_csr_sum_cpu_baseline
#include <cstdio>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"

// Weights are small whole numbers held in floats; a double holds every partial sum exactly,
// so two totals that add the same weights in different orders must agree to the last bit.
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

#ifndef LESSON_WITHOUT_MAIN
int main(int argc, char** argv) {
    parse_options(argc, argv, false);
    std::printf("=== 116 (21.3) CPU baseline: total edge weight, over COO and over CSR ===\n\n");
    const HostCoo edges = book_example_edges();

    std::printf("COO: three parallel arrays, entry e is edge e, in arrival order:\n");
    print_array("edge_src", edges.rows, 11);
    print_array("edge_dst", edges.cols, 11);
    print_array("edge_weight", edges.values, 11);
    const double sum_coo = total_weight_coo(edges);
    std::printf("one flat loop over the %zu edges, blind to vertices:\n", edges.nnz());
    std::printf("  sum_coo = %g\n\n", sum_coo);

    const HostCsr csr = csr_from_coo_by_stable_sort(edges);
    std::printf("CSR: the same edges, gathered into one slice per source vertex:\n");
    print_array("row_offsets", csr.row_offsets, 11);
    print_array("col_idx", csr.col_idx, 11);
    print_array("weights", csr.values, 11);
    std::printf("an outer loop over the %d vertices, an inner loop over each one's slice:\n",
                csr.num_rows);
    for (int v = 0; v < csr.num_rows; ++v) {
        const int length = csr.row_offsets[v + 1] - csr.row_offsets[v];
        std::printf("  vertex %d: slice [%d,%d), inner loop runs %d time(s)%s\n", v,
                    csr.row_offsets[v], csr.row_offsets[v + 1], length,
                    length == 0 ? " (visited for nothing)" : "");
    }
    const double sum_csr = total_weight_csr(csr);
    std::printf("  sum_csr = %g\n\n", sum_csr);

    std::printf("Both loops add each of the %zu weights once. The COO loop does the same step for\n"
                "every edge; the CSR loop's inner trip counts follow the degrees, so vertex 0 does\n"
                "twice the work of vertex 4 and vertex 5 does none. Split across threads, that\n"
                "unevenness is load imbalance, which one thread per COO edge does not have.\n\n",
                edges.nnz());

    SelfCheck check;
    check.claim("the flat COO loop's total is 41, as in the book", sum_coo == kBookTotalWeight);
    check.claim("the nested CSR loop's total is 41, as in the book", sum_csr == kBookTotalWeight);
    check.claim("the two totals agree exactly", sum_coo == sum_csr);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book", csr.row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
    return check.finish();
}
#endif
