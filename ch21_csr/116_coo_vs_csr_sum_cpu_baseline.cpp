// 116 (21.3) CPU baseline: one quantity, the total weight of all edges, summed over two formats.
// COO keeps each edge as a self-contained (src, dst, weight) triple in three flat arrays, so
// the sum is one flat loop that never asks which vertex an edge belongs to. CSR groups the
// same edges by source, so the same sum becomes a loop over vertices around a loop over each
// vertex's slice, and those inner loops have uneven lengths (an empty one, too). Both visit
// every edge once; 117 turns the flat loop into one thread per edge.
//
// Build and run:  make 116_coo_vs_csr_sum_cpu_baseline && build/116_coo_vs_csr_sum_cpu_baseline
#include <vector>
#include "chapter_inputs.h"

// The baselines. Weights are small whole numbers held in floats; a double holds every partial
// sum exactly, so two totals that add the same weights in different orders must agree to the
// last bit. Over COO an edge's weight is all that the loop needs: it reads neither rows nor cols.
double total_weight_coo_cpu(const HostCoo& edges) {
    const std::vector<float>& weights = edges.values;
    double total = 0;
    for (size_t e = 0; e < edges.nnz(); ++e) total += weights[e];
    return total;
}

// The outer loop walks every vertex, the ones with empty slices included; the inner loop's
// length is the vertex's degree.
double total_weight_csr_cpu(const HostCsr& g) {
    double total = 0;
    for (int v = 0; v < g.num_rows; ++v)
        for (int k = g.row_offsets[v]; k < g.row_offsets[v + 1]; ++k) total += g.values[k];
    return total;
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/reduction_proof.h"

int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(argc, argv, coo_vs_csr_sum_program());
    const HostCoo edges = chapter_input(options);
    show_coo(edges);
    const double sum_coo = total_weight_coo_cpu(edges);
    show_coo_loop(edges, sum_coo);

    const HostCsr csr = csr_from_coo_by_stable_sort(edges);
    print_csr("CSR: the same edges, gathered into one slice per source vertex:", csr);
    const double sum_csr = total_weight_csr_cpu(csr);
    show_csr_loops(csr, sum_csr);
    explain_imbalance(edges);

    SelfCheck check;
    check_sums(csr, sum_coo, sum_csr, check);
    return check.finish();
}
#endif
