// What 114 prints and checks around its lesson (114_csr_construction_cpu_baseline.cpp): each of
// the three steps' results, each edge's move in the scatter, and the claims about the CSR.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"
#include "edge_arrivals.h"

inline ProgramDescription csr_construction_program() {
    return ProgramDescription(
               "114 (21.2) CPU baseline: CSR from a raw edge list by count, scan, scatter",
               {"make 114_csr_construction_cpu_baseline", "build/114_csr_construction_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}

inline void show_count(const CsrConstruction& built) {
    std::printf("step 1, count: every edge adds one to its source's degree\n");
    print_array("degree", built.degree);
    std::printf("\n");
}

inline void show_scan(const CsrConstruction& built) {
    std::printf("step 2, scan: an exclusive prefix sum of the degrees gives each slice's start\n");
    print_array("row_offsets", built.csr.row_offsets);
    std::printf("\n");
}

// Each edge's move, in the order the scatter made them: the slot it took, and its source's
// cursor, which that move bumped by one.
inline void show_scatter(const HostCoo& edges, const CsrConstruction& built) {
    std::printf(
        "step 3, scatter: each edge takes its source's next free slot "
        "(cursor[v] starts at row_offsets[v])\n");
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int src = edges.rows[e], slot = built.slot_of_edge[e];
        std::printf("  edge %s takes slot %d; cursor[%d] %d -> %d\n",
                    edge_text(src, edges.cols[e], edges.values[e]).c_str(), slot, src, slot,
                    slot + 1);
    }
    std::printf("\n");
    print_array("col_idx", built.csr.col_idx, 7);
    print_array("weights", built.csr.values, 7);
    std::printf("\n");
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

inline void check_construction(const HostCoo& edges, const CsrConstruction& built,
                               SelfCheck& check) {
    const HostCsr& csr = built.csr;
    check.claim("degree = [ 2 2 2 2 1 0 ], as in the book", built.degree == kBookDegree);
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                csr.row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
    check.claim("every cursor stopped at the start of the next vertex's slice",
                std::equal(built.cursor.begin(), built.cursor.end(), csr.row_offsets.begin() + 1));
    check.claim("every row holds the same multiset of (neighbour, weight) as the input",
                same_row_multisets(csr, edges));
}
