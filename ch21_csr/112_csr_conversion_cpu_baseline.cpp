// 21.1, CPU baseline: from an adjacency list to CSR.
// An adjacency list keeps one growable container per vertex, and a kernel cannot be handed a
// container of containers. CSR concatenates all the neighbour lists into one array, col_idx,
// and records in row_offsets (V + 1 entries) where each vertex's slice begins; the extra last
// entry lets every vertex, the last one too, read its slice as [row_offsets[v], row_offsets[v+1]).
//
// Build and run:  make 112_csr_conversion_cpu_baseline && build/112_csr_conversion_cpu_baseline
#include <cstdio>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"

using AdjacencyList = std::vector<std::vector<int>>;

AdjacencyList build_adjacency_list(const HostCoo& edges) {
    AdjacencyList adj(edges.num_rows);
    for (size_t e = 0; e < edges.nnz(); ++e) adj[edges.rows[e]].push_back(edges.cols[e]);
    return adj;
}

// Walk the vertices in order and append each one's list: the slices come out back to back.
void adjacency_to_csr(const AdjacencyList& adj, std::vector<int>& row_offsets,
                      std::vector<int>& col_idx) {
    row_offsets.assign(adj.size() + 1, 0);
    col_idx.clear();
    for (size_t v = 0; v < adj.size(); ++v) {
        row_offsets[v] = static_cast<int>(col_idx.size());
        col_idx.insert(col_idx.end(), adj[v].begin(), adj[v].end());
    }
    row_offsets[adj.size()] = static_cast<int>(col_idx.size());
}

#ifndef LESSON_WITHOUT_MAIN
int main(int argc, char** argv) {
    parse_options(argc, argv, false);
    std::printf("=== 112 (21.1) CPU baseline: adjacency list -> CSR ===\n\n");
    const HostCoo edges = book_example_edges();
    std::printf("%d vertices, %zu directed edges, in arrival order (not grouped by source):\n  ",
                edges.num_rows, edges.nnz());
    for (size_t e = 0; e < edges.nnz(); ++e) std::printf("(%d->%d) ", edges.rows[e], edges.cols[e]);
    std::printf("\n\n");

    const AdjacencyList adj = build_adjacency_list(edges);
    std::printf("adjacency list, one container per vertex:\n");
    for (size_t v = 0; v < adj.size(); ++v) {
        std::printf("  adj[%zu]: ", v);
        for (int n : adj[v]) std::printf("%d ", n);
        std::printf("\n");
    }

    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr(adj, row_offsets, col_idx);
    std::printf("\nflattened into CSR:\n");
    print_array("row_offsets", row_offsets, 11);
    print_array("col_idx", col_idx, 11);

    std::printf("\neach vertex's slice of col_idx:\n");
    bool slices_match = true;
    for (size_t v = 0; v < adj.size(); ++v) {
        const std::vector<int> slice(col_idx.begin() + row_offsets[v],
                                     col_idx.begin() + row_offsets[v + 1]);
        std::printf("  vertex %zu: [%d,%d) -> ", v, row_offsets[v], row_offsets[v + 1]);
        for (int n : slice) std::printf("%d ", n);
        std::printf("\n");
        slices_match = slices_match && slice == adj[v];
    }
    std::printf("\n");

    SelfCheck check;
    check.claim("every CSR slice reproduces its vertex's adjacency list", slices_match);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book", row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", col_idx == kBookColIdx);
    check.claim("row_offsets has V + 1 entries and ends at the edge count",
                row_offsets.size() == adj.size() + 1 &&
                    static_cast<size_t>(row_offsets.back()) == edges.nnz());
    return check.finish();
}
#endif
