// What 118 prints, checks and times around its lesson: the CSR beside the CSC, the degrees, the
// claims about the CSC, and cuSPARSE's CSR-to-CSC conversion.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/figure_data.h"
#include "build_proof.cuh"

inline ProgramDescription csc_construction_program() {
    return ProgramDescription(
               "118 (21.3) kernel: CSC, every vertex's in-neighbours, by count, scan, scatter on "
               "dst",
               {"make 118_csc_construction_kernel && build/118_csc_construction_kernel",
                "build/118_csc_construction_kernel --scale 20 --skew 0.7",
                "build/118_csc_construction_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_figure_data("the CSR and the CSC and each vertex's slice of both")
        .with_memory({152, 48, 1000e6});
}

// Not a book number: the book prints no CSC, but its edges imply these in-degrees.
const std::vector<int> kExampleInDegree = {0, 1, 2, 2, 2, 2};

// The emulator gives the scatter a shuffle of its own (the count's seed + 1), unless --order.
inline Here scatter_place(const KernelProgram& p) {
    if (p.on_gpu() || p.fixed_order()) return p.here;
    return Here::emulated(ThreadOrder::shuffled(p.seed + 1));
}

// Every edge as a sorted (source, destination, weight) read back from a CSC, as sorted_entries
// reads it from a CSR.
inline std::vector<Entry> edges_seen_from_csc(const HostCsr& csc) {
    std::vector<Entry> e;
    e.reserve(csc.nnz());
    for (int v = 0; v < csc.num_rows; ++v)
        for (int k = csc.row_offsets[v]; k < csc.row_offsets[v + 1]; ++k)
            e.emplace_back(csc.col_idx[k], v, csc.values[k]);
    std::sort(e.begin(), e.end());
    return e;
}

// Vertex v's neighbours in g, "1 2 3" or "(none)".
inline std::string neighbour_list(const HostCsr& g, int v) {
    return listed(slice_of(v, g.row_offsets, g.col_idx));
}

// For a small input: the CSR, the CSC under its own names, and each vertex's neighbours both ways.
inline void show_small_csc(const KernelProgram& p, const HostCsr& csr, const GroupedEdges& built) {
    if (!printable(csr)) return;
    print_csr("CSR, grouped by source (115's CPU baseline, build_csr_cpu):", csr);
    std::printf("CSC, grouped by destination (%s count, scan, scatter keyed on dst):\n",
                p.here.name());
    const std::vector<int>& in_degree = built.counts;
    const std::vector<int>& col_offsets = built.grouped.row_offsets;
    const std::vector<int>& row_idx = built.grouped.col_idx;
    print_array("in_degree", in_degree, 11);
    print_array("col_offsets", col_offsets, 11);
    print_array("row_idx", row_idx, 11);
    print_array("weights", built.grouped.values, 11);
    std::printf("\n");
    if (!is_well_formed(built.grouped) || built.grouped.num_rows != csr.num_rows) return;
    std::printf("vertex | out-degree  out-neighbours (CSR) | in-degree  in-neighbours (CSC)\n");
    for (int v = 0; v < csr.num_rows; ++v)
        std::printf("  %4d | %10d  %-20s | %9d  %s\n", v,
                    csr.row_offsets[v + 1] - csr.row_offsets[v], neighbour_list(csr, v).c_str(),
                    built.grouped.row_offsets[v + 1] - built.grouped.row_offsets[v],
                    neighbour_list(built.grouped, v).c_str());
    std::printf("\n");
}

// --figure-data: the CSR beside the CSC under its own names, and each vertex's slice of both.
inline void write_csc_figure(const KernelProgram& p, const HostCsr& csr,
                             const GroupedEdges& built) {
    if (!wants_figure_data(p.options)) return;
    JsonWriter figure = begin_figure_data(p.options, "118");
    figure.field("where", where_kernels_ran(p));
    figure.key("csr").begin_object().field("row_offsets", csr.row_offsets);
    figure.field("col_idx", csr.col_idx).field("weights", csr.values);
    add_slices(figure, "slices", csr.row_offsets);
    figure.end().key("csc").begin_object().field("in_degree", built.counts);
    figure.field("col_offsets", built.grouped.row_offsets).field("row_idx", built.grouped.col_idx);
    figure.field("weights", built.grouped.values);
    add_slices(figure, "slices", built.grouped.row_offsets);
    figure.end();
    write_figure_data(p.options, figure);
}

// Each side on its own: a matrix may have rows and no columns, or the reverse.
inline void show_degree_side(const std::string& direction, const std::vector<int>& degree) {
    if (degree.empty()) {
        print_wrapped("no " + direction + "-degrees: the graph has no vertices on that side");
        return;
    }
    const auto largest = std::max_element(degree.begin(), degree.end());
    const size_t none = std::count(degree.begin(), degree.end(), 0);
    print_wrapped("largest " + direction + "-degree " + with_separators(*largest) + " (vertex " +
                  std::to_string(largest - degree.begin()) + "); " +
                  counted(none, "vertex", "vertices") + " with " + direction + "-degree 0");
}

// Where the emulator ran the count and the scatter, the arrays of a small input, the degrees.
inline void show_csr_and_csc(const KernelProgram& p, const HostCsr& csr,
                             const GroupedEdges& built) {
    if (!p.on_gpu() && !p.fixed_order())
        std::printf(
            "emulation: count threads shuffled with seed %llu, scatter threads with seed %llu\n\n",
            static_cast<unsigned long long>(p.seed), static_cast<unsigned long long>(p.seed + 1));
    show_small_csc(p, csr, built);
    show_degree_side("out", row_lengths(csr));
    show_degree_side("in", built.counts);
    std::printf("\n");
}

// The kernels' CSC against the baseline, the baseline against a stable sort of the reversed
// edges, and the CSC read back against the CSR.
inline void check_csc(const KernelProgram& p, const HostCoo& edges, const HostCsr& csr,
                      const GroupedEdges& baseline, const GroupedEdges& built, SelfCheck& check) {
    check_baseline_is_stable_sort(
        "the CPU baseline's CSC is the CSR of the reversed edges (a stable sort of them by "
        "source), slot by slot",
        baseline.grouped, transposed(edges), check);
    check.claim(
        std::string("the ") + p.here.name() + " count step's in-degrees equal the CPU baseline's",
        built.counts == baseline.counts);
    check.claim("col_offsets equals the baseline's exactly",
                built.grouped.row_offsets == baseline.grouped.row_offsets);
    announce_large(edges.nnz(),
                   "comparing every column with the baseline's, and every edge with the CSR's");
    check.claim("every column holds the baseline's multiset of (source, weight)",
                same_row_multisets(built.grouped, baseline.grouped));
    check.claim(
        "cross-check with the CSR: u is an in-neighbour of v as often as v is an "
        "out-neighbour of u, with the same weights",
        is_well_formed(built.grouped) && edges_seen_from_csc(built.grouped) == sorted_entries(csr));
    if (p.options.book_example())
        check.claim(
            "the in-degrees are 0 1 2 2 2 2, as the book's edge list implies (it prints "
            "no CSC)",
            built.counts == kExampleInDegree);
}

#ifdef __CUDACC__
// The library's route to a CSC, on a GPU only: cusparseCsr2cscEx2, from a CSR (already grouped,
// so less to do than the build). The sizing call and the conversion differ in the last argument.
struct CusparseCsrToCsc {
    template <class Call, class Last>
    cusparseStatus_t call(Call f, Last last) {
        return f(handle, csr.num_rows, csr.num_cols, csr.nnz(), csr.values.data(),
                 csr.row_offsets.data(), csr.col_idx.data(), csc.values.data(),
                 csc.row_offsets.data(), csc.col_idx.data(), CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, last);
    }
    explicit CusparseCsrToCsc(const HostCsr& a)
        : csr(Here::gpu(), a), csc(Here::gpu(), a.num_cols, a.num_rows, a.nnz()) {
        size_t bytes = 0;
        CUSPARSE_CHECK(call(cusparseCsr2cscEx2_bufferSize, &bytes));
        workspace = DeviceBuffer<unsigned char>(bytes);
    }
    void run() { CUSPARSE_CHECK(call(cusparseCsr2cscEx2, workspace.data())); }

    CusparseHandle handle;
    DeviceCsr csr, csc;  // the CSC's rows are the graph's columns
    DeviceBuffer<unsigned char> workspace;
};
#endif

// cuSPARSE's conversion, checked on a GPU, and at --scale timed beside the steps keyed on dst.
inline void compare_with_library(const KernelProgram& p, const HostCoo& edges, const HostCsr& csr,
                                 const GroupedEdges& built, SelfCheck& check) {
    const std::string claim =
        "cuSPARSE's CSR-to-CSC conversion gives the same columns as multisets";
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    CusparseCsrToCsc library(csr);
    library.run();
    check.claim(claim, same_row_multisets(library.csc.download(), built.grouped));
    if (p.options.scale == 0) return;
    const DeviceCoo d(p.here, edges);
    DeviceGrouping grouping(p.here, edges.num_cols, edges.num_rows, edges.nnz());
    std::printf("\n");
    TimingTable table(p, "118", p.options.skew, kGroupingBytesNote);
    const GroupingTimes build =
        timed_grouping_steps(table, p.here, grouping, d.cols, d.rows, d.values, "destinations");
    const double library_bytes = 2 * (4.0 * (edges.num_cols + 1) + 8.0 * edges.nnz());  // CSR + CSC
    const double library_ms = table.time("cusparse_csr2csc", "cuSPARSE csr2cscEx2, from the CSR",
                                         library_bytes, [&] { library.run(); });
    table.ratio("cuSPARSE / count + scan + scatter", library_ms / build.build_ms,
                "cuSPARSE is faster");
#endif
}
