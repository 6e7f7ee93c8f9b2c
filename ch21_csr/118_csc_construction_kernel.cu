// 21.3, kernel (self-check question 6): CSC, the in-neighbours of every vertex.
// CSR groups the edges by source and answers "whom does v point to?". CSC groups the same edges
// by destination and answers "who points to v?", the question that in-degrees and PageRank-style
// pulls ask. It is built by the very same count, scan and scatter as CSR (group_by_key.cuh), only
// keyed on the destination, with the source as the value that lands in the slots: col_offsets
// comes from a histogram of destinations, and row_idx lists each column's sources. The result is
// the CSR of the reversed graph, which is the CPU baseline, and what cuSPARSE's CSR-to-CSC
// conversion produces from the CSR.
//
// Build and run:  make 118_csc_construction_kernel && build/118_csc_construction_kernel
//                 build/118_csc_construction_kernel --scale 20 --skew 0.7
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "group_by_key.cuh"

// Reversing every edge u->v into v->u turns "grouped by destination" into "grouped by source",
// so the CSC of a graph is the CSR of its transpose.
HostCsr csc_cpu_baseline(const HostCoo& edges) {
    return csr_from_coo_by_stable_sort(transposed(edges));
}

// The length of each slice: a degree per vertex, read off an offsets array.
std::vector<int> slice_lengths(const std::vector<int>& offsets) {
    std::vector<int> lengths(offsets.empty() ? 0 : offsets.size() - 1);
    for (size_t v = 0; v < lengths.size(); ++v) lengths[v] = offsets[v + 1] - offsets[v];
    return lengths;
}

// Every edge as a (source, destination, weight) triple, read back from a CSC: column v's slice
// names the sources u of the edges u->v. Sorted, so that it can be compared with the triples that
// sorted_entries reads from a CSR, where row u's slice names the destinations v.
std::vector<Entry> edges_seen_from_csc(const HostCsr& csc) {
    std::vector<Entry> e;
    e.reserve(csc.nnz());
    for (int v = 0; v < csc.num_rows; ++v)
        for (int k = csc.row_offsets[v]; k < csc.row_offsets[v + 1]; ++k)
            e.emplace_back(csc.col_idx[k], v, csc.values[k]);
    std::sort(e.begin(), e.end());
    return e;
}

// The per-thread bodies (count_key_thread, scatter_by_key_thread) and their kernels are the ones
// in group_by_key.cuh, written once for both groupings. Handing them the destination array as the
// key is the whole difference between building CSR and building CSC.
//
// A CSC is kept in a HostCsr whose "rows" are the graph's columns: its row_offsets are the
// col_offsets, its col_idx the row_idx (the in-neighbours' ids), its values the edge weights.
struct CscBuild {
    std::vector<int> in_degree;  // the count step's histogram of destinations
    HostCsr csc;
};

void launch_csc_build(DeviceEdgeList& edges, DeviceGrouping& grouping) {
    grouping.run(edges.dst.data(), edges.src.data(), edges.weight.data(), edges.num_edges());
}

// One key per destination (a column), one partner per source (a row).
DeviceGrouping make_csc_grouping(const DeviceEdgeList& edges) {
    return DeviceGrouping(edges.num_cols, edges.num_rows, static_cast<size_t>(edges.num_edges()));
}

// Poisoned, so that a slot that no thread wrote cannot pass for a source id, a weight or an
// offset that happens to be right.
void poison_csc_outputs(DeviceGrouping& grouping) {
    grouping.offsets.fill_bytes(0xFF);
    grouping.partner.fill_bytes(0xFF);
    grouping.weight.fill_bytes(0xFF);
}

CscBuild build_csc_gpu(const HostCoo& edges) {
    DeviceEdgeList d(edges);
    DeviceGrouping grouping = make_csc_grouping(d);
    poison_csc_outputs(grouping);
    launch_csc_build(d, grouping);
    return {grouping.download_counts(), grouping.download()};
}

// The count and the scatter are separate launches, so on a GPU their threads interleave
// differently; the emulator gives each its own order.
CscBuild build_csc_emulated(const HostCoo& edges, const ThreadOrder& count_order,
                            const ThreadOrder& scatter_order) {
    EmulatedGrouping g = group_by_key_emulated(edges.num_cols, edges.num_rows, edges.cols,
                                               edges.rows, edges.values, count_order,
                                               scatter_order);
    return {std::move(g.counts), std::move(g.grouped)};
}

// The library's reference: cuSPARSE's CSR-to-CSC conversion, carrying the float weights along
// (CUSPARSE_ACTION_NUMERIC). Note that it starts from a CSR, already grouped by source, where
// count, scan, scatter start from the raw edge list.
struct CusparseCsrToCsc {
    explicit CusparseCsrToCsc(const HostCsr& csr)
        : num_rows(csr.num_rows), num_cols(csr.num_cols), nnz(static_cast<int>(csr.nnz())),
          row_offsets(csr.row_offsets), col_idx(csr.col_idx), values(csr.values),
          col_offsets(static_cast<size_t>(csr.num_cols) + 1), row_idx(csr.nnz()),
          csc_values(csr.nnz()) {
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseCsr2cscEx2_bufferSize(
            handle, num_rows, num_cols, nnz, values.data(), row_offsets.data(), col_idx.data(),
            csc_values.data(), col_offsets.data(), row_idx.data(), CUDA_R_32F,
            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
        workspace = DeviceBuffer<unsigned char>(bytes);
    }
    void run() {
        CUSPARSE_CHECK(cusparseCsr2cscEx2(
            handle, num_rows, num_cols, nnz, values.data(), row_offsets.data(), col_idx.data(),
            csc_values.data(), col_offsets.data(), row_idx.data(), CUDA_R_32F,
            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
            workspace.data()));
    }
    void poison_outputs() {
        col_offsets.fill_bytes(0xFF);
        row_idx.fill_bytes(0xFF);
        csc_values.fill_bytes(0xFF);
    }
    HostCsr download() const {
        HostCsr c;
        c.num_rows = num_cols;
        c.num_cols = num_rows;
        c.row_offsets = col_offsets.download();
        c.col_idx = row_idx.download();
        c.values = csc_values.download();
        return c;
    }
    int num_rows, num_cols, nnz;
    CusparseHandle handle;
    DeviceBuffer<int> row_offsets, col_idx;
    DeviceBuffer<float> values;
    DeviceBuffer<int> col_offsets, row_idx;
    DeviceBuffer<float> csc_values;
    DeviceBuffer<unsigned char> workspace;
};

HostCsr csc_by_cusparse(const HostCsr& csr) {
    CusparseCsrToCsc library(csr);
    library.poison_outputs();
    library.run();
    return library.download();
}

// Not a book number: the book prints no CSC, but its nine edges enter vertex 0 never, vertex 1
// once (from 0) and each of the vertices 2 to 5 twice.
const std::vector<int> kExampleInDegree = {0, 1, 2, 2, 2, 2};

#ifndef LESSON_WITHOUT_MAIN
namespace {

std::string neighbour_list(const std::vector<int>& offsets, const std::vector<int>& ids, int v) {
    std::string s;
    for (int k = offsets[v]; k < offsets[v + 1]; ++k) s += std::to_string(ids[k]) + " ";
    return s.empty() ? "-" : s;
}

void print_side_by_side(const HostCsr& csr, const HostCsr& csc) {
    std::printf("vertex | out-degree  out-neighbours (CSR) | in-degree  in-neighbours (CSC)\n");
    for (int v = 0; v < csr.num_rows; ++v)
        std::printf("  %4d | %10d  %-20s | %9d  %s\n", v,
                    csr.row_offsets[v + 1] - csr.row_offsets[v],
                    neighbour_list(csr.row_offsets, csr.col_idx, v).c_str(),
                    csc.row_offsets[v + 1] - csc.row_offsets[v],
                    neighbour_list(csc.row_offsets, csc.col_idx, v).c_str());
}

// A matrix may have rows and no columns, or the reverse: each side is summarized on its own.
void print_degree_side(const char* direction, const std::vector<int>& degree) {
    if (degree.empty()) {
        std::printf("no %s-degrees: the graph has no vertices on that side\n", direction);
        return;
    }
    const auto largest = std::max_element(degree.begin(), degree.end());
    const long none = static_cast<long>(std::count(degree.begin(), degree.end(), 0));
    std::printf("largest %s-degree %d (vertex %ld); %ld vertex%s with %s-degree 0\n", direction,
                *largest, static_cast<long>(largest - degree.begin()), none, none == 1 ? "" : "es",
                direction);
}

void print_degree_summary(const std::vector<int>& out_degree, const std::vector<int>& in_degree) {
    print_degree_side("out", out_degree);
    print_degree_side("in", in_degree);
}

// Bytes that each step has to move at the least, every array touched once: the count reads the
// destinations and writes the counts; the scan reads the counts and writes the offsets; the
// scatter copies the offsets into the cursors, reads the three edge arrays and writes two.
struct StepBytes {
    double count, scan, scatter;
    double total() const { return count + scan + scatter; }
};

StepBytes csc_step_bytes(size_t num_keys, size_t num_edges) {
    const double k = 4.0 * (num_keys + 1), e = 4.0 * num_edges;
    return {e + k, 2 * k, 2 * k + 3 * e + 2 * e};
}

void print_timing(const char* label, double ms, double bytes, double copy_gbs) {
    std::printf("  %-34s %8.3f ms  %6.0f GB/s (%.0f%% of copy)\n", label, ms,
                gb_per_s(bytes, ms), 100 * gb_per_s(bytes, ms) / copy_gbs);
}

}  // namespace

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{152, 48, 1000e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "118 (21.3) kernel: CSC, every vertex's in-neighbours, by count, scan, scatter on dst");
    const HostCoo edges = chapter_input(p.options, kMemory);
    const bool small = edges.num_rows <= static_cast<int>(kPrintLimit);
    const HostCsr csr = csr_from_coo_by_stable_sort(edges);
    const HostCsr expected = csc_cpu_baseline(edges);

    CscBuild built;
    double ms = 0;
    if (p.on_gpu()) {
        ms = host_ms([&] { built = build_csc_gpu(edges); });
    } else {
        const ThreadOrder count_order = ThreadOrder::shuffled(p.seed);
        const ThreadOrder scatter_order = ThreadOrder::shuffled(p.seed + 1);
        ms = host_ms([&] { built = build_csc_emulated(edges, count_order, scatter_order); });
        std::printf("emulation: count threads in shuffled order %llu, scatter threads in %llu\n\n",
                    static_cast<unsigned long long>(p.seed),
                    static_cast<unsigned long long>(p.seed + 1));
    }

    std::printf("CSR, grouped by source (the stable-sort baseline):\n");
    print_array("row_offsets", csr.row_offsets, 11);
    print_array("col_idx", csr.col_idx, 11);
    print_array("weights", csr.values, 11);
    std::printf("CSC, grouped by destination (%s count, scan, scatter keyed on dst):\n",
                p.on_gpu() ? "GPU" : "emulated");
    print_array("in_degree", built.in_degree, 11);
    print_array("col_offsets", built.csc.row_offsets, 11);
    print_array("row_idx", built.csc.col_idx, 11);
    print_array("weights", built.csc.values, 11);
    std::printf("\n");
    if (small && is_well_formed(built.csc) && built.csc.num_rows == csr.num_rows) {
        print_side_by_side(csr, built.csc);
        std::printf("\n");
    }
    print_degree_summary(slice_lengths(csr.row_offsets), built.in_degree);
    std::printf("\n");

    SelfCheck check;
    if (!p.options.matrix.empty()) check.end_with(result_line(edges));
    const std::string source = p.on_gpu() ? "GPU" : "emulated";
    check.claim("the " + source + " count step's in-degrees equal the baseline's (CSR of the "
                "reversed edges)",
                built.in_degree == slice_lengths(expected.row_offsets));
    check.claim("col_offsets equals the baseline's exactly",
                built.csc.row_offsets == expected.row_offsets);
    check.claim("every column holds the baseline's multiset of (source, weight)",
                same_row_multisets(built.csc, expected));
    check.claim("cross-check with the CSR: u is an in-neighbour of v as often as v is an "
                "out-neighbour of u, with the same weights",
                is_well_formed(built.csc) && edges_seen_from_csc(built.csc) == sorted_entries(csr));
    if (p.options.book_example())
        check.claim("the in-degrees are 0 1 2 2 2 2, as the book's edge list implies (it prints "
                    "no CSC)",
                    built.in_degree == kExampleInDegree);

    if (!p.on_gpu()) {
        if (p.options.scale > 0)
            std::printf("time: %.1f ms on the host (emulation: not a GPU time)\n", ms);
        check.skip("cuSPARSE's CSR-to-CSC conversion gives the same columns as multisets",
                   "needs a GPU");
        return check.finish();
    }

    CusparseCsrToCsc library(csr);
    library.poison_outputs();
    library.run();
    check.claim("cuSPARSE's CSR-to-CSC conversion gives the same columns as multisets",
                same_row_multisets(library.download(), built.csc));

    if (p.options.scale > 0) {
        DeviceEdgeList d(edges);
        DeviceGrouping grouping = make_csc_grouping(d);
        launch_csc_build(d, grouping);  // a lone scatter below needs the scan's offsets
        const int num_edges = d.num_edges();
        const double copy_gbs = measure_copy_gbs();
        const double count_ms = median_gpu_ms([&] { grouping.count(d.dst.data(), num_edges); });
        const double scan_ms = median_gpu_ms([&] { grouping.scan(); });
        const double scatter_ms = median_gpu_ms([&] {
            grouping.scatter(d.dst.data(), d.src.data(), d.weight.data(), num_edges);
        });
        const double total_ms = median_gpu_ms([&] { launch_csc_build(d, grouping); });
        const double library_ms = median_gpu_ms([&] { library.run(); });
        const StepBytes bytes = csc_step_bytes(edges.num_cols, edges.nnz());
        const double library_bytes = 2 * (4.0 * (edges.num_cols + 1) + 8.0 * edges.nnz());
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
        print_timing("step 1, count (histogram of dst)", count_ms, bytes.count, copy_gbs);
        print_timing("step 2, scan (CUB exclusive sum)", scan_ms, bytes.scan, copy_gbs);
        print_timing("step 3, scatter (bump allocators)", scatter_ms, bytes.scatter, copy_gbs);
        print_timing("count + scan + scatter", total_ms, bytes.total(), copy_gbs);
        print_timing("cuSPARSE csr2cscEx2, from the CSR", library_ms, library_bytes, copy_gbs);
        std::printf("  ratio cuSPARSE / count + scan + scatter: %.2f\n", library_ms / total_ms);
    }
    return check.finish();
}
#endif
