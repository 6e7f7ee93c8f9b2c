// 114 (21.2) CPU baseline: CSR straight from a raw edge list, by count, scan and scatter.
// Edges arrive in no order, so no vertex's neighbours sit together yet. Three passes group them:
// count each source's degree (a histogram), turn the degrees into row_offsets with an exclusive
// prefix sum, then walk the edges again, each one taking the next free slot of its source's
// slice from a per-vertex cursor that starts at the slice's first slot (a bump allocator per
// vertex). 115 runs the same three steps with one thread per edge.
//
// Build and run:  make 114_csr_construction_cpu_baseline
//                 build/114_csr_construction_cpu_baseline
#ifndef CSR_CONSTRUCTION_CPU_114  // 115, 119 and 124 take its count and scan
#define CSR_CONSTRUCTION_CPU_114
#include <vector>
#include "chapter_inputs.h"

// Step 1: a histogram over the edges' sources.
inline std::vector<int> count_degrees(const HostCoo& edges) {
    std::vector<int> degree(edges.num_rows, 0);
    for (size_t e = 0; e < edges.nnz(); ++e) ++degree[edges.rows[e]];
    return degree;
}

// Step 2: vertex v's slice starts after the edges of every smaller vertex. The extra last entry
// is the edge count, so that the last vertex's slice ends like every other one.
inline std::vector<int> scan_degrees(const std::vector<int>& degree) {
    std::vector<int> row_offsets(degree.size() + 1, 0);
    for (size_t v = 0; v < degree.size(); ++v) row_offsets[v + 1] = row_offsets[v] + degree[v];
    return row_offsets;
}

// What the steps leave: the degrees, the CSR, where each cursor stopped (anywhere but the next
// slice's first slot would mean a miscounted degree) and the slot that each edge took.
struct CsrConstruction {
    std::vector<int> degree;
    HostCsr csr;
    std::vector<int> cursor, slot_of_edge;
};

// Step 3: each edge takes its source's next free slot. The slots start poisoned (-1), so that a
// slot that no edge took shows.
inline void scatter_edges(const HostCoo& edges, CsrConstruction& built) {
    std::vector<int>& col_idx = built.csr.col_idx;
    std::vector<float>& weights = built.csr.values;
    built.cursor.assign(built.csr.row_offsets.begin(), built.csr.row_offsets.end() - 1);
    col_idx.assign(edges.nnz(), -1);
    weights.assign(edges.nnz(), -1.0f);
    built.slot_of_edge.assign(edges.nnz(), -1);
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int slot = built.cursor[edges.rows[e]]++;
        col_idx[slot] = edges.cols[e];
        weights[slot] = edges.values[e];
        built.slot_of_edge[e] = slot;
    }
}

// The baseline: the three steps, one after another.
inline CsrConstruction csr_construction_cpu(const HostCoo& edges) {
    CsrConstruction built;
    built.degree = count_degrees(edges);
    built.csr.num_rows = edges.num_rows;
    built.csr.num_cols = edges.num_cols;
    built.csr.row_offsets = scan_degrees(built.degree);
    scatter_edges(edges, built);
    return built;
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/build_proof.h"

int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(argc, argv, csr_construction_program());
    const HostCoo edges = chapter_input(options);
    show_arrivals(edges, EdgeText::weighted);

    const CsrConstruction built = csr_construction_cpu(edges);
    show_count_and_scan(built);
    show_scatter(edges, built);

    SelfCheck check;
    check_construction(edges, built, check);
    return check.finish();
}
#endif
#endif  // CSR_CONSTRUCTION_CPU_114
