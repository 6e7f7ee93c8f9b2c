// What the CPU lessons that build CSR (112, 114) print and check around their lessons: the edges
// as they arrive, each step's arrays, each vertex's slice, the claims, and 112's figure data.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/figure_data.h"
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"

inline ProgramDescription csr_conversion_program() {
    return ProgramDescription("112 (21.1) CPU baseline: adjacency list -> CSR",
                              {"make 112_csr_conversion_cpu_baseline && "
                               "build/112_csr_conversion_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_figure_data("the adjacency list, the CSR arrays and each vertex's slice")
        .without_inputs();
}

inline ProgramDescription csr_construction_program() {
    return ProgramDescription(
               "114 (21.2) CPU baseline: CSR from a raw edge list by count, scan, scatter",
               {"make 114_csr_construction_cpu_baseline",
                "build/114_csr_construction_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}

// Edge e of `edges`: "(2->3)", or "(2->3, w=8)" where the lesson's edges carry weights.
enum class EdgeText { plain, weighted };

inline std::string edge_text(const HostCoo& edges, size_t e, EdgeText text) {
    const std::string weight =
        text == EdgeText::weighted ? ", w=" + element_text(edges.values[e]) : "";
    return "(" + std::to_string(edges.rows[e]) + "->" + std::to_string(edges.cols[e]) + weight +
           ")";
}

// The edges as they arrive.
inline void show_arrivals(const HostCoo& edges, EdgeText text) {
    const bool weighted = text == EdgeText::weighted;
    std::string arrivals;
    for (size_t e = 0; e < edges.nnz(); ++e)
        arrivals += (e == 0 ? "" : " ") + edge_text(edges, e, text);
    std::printf("%s, %s, in arrival order (not grouped by source):\n",
                counted(edges.num_rows, "vertex", "vertices").c_str(),
                counted(edges.nnz(), weighted ? "weighted edge" : "directed edge").c_str());
    print_wrapped("  " + arrivals, 2);
    std::printf("\n");
}

// "1 2 3", or "(none)" for an empty list.
inline std::string listed(const std::vector<int>& a) {
    if (a.empty()) return "(none)";
    std::string text;
    for (int x : a) text += (text.empty() ? "" : " ") + std::to_string(x);
    return text;
}

// The edges as they arrive, then the containers that they filled.
inline void show_adjacency_list(const HostCoo& edges, const std::vector<std::vector<int>>& adj) {
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

inline void check_csr(const std::vector<std::vector<int>>& adj, const HostCoo& edges,
                      const std::vector<int>& row_offsets, const std::vector<int>& col_idx,
                      SelfCheck& check) {
    bool slices_match = row_offsets.size() == adj.size() + 1;
    for (size_t v = 0; slices_match && v < adj.size(); ++v)
        slices_match = slice_of(v, row_offsets, col_idx) == adj[v];
    check.claim("every CSR slice reproduces its vertex's adjacency list", slices_match);
    check_book_csr({static_cast<int>(adj.size()), edges.num_cols, row_offsets, col_idx, {}}, check);
    check.claim("row_offsets has V + 1 entries and ends at the edge count",
                row_offsets.size() == adj.size() + 1 &&
                    static_cast<size_t>(row_offsets.back()) == edges.nnz());
}

// --figure-data: the containers, the flat arrays and each vertex's slice of col_idx.
inline void write_csr_figure(const ProgramOptions& options,
                             const std::vector<std::vector<int>>& adj,
                             const std::vector<int>& row_offsets, const std::vector<int>& col_idx) {
    if (!wants_figure_data(options)) return;
    JsonWriter figure = begin_figure_data(options, "112");
    figure.field("adjacency", adj).field("row_offsets", row_offsets).field("col_idx", col_idx);
    add_slices(figure, "slices", row_offsets);
    write_figure_data(options, figure);
}

template <class Construction>  // 114's CsrConstruction
void show_count_and_scan(const Construction& built) {
    std::printf("step 1, count: every edge adds one to its source's degree\n");
    print_array("degree", built.degree);
    std::printf(
        "\nstep 2, scan: an exclusive prefix sum of the degrees gives each slice's start\n");
    print_array("row_offsets", built.csr.row_offsets);
    std::printf("\n");
}

// Each edge's move, in the scatter's order: the slot it took from its source's cursor.
template <class Construction>  // 114's CsrConstruction
void show_scatter(const HostCoo& edges, const Construction& built) {
    std::printf(
        "step 3, scatter: each edge takes its source's next free slot "
        "(cursor[v] starts at row_offsets[v])\n");
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int src = edges.rows[e], slot = built.slot_of_edge[e];
        std::printf("  edge %s takes slot %d; cursor[%d] %d -> %d\n",
                    edge_text(edges, e, EdgeText::weighted).c_str(), slot, src, slot, slot + 1);
    }
    std::printf("\n");
    print_array("col_idx", built.csr.col_idx, 7);
    print_array("weights", built.csr.values, 7);
    std::printf("\n");
}

template <class Construction>  // 114's CsrConstruction
void check_construction(const HostCoo& edges, const Construction& built, SelfCheck& check) {
    const HostCsr& csr = built.csr;
    check.claim("degree = [ 2 2 2 2 1 0 ], as in the book", built.degree == kBookDegree);
    check_book_csr(csr, check);
    check.claim("every cursor stopped at the start of the next vertex's slice",
                std::equal(built.cursor.begin(), built.cursor.end(), csr.row_offsets.begin() + 1));
    check.claim("every row holds the same multiset of (neighbour, weight) as the input",
                same_row_multisets(csr, edges));
}
