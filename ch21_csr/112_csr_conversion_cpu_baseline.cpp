// 21.1, CPU baseline: from an adjacency list to CSR.
// An adjacency list keeps one growable container per vertex, and a kernel cannot be handed a
// container of containers. CSR concatenates all the neighbour lists into one array, col_idx,
// and records in row_offsets (V + 1 entries) where each vertex's slice begins; the extra last
// entry lets every vertex, the last one too, read its slice as [row_offsets[v], row_offsets[v+1]).
//
// Build and run:  make 112_csr_conversion_cpu_baseline && build/112_csr_conversion_cpu_baseline
#include <cstdio>
#include <string>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"

using AdjacencyList = std::vector<std::vector<int>>;

// The baseline: walk the vertices in order and append each one's list, so that the slices come
// out back to back and each starts where the previous one ended.
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

// The container of containers that a CPU program would start from: each edge appended to its
// source's list, in arrival order.
AdjacencyList build_adjacency_list(const HostCoo& edges) {
    AdjacencyList adj(edges.num_rows);
    for (size_t e = 0; e < edges.nnz(); ++e) adj[edges.rows[e]].push_back(edges.cols[e]);
    return adj;
}

// "1 2 3", or "(none)" for an empty list.
inline std::string listed(const std::vector<int>& a) {
    if (a.empty()) return "(none)";
    std::string text;
    for (int x : a) text += (text.empty() ? "" : " ") + std::to_string(x);
    return text;
}

inline void show_edges(const HostCoo& edges) {
    std::string arrivals;
    for (size_t e = 0; e < edges.nnz(); ++e)
        arrivals += (e == 0 ? "" : " ") + std::string("(") + std::to_string(edges.rows[e]) + "->" +
                    std::to_string(edges.cols[e]) + ")";
    std::printf("%s, %s, in arrival order (not grouped by source):\n",
                counted(edges.num_rows, "vertex", "vertices").c_str(),
                counted(edges.nnz(), "directed edge").c_str());
    print_wrapped("  " + arrivals, 2);
    std::printf("\n");
}

inline void show_adjacency_list(const AdjacencyList& adj) {
    std::printf("adjacency list, one container per vertex:\n");
    for (size_t v = 0; v < adj.size(); ++v)
        std::printf("  adj[%zu]: %s\n", v, listed(adj[v]).c_str());
    std::printf("\n");
}

inline void show_csr(const std::vector<int>& row_offsets, const std::vector<int>& col_idx) {
    std::printf("flattened into CSR:\n");
    print_array("row_offsets", row_offsets, 11);
    print_array("col_idx", col_idx, 11);
    std::printf("\n");
}

// Vertex v's neighbours, read back out of the flat arrays.
inline std::vector<int> slice_of(int v, const std::vector<int>& row_offsets,
                                 const std::vector<int>& col_idx) {
    return std::vector<int>(col_idx.begin() + row_offsets[v], col_idx.begin() + row_offsets[v + 1]);
}

inline void show_slices(const std::vector<int>& row_offsets, const std::vector<int>& col_idx) {
    std::printf("each vertex's slice of col_idx:\n");
    for (size_t v = 0; v + 1 < row_offsets.size(); ++v)
        std::printf("  vertex %zu: [%d,%d) -> %s\n", v, row_offsets[v], row_offsets[v + 1],
                    listed(slice_of(static_cast<int>(v), row_offsets, col_idx)).c_str());
    std::printf("\n");
}

inline void check_csr(const AdjacencyList& adj, const HostCoo& edges,
                      const std::vector<int>& row_offsets, const std::vector<int>& col_idx,
                      SelfCheck& check) {
    bool slices_match = row_offsets.size() == adj.size() + 1;
    for (size_t v = 0; slices_match && v < adj.size(); ++v)
        slices_match = slice_of(static_cast<int>(v), row_offsets, col_idx) == adj[v];
    check.claim("every CSR slice reproduces its vertex's adjacency list", slices_match);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book", row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", col_idx == kBookColIdx);
    check.claim("row_offsets has V + 1 entries and ends at the edge count",
                row_offsets.size() == adj.size() + 1 &&
                    static_cast<size_t>(row_offsets.back()) == edges.nnz());
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    start_cpu_program(argc, argv,
                      ProgramDescription("112 (21.1) CPU baseline: adjacency list -> CSR",
                                         {"make 112_csr_conversion_cpu_baseline && "
                                          "build/112_csr_conversion_cpu_baseline"})
                          .with_book_input("the book's example: 6 vertices, 9 directed edges")
                          .without_inputs());
    const HostCoo edges = book_example_edges();
    show_edges(edges);
    const AdjacencyList adj = build_adjacency_list(edges);
    show_adjacency_list(adj);

    std::vector<int> row_offsets, col_idx;
    adjacency_to_csr(adj, row_offsets, col_idx);
    show_csr(row_offsets, col_idx);
    show_slices(row_offsets, col_idx);

    SelfCheck check;
    check_csr(adj, edges, row_offsets, col_idx, check);
    return check.finish();
}
#endif
