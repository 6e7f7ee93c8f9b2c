// 112 (21.1) CPU baseline: from an adjacency list to CSR.
// An adjacency list keeps one growable container per vertex, and a kernel cannot be handed a
// container of containers. CSR concatenates all the neighbour lists into one array, col_idx,
// and records in row_offsets (V + 1 entries) where each vertex's slice begins; the extra last
// entry lets every vertex, the last one too, read its slice as [row_offsets[v], row_offsets[v+1]).
//
// Build and run:  make 112_csr_conversion_cpu_baseline && build/112_csr_conversion_cpu_baseline
#include <vector>
#include "chapter_inputs.h"

using AdjacencyList = std::vector<std::vector<int>>;

// The container of containers that a CPU program would start from: each edge appended to its
// source's list, in arrival order.
AdjacencyList build_adjacency_list(const HostCoo& edges) {
    AdjacencyList adj(edges.num_rows);
    for (size_t e = 0; e < edges.nnz(); ++e) adj[edges.rows[e]].push_back(edges.cols[e]);
    return adj;
}

// The baseline: walk the vertices in order and append each one's list, so that the slices come
// out back to back and each starts where the previous one ended.
void adjacency_to_csr_cpu(const AdjacencyList& adj, std::vector<int>& row_offsets,
                          std::vector<int>& col_idx) {
    row_offsets.assign(adj.size() + 1, 0);
    col_idx.clear();
    for (size_t v = 0; v < adj.size(); ++v) {
        row_offsets[v] = static_cast<int>(col_idx.size());
        col_idx.insert(col_idx.end(), adj[v].begin(), adj[v].end());
    }
    row_offsets[adj.size()] = static_cast<int>(col_idx.size());
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/build_proof.h"

int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(argc, argv, csr_conversion_program());
    const HostCoo edges = chapter_input(options);
    const AdjacencyList adj = build_adjacency_list(edges);
    show_adjacency_list(edges, adj);

    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr_cpu(adj, row_offsets, col_idx);
    print_csr("flattened into CSR:", {edges.num_rows, edges.num_cols, row_offsets, col_idx, {}},
              CsrValues::none);
    show_slices(row_offsets, col_idx);
    write_csr_figure(options, adj, row_offsets, col_idx);

    SelfCheck check;
    check_csr(adj, edges, row_offsets, col_idx, check);
    return check.finish();
}
#endif
