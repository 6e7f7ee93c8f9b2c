// 21.2, CPU baseline: CSR straight from a raw edge list, by count, scan and scatter.
// Edges arrive in no order, so no vertex's neighbours sit together yet. Three passes group them:
// count each source's degree (a histogram), turn the degrees into row_offsets with an exclusive
// prefix sum, then walk the edges again, each one taking the next free slot of its source's
// slice from a per-vertex cursor that starts at the slice's first slot (a bump allocator per
// vertex). 115 runs the same three steps with one thread per edge.
//
// Build and run:  make 114_csr_construction_cpu_baseline && build/114_csr_construction_cpu_baseline
#include <algorithm>
#include <cstdio>
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
// slot would mean a miscounted degree.
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

HostCsr build_csr_sequential(const HostCoo& edges) {
    HostCsr csr;
    csr.num_rows = edges.num_rows;
    csr.num_cols = edges.num_cols;
    csr.row_offsets = scan_degrees(count_degrees(edges));
    scatter_edges(edges, csr.row_offsets, csr.col_idx, csr.values);
    return csr;
}

#ifndef LESSON_WITHOUT_MAIN
int main(int argc, char** argv) {
    parse_options(argc, argv, false);
    std::printf(
        "=== 114 (21.2) CPU baseline: CSR from a raw edge list by count, scan, scatter ===\n\n");
    const HostCoo edges = book_example_edges();
    std::printf("%d vertices, %zu edges, in arrival order (sources in no particular order):\n  ",
                edges.num_rows, edges.nnz());
    for (size_t e = 0; e < edges.nnz(); ++e)
        std::printf("(%d->%d, w=%g) ", edges.rows[e], edges.cols[e],
                    static_cast<double>(edges.values[e]));
    std::printf("\n\n");

    const std::vector<int> degree = count_degrees(edges);
    std::printf("step 1, count: every edge adds one to its source's degree\n");
    print_array("degree", degree);

    const std::vector<int> row_offsets = scan_degrees(degree);
    std::printf("\nstep 2, scan: an exclusive prefix sum of the degrees gives each slice's "
                "start\n");
    print_array("row_offsets", row_offsets);

    std::printf("\nstep 3, scatter: each edge takes its source's next free slot "
                "(cursor[v] starts at row_offsets[v])\n");
    HostCsr csr;
    csr.num_rows = edges.num_rows;
    csr.num_cols = edges.num_cols;
    csr.row_offsets = row_offsets;
    const std::vector<int> final_cursor =
        scatter_edges(edges, row_offsets, csr.col_idx, csr.values, true);
    std::printf("\n");
    print_array("col_idx", csr.col_idx, 7);
    print_array("weights", csr.values, 7);

    std::printf("\neach vertex's slice against its edges in the input, as multisets of "
                "(neighbour, weight):\n");
    for (int v = 0; v < csr.num_rows; ++v) {
        std::vector<std::pair<int, float>> slice, input;
        for (int k = row_offsets[v]; k < row_offsets[v + 1]; ++k)
            slice.emplace_back(csr.col_idx[k], csr.values[k]);
        for (size_t e = 0; e < edges.nnz(); ++e)
            if (edges.rows[e] == v) input.emplace_back(edges.cols[e], edges.values[e]);
        std::sort(slice.begin(), slice.end());
        std::sort(input.begin(), input.end());
        std::printf("  vertex %d: slice [%d,%d) = { ", v, row_offsets[v], row_offsets[v + 1]);
        for (const auto& [neighbour, weight] : slice)
            std::printf("(%d, w=%g) ", neighbour, static_cast<double>(weight));
        std::printf("}: %s\n", slice == input ? "matches" : "DIFFERS");
    }
    std::printf("\n");

    SelfCheck check;
    check.claim("degree = [ 2 2 2 2 1 0 ], as in the book", degree == kBookDegree);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book", row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
    check.claim("every cursor stopped at the start of the next vertex's slice",
                std::equal(final_cursor.begin(), final_cursor.end(), row_offsets.begin() + 1));
    check.claim("every row holds the same multiset of (neighbour, weight) as the input",
                same_row_multisets(csr, edges));
    return check.finish();
}
#endif
