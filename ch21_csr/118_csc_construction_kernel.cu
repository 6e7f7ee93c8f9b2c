// 118 (21.3) kernel: CSC, the in-neighbours of every vertex (self-check question 6).
// CSR groups the edges by source and answers "whom does v point to?"; CSC groups them by
// destination and answers "who points to v?", the question of in-degrees and PageRank's pull.
// It is built by 115's very count, scan and scatter kernels, keyed on the destination, with the
// source as what lands in the slots: col_offsets from a histogram of destinations, row_idx
// listing each column's sources. The result is the CSR of the reversed graph.
//
// Build and run:  make 118_csc_construction_kernel && build/118_csc_construction_kernel
//                 build/118_csc_construction_kernel --scale 20 --skew 0.7
//                 build/118_csc_construction_kernel --matrix data/karate.mtx
// 115's lesson: the count, scan and scatter keyed on either endpoint, and their CPU baseline
#include "115_csr_concurrent_construction_kernel.cu"

// The CPU baseline, in the kernels' shape: 115's (114's count, scan and scatter one edge at a
// time) over the reversed edges, the destination as the key and the source as the partner. In
// the kernels the atomics then race for a destination's cursor, which decides a source's place
// within its column and nothing else. The CSC comes back as 115's grouping: a HostCsr whose rows
// are the graph's columns, its row_offsets the col_offsets, its col_idx the row_idx (the
// in-neighbours' ids), its values the edge weights; the counts are the in-degrees.
inline GroupedEdges build_csc_cpu(const HostCoo& edges) {
    return build_csr_cpu(transposed(edges));
}

// 115's kernels, handed the destinations as the key and the sources as the partners.
inline GroupedEdges build_csc(const Here& count_here, const Here& scatter_here,
                              const HostCoo& edges) {
    const DeviceCoo d(count_here, edges);
    return group_by_key(count_here, scatter_here, edges.num_cols, edges.num_rows, d.cols, d.rows,
                        d.values);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/118_csc_construction_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, csc_construction_program());
    const HostCoo edges = chapter_input(p.options);
    const HostCsr csr = build_csr_cpu(edges).grouped;
    const GroupedEdges baseline = build_csc_cpu(edges);
    const GroupedEdges built = build_csc(p.here, scatter_place(p), edges);
    show_csr_and_csc(p, csr, built);
    write_csc_figure(p, csr, built);

    SelfCheck check;
    check_csc(p, edges, csr, baseline, built, check);
    compare_with_library(p, edges, csr, built, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
