// What 112 prints and checks around its lesson (112_csr_conversion_cpu_baseline.cpp): the edges,
// the adjacency list, the CSR arrays and each vertex's slice, and the claims about them.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/figure_data.h"
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"
#include "edge_arrivals.h"

inline ProgramDescription csr_conversion_program() {
    return ProgramDescription("112 (21.1) CPU baseline: adjacency list -> CSR",
                              {"make 112_csr_conversion_cpu_baseline && "
                               "build/112_csr_conversion_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_figure_data("the adjacency list, the CSR arrays and each vertex's slice")
        .without_inputs();
}

// "1 2 3", or "(none)" for an empty list.
inline std::string listed(const std::vector<int>& a) {
    if (a.empty()) return "(none)";
    std::string text;
    for (int x : a) text += (text.empty() ? "" : " ") + std::to_string(x);
    return text;
}

// The edges as they arrive, then the containers that they filled.
inline void show_adjacency_list(const HostCoo& edges, const AdjacencyList& adj) {
    show_arrivals(edges, EdgeText::plain);
    std::printf("adjacency list, one container per vertex:\n");
    for (size_t v = 0; v < adj.size(); ++v)
        std::printf("  adj[%zu]: %s\n", v, listed(adj[v]).c_str());
    std::printf("\n");
}

// Vertex v's neighbours, read back out of the flat arrays.
inline std::vector<int> slice_of(size_t v, const std::vector<int>& row_offsets,
                                 const std::vector<int>& col_idx) {
    return std::vector<int>(col_idx.begin() + row_offsets[v], col_idx.begin() + row_offsets[v + 1]);
}

inline void show_slices(const std::vector<int>& row_offsets, const std::vector<int>& col_idx) {
    std::printf("each vertex's slice of col_idx:\n");
    for (size_t v = 0; v + 1 < row_offsets.size(); ++v)
        std::printf("  vertex %zu: [%d,%d) -> %s\n", v, row_offsets[v], row_offsets[v + 1],
                    listed(slice_of(v, row_offsets, col_idx)).c_str());
    std::printf("\n");
}

inline void check_csr(const AdjacencyList& adj, const HostCoo& edges,
                      const std::vector<int>& row_offsets, const std::vector<int>& col_idx,
                      SelfCheck& check) {
    bool slices_match = row_offsets.size() == adj.size() + 1;
    for (size_t v = 0; slices_match && v < adj.size(); ++v)
        slices_match = slice_of(v, row_offsets, col_idx) == adj[v];
    check.claim("every CSR slice reproduces its vertex's adjacency list", slices_match);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book", row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", col_idx == kBookColIdx);
    check.claim("row_offsets has V + 1 entries and ends at the edge count",
                row_offsets.size() == adj.size() + 1 &&
                    static_cast<size_t>(row_offsets.back()) == edges.nnz());
}

// --figure-data: the containers, the flat arrays and each vertex's slice of col_idx, which is
// what thread v of a thread-per-vertex kernel (113) reads.
inline void write_csr_figure(const ProgramOptions& options, const AdjacencyList& adj,
                             const std::vector<int>& row_offsets, const std::vector<int>& col_idx) {
    if (!wants_figure_data(options)) return;
    JsonWriter figure = begin_figure_data(options, "112");
    figure.field("adjacency", adj).field("row_offsets", row_offsets).field("col_idx", col_idx);
    add_slices(figure, "slices", row_offsets);
    write_figure_data(options, figure);
}
