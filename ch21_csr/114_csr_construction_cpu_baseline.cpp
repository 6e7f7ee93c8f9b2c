// 21.2, CPU baseline: CSR straight from a raw edge list, by count, scan and scatter.
// Edges arrive in no order, so no vertex's neighbours sit together yet. Three passes group them:
// count each source's degree (a histogram), turn the degrees into row_offsets with an exclusive
// prefix sum, then walk the edges again, each one taking the next free slot of its source's
// slice from a per-vertex cursor that starts at the slice's first slot (a bump allocator per
// vertex). 115 runs the same three steps with one thread per edge.
//
// Build and run:  make 114_csr_construction_cpu_baseline
//                 build/114_csr_construction_cpu_baseline
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"

// Step 1: a histogram over the edges' sources.
std::vector<int> count_degrees(const HostCoo& edges) {
    std::vector<int> degree(edges.num_rows, 0);
    for (size_t e = 0; e < edges.nnz(); ++e) ++degree[edges.rows[e]];
    return degree;
}

// Step 2: vertex v's slice starts after the edges of every smaller vertex. The extra last entry
// is the edge count, so that the last vertex's slice ends like every other one.
std::vector<int> scan_degrees(const std::vector<int>& degree) {
    std::vector<int> row_offsets(degree.size() + 1, 0);
    for (size_t v = 0; v < degree.size(); ++v) row_offsets[v + 1] = row_offsets[v] + degree[v];
    return row_offsets;
}

// Step 3: each edge takes its source's next free slot. The cursors are returned so that the
// caller can see where they stopped: a cursor that ends anywhere but at the next slice's first
// slot would mean a miscounted degree. `narrate` prints each edge's move.
std::vector<int> scatter_edges(const HostCoo& edges, const std::vector<int>& row_offsets,
                               std::vector<int>& col_idx, std::vector<float>& weights,
                               bool narrate = false) {
    std::vector<int> cursor(row_offsets.begin(), row_offsets.end() - 1);
    col_idx.assign(edges.nnz(), -1);
    weights.assign(edges.nnz(), -1.0f);
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int src = edges.rows[e];
        const int slot = cursor[src]++;
        col_idx[slot] = edges.cols[e];
        weights[slot] = edges.values[e];
        if (narrate)
            std::printf("  edge (%d->%d, w=%g) takes slot %d; cursor[%d] %d -> %d\n", src,
                        edges.cols[e], static_cast<double>(edges.values[e]), slot, src, slot,
                        cursor[src]);
    }
    return cursor;
}

// The baseline: the three steps, one after another.
HostCsr build_csr_sequential(const HostCoo& edges) {
    HostCsr csr;
    csr.num_rows = edges.num_rows;
    csr.num_cols = edges.num_cols;
    csr.row_offsets = scan_degrees(count_degrees(edges));
    scatter_edges(edges, csr.row_offsets, csr.col_idx, csr.values);
    return csr;
}

inline std::string edge_text(int src, int dst, float weight) {
    char text[64];
    std::snprintf(text, sizeof text, "(%d->%d, w=%g)", src, dst, static_cast<double>(weight));
    return text;
}

inline void show_edges(const HostCoo& edges) {
    std::string arrivals;
    for (size_t e = 0; e < edges.nnz(); ++e)
        arrivals += (e == 0 ? "" : " ") + edge_text(edges.rows[e], edges.cols[e], edges.values[e]);
    std::printf("%s, %s, in arrival order (sources in no particular order):\n",
                counted(edges.num_rows, "vertex", "vertices").c_str(),
                counted(edges.nnz(), "edge").c_str());
    print_wrapped("  " + arrivals, 2);
    std::printf("\n");
}

inline std::vector<int> show_count(const HostCoo& edges) {
    const std::vector<int> degree = count_degrees(edges);
    std::printf("step 1, count: every edge adds one to its source's degree\n");
    print_array("degree", degree);
    std::printf("\n");
    return degree;
}

inline std::vector<int> show_scan(const std::vector<int>& degree) {
    const std::vector<int> row_offsets = scan_degrees(degree);
    std::printf("step 2, scan: an exclusive prefix sum of the degrees gives each slice's start\n");
    print_array("row_offsets", row_offsets);
    std::printf("\n");
    return row_offsets;
}

// Step 3, narrated; returns the cursors where they stopped.
inline std::vector<int> show_scatter(const HostCoo& edges, HostCsr& csr) {
    std::printf(
        "step 3, scatter: each edge takes its source's next free slot "
        "(cursor[v] starts at row_offsets[v])\n");
    const std::vector<int> final_cursor =
        scatter_edges(edges, csr.row_offsets, csr.col_idx, csr.values, true);
    std::printf("\n");
    print_array("col_idx", csr.col_idx, 7);
    print_array("weights", csr.values, 7);
    std::printf("\n");
    return final_cursor;
}

// Each slice beside the input's edges of that vertex, both sorted, as the multiset claim reads.
inline void show_slices(const HostCoo& edges, const HostCsr& csr) {
    std::printf(
        "each vertex's slice against its edges in the input, as multisets of "
        "(neighbour, weight):\n");
    for (int v = 0; v < csr.num_rows; ++v) {
        std::vector<std::pair<int, float>> slice, input;
        for (int k = csr.row_offsets[v]; k < csr.row_offsets[v + 1]; ++k)
            slice.emplace_back(csr.col_idx[k], csr.values[k]);
        for (size_t e = 0; e < edges.nnz(); ++e)
            if (edges.rows[e] == v) input.emplace_back(edges.cols[e], edges.values[e]);
        std::sort(slice.begin(), slice.end());
        std::sort(input.begin(), input.end());
        std::string members;
        for (const auto& [neighbour, weight] : slice)
            members += edge_text(v, neighbour, weight) + " ";
        std::printf("  vertex %d: slice [%d,%d) = { %s}: %s\n", v, csr.row_offsets[v],
                    csr.row_offsets[v + 1], members.c_str(),
                    slice == input ? "matches" : "DIFFERS");
    }
    std::printf("\n");
}

inline void check_build(const HostCoo& edges, const std::vector<int>& degree, const HostCsr& csr,
                        const std::vector<int>& final_cursor, SelfCheck& check) {
    check.claim("degree = [ 2 2 2 2 1 0 ], as in the book", degree == kBookDegree);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                csr.row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
    check.claim("every cursor stopped at the start of the next vertex's slice",
                std::equal(final_cursor.begin(), final_cursor.end(), csr.row_offsets.begin() + 1));
    check.claim("every row holds the same multiset of (neighbour, weight) as the input",
                same_row_multisets(csr, edges));
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    start_cpu_program(
        argc, argv,
        ProgramDescription(
            "114 (21.2) CPU baseline: CSR from a raw edge list by count, scan, "
            "scatter",
            {"make 114_csr_construction_cpu_baseline", "build/114_csr_construction_cpu_baseline"})
            .with_book_input("the book's example: 6 vertices, 9 weighted edges")
            .without_inputs());
    const HostCoo edges = book_example_edges();
    show_edges(edges);

    HostCsr csr;
    csr.num_rows = edges.num_rows;
    csr.num_cols = edges.num_cols;
    const std::vector<int> degree = show_count(edges);
    csr.row_offsets = show_scan(degree);
    const std::vector<int> final_cursor = show_scatter(edges, csr);
    show_slices(edges, csr);

    SelfCheck check;
    check_build(edges, degree, csr, final_cursor, check);
    return check.finish();
}
#endif
