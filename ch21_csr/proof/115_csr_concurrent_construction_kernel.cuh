// What 115 prints, checks and times around its lesson: the layouts, the claims about the build,
// the book's two orders, --sorted-rows, and CUB's routes.
#pragma once
#include <algorithm>
#include <cstdio>
#ifdef __CUDACC__  // the library routes; a build without the CUDA Toolkit leaves them out
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_segmented_sort.cuh>
#endif
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "../../common/figure_data.h"
#include "build_proof.cuh"

inline ProgramDescription concurrent_construction_program() {
    return ProgramDescription(
               "115 (21.2) kernel: CSR from a raw edge list by count, scan, scatter",
               {"make 115_csr_concurrent_construction_kernel",
                "build/115_csr_concurrent_construction_kernel",
                "build/115_csr_concurrent_construction_kernel --sorted-rows --matrix "
                "data/karate.mtx",
                "build/115_csr_concurrent_construction_kernel --scale 22 --sorted-rows "
                "--max-memory 20G"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges, and its orders A and B")
        .with_switch("--sorted-rows", "then sort each row by column, weights moving along")
        .with_figure_data(
            "the edges, the arrays after each step of the build, and each edge's thread's "
            "counter and slot")
        .with_memory({248, 36, 900e6});
}

// The layout that the book's sample output shows for its order B (kBookOrderB).
const std::vector<int> kBookOrderBColIdx = {2, 1, 3, 2, 3, 4, 5, 4, 5};
const std::vector<float> kBookOrderBWeights = {1, 4, 5, 2, 8, 10, 6, 2, 3};

// Slots where a build's layout differs from the sequential scatter's.
inline size_t slots_that_differ(const HostCsr& a, const HostCsr& b) {
    size_t n = 0;
    for (size_t k = 0; k < a.nnz() && k < b.nnz(); ++k)
        n += a.col_idx[k] != b.col_idx[k] || a.values[k] != b.values[k];
    return n;
}

inline void show_build(const KernelProgram& p, const HostCoo& edges, const GroupedEdges& built,
                       const HostCsr& baseline) {
    std::printf(
        "%s, one per edge, count then scan then scatter (%s):\n",
        counted(edges.nnz(), "thread").c_str(),
        p.on_gpu() ? "on the GPU" : ("emulated, threads " + p.emulation_order_words()).c_str());
    if (printable(edges)) print_array("degree", built.counts, 11);
    print_csr("", built.grouped, CsrValues::weights, 11);
    const size_t moved = slots_that_differ(built.grouped, baseline);
    print_wrapped("layout: " + with_separators(moved) + " of " + counted(edges.nnz(), "slot") +
                  " differ from the sequential scatter's" +
                  (moved > 0 ? " (the atomics ordered rows differently, which CSR allows)" : ""));
    std::printf("\n");
}

// Each edge's slot in a built CSR: one in its source's row with its destination and weight.
inline std::vector<int> slots_of_edges(const HostCoo& edges, const HostCsr& built) {
    std::vector<int> slot(edges.nnz(), -1);
    std::vector<char> taken(built.nnz(), 0);
    for (size_t e = 0; e < edges.nnz(); ++e) {
        const int src = edges.rows[e];
        for (int k = built.row_offsets[src]; k < built.row_offsets[src + 1] && slot[e] < 0; ++k)
            if (!taken[k] && built.col_idx[k] == edges.cols[e] &&
                built.values[k] == edges.values[e]) {
                taken[k] = 1;
                slot[e] = k;
            }
    }
    return slot;
}

// --figure-data: the three steps run one at a time, the arrays after each, and each thread's slot.
inline void write_build_figure(const KernelProgram& p, const HostCoo& edges) {
    if (!wants_figure_data(p.options)) return;
    const DeviceCoo d(p.here, edges);
    DeviceGrouping grouping(p.here, edges.num_rows, edges.num_cols, edges.nnz());
    JsonWriter figure = begin_figure_data(p.options, "115");
    figure.field("where", where_kernels_ran(p));
    if (!p.on_gpu()) figure.field("thread_order", p.here.order().sequence(edges.nnz()));
    figure.field("rows", edges.rows).field("cols", edges.cols).field("weights", edges.values);
    figure.key("steps").begin_array();
    grouping.count(p.here, d.rows.data(), edges.nnz());
    std::vector<int> degree = grouping.counts.download();
    degree.pop_back();
    figure.begin_object().field("step", "count").field("degree", degree).end();
    grouping.scan();
    figure.begin_object().field("step", "scan");
    figure.field("row_offsets", grouping.grouped.row_offsets.download()).end();
    grouping.scatter(p.here, d.rows.data(), d.cols.data(), d.values.data(), edges.nnz());
    const HostCsr built = grouping.grouped.download();
    figure.begin_object().field("step", "scatter").field("col_idx", built.col_idx);
    figure.field("weights", built.values).field("cursor", grouping.cursor.download()).end();
    figure.end().field("slot_of_thread", slots_of_edges(edges, built));
    write_figure_data(p.options, figure);
}

inline void check_build(const KernelProgram& p, const HostCoo& edges, const GroupedEdges& built,
                        const GroupedEdges& baseline, SelfCheck& check) {
    check_baseline_is_stable_sort(
        "the CPU baseline equals a stable sort of the edges by source, slot by slot",
        baseline.grouped, edges, check);
    const std::string whose = p.on_gpu() ? "the GPU's" : "the emulated";
    check.claim(whose + " degrees equal the baseline's", built.counts == baseline.counts);
    check_rows_as_baseline(whose, built.grouped, baseline.grouped, check);
    if (p.options.book_example())
        check.claim("degree = [ 2 2 2 2 1 0 ] and row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.counts == kBookDegree && built.grouped.row_offsets == kBookRowOffsets);
    std::printf("\n");
}

// The book's two arrival orders for the scatter, A and B (kBookOrderB), replayed by the emulator.
inline void check_book_orders(const HostCoo& edges, const HostCsr& a, const HostCsr& b,
                              const HostCsr& baseline, SelfCheck& check) {
    const ThreadOrder order_a = ThreadOrder::ascending(), order_b = ThreadOrder::given(kBookOrderB);
    std::printf("the book's two arrival orders for the scatter, replayed by the host emulator:\n");
    std::printf("order A, edges claim their slots in input order %s:\n",
                listed(order_a.sequence(edges.nnz())).c_str());
    print_array("col_idx", a.col_idx, 7);
    print_array("weights", a.values, 7);
    std::printf("order B, edges claim their slots in the order %s:\n",
                listed(order_b.sequence(edges.nnz())).c_str());
    print_array("col_idx", b.col_idx, 7);
    print_array("weights", b.values, 7);
    check.claim(
        "order A gives the book's layout A (col_idx 1 2 2 3 3 4 4 5 5, "
        "weights 4 1 2 5 8 10 2 6 3)",
        a.col_idx == kBookColIdx && a.values == kBookWeights);
    check.claim(
        "order B gives the book's layout B (col_idx 2 1 3 2 3 4 5 4 5, "
        "weights 1 4 5 2 8 10 6 2 3)",
        b.col_idx == kBookOrderBColIdx && b.values == kBookOrderBWeights);
    check.claim("the layouts of orders A and B differ", a.col_idx != b.col_idx);
    check.claim("every row holds the same multiset in A, in B and in the baseline",
                same_row_multisets(a, baseline) && same_row_multisets(b, baseline) &&
                    same_row_multisets(a, b));
    std::printf("\n");
}

// --sorted-rows fixes every slot but those of duplicate edges, which may still swap weights.
inline bool rows_sorted_by_column(const HostCsr& g) {
    for (int r = 0; r < g.num_rows; ++r)
        if (!std::is_sorted(g.col_idx.begin() + g.row_offsets[r],
                            g.col_idx.begin() + g.row_offsets[r + 1]))
            return false;
    return true;
}

#ifdef __CUDACC__
// --sorted-rows on a GPU: cub::DeviceSegmentedSort::SortPairs, its segments off row_offsets.
struct DeviceRowSorter {
    auto call(const int* row_offsets, const int* col_in, const float* values_in) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceSegmentedSort::SortPairs(
                scratch, bytes, col_in, col_idx.data(), values_in, values.data(),
                static_cast<int64_t>(col_idx.size()), num_rows, row_offsets,
                row_offsets == nullptr ? nullptr : row_offsets + 1);
        };
    }

    DeviceRowSorter(int rows, size_t nnz) : num_rows(rows), col_idx(nnz), values(nnz) {
        scratch = CubScratch(call(nullptr, nullptr, nullptr));
        col_idx.fill_bytes(0xFF);
        values.fill_bytes(0xFF);
    }

    void run(const DeviceCsr& in) {
        if (col_idx.size() == 0 || num_rows == 0) return;
        scratch.run(call(in.row_offsets.data(), in.col_idx.data(), in.values.data()));
    }

    int num_rows;
    DeviceBuffer<int> col_idx;
    DeviceBuffer<float> values;
    CubScratch scratch;
};
#endif

inline HostCsr sorted_by_column(const Here& here, const HostCsr& g) {
    HostCsr sorted = g;
#ifdef __CUDACC__
    if (here.on_gpu()) {
        DeviceRowSorter sorter(g.num_rows, g.nnz());
        sorter.run(DeviceCsr(here, g));
        sorted.col_idx = sorter.col_idx.download();
        sorted.values = sorter.values.download();
        return sorted;
    }
#endif
    std::vector<std::pair<int, float>> row;
    for (int r = 0; r < g.num_rows; ++r) {
        row_by_column(g, r, row);
        for (int k = g.row_offsets[r]; k < g.row_offsets[r + 1]; ++k)
            std::tie(sorted.col_idx[k], sorted.values[k]) = row[k - g.row_offsets[r]];
    }
    return sorted;
}

inline void check_sorted_rows(const KernelProgram& p, const HostCsr& built, const HostCsr& baseline,
                              SelfCheck& check) {
    announce_large(built.nnz(), "--sorted-rows: sorting every row by column");
    const HostCsr sorted = sorted_by_column(p.here, built);
    std::printf("--sorted-rows: every row sorted by column, weights alongside (%s)%s\n",
                p.on_gpu() ? "cub::DeviceSegmentedSort::SortPairs" : "a sort per row, on the host",
                printable(sorted) ? ":" : ".");
    if (printable(sorted)) {
        print_array("col_idx", sorted.col_idx, 7);
        print_array("weights", sorted.values, 7);
    }
    check.claim("after --sorted-rows every row is sorted by column", rows_sorted_by_column(sorted));
    announce_large(sorted.nnz(), "comparing every sorted row with the baseline's, as multisets");
    check.claim("after --sorted-rows every row holds the same multiset as before",
                same_row_multisets(sorted, baseline));
    if (p.options.book_example())
        check.claim("the sorted layout equals the book's layout A",
                    sorted.col_idx == kBookColIdx && sorted.values == kBookWeights);
    std::printf("\n");
}

#ifdef __CUDACC__
// The library's count step on a GPU: cub::DeviceHistogram, a bin per vertex (never zero bins).
struct LibraryDegreeCount {
    auto call(const int* src) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceHistogram::HistogramEven(scratch, bytes, src, degree.data(),
                                                       num_rows + 1, 0, num_rows, num_edges);
        };
    }

    LibraryDegreeCount(int rows, int edges) : num_rows(rows), num_edges(edges), degree(rows) {
        if (num_rows > 0) scratch = CubScratch(call(nullptr));
        degree.fill_bytes(0xFF);
    }

    void run(const int* src) {
        if (num_rows > 0) scratch.run(call(src));
    }

    int num_rows, num_edges;
    DeviceBuffer<int> degree;
    CubScratch scratch;
};
#endif

// The library routes, checked on a GPU, and at --scale timed beside the build's steps.
inline void compare_with_library(const KernelProgram& p, const HostCoo& edges,
                                 const GroupedEdges& baseline, SelfCheck& check) {
    const std::string histogram_claim =
        "cub::DeviceHistogram::HistogramEven gives the baseline's degrees";
    if (!p.on_gpu()) check.skip(histogram_claim);
    check_sort_build<GatherSortCsrBuild>(
        p,
        "the sort-based build (CUB radix sort + gather + cuSPARSE coo2csr) equals the baseline "
        "exactly",
        edges, baseline.grouped, check);
    if (!p.on_gpu()) return;
#ifdef __CUDACC__
    const DeviceCoo d(p.here, edges);
    LibraryDegreeCount histogram(edges.num_rows, d.nnz());
    histogram.run(d.rows.data());
    check.claim(histogram_claim, histogram.degree.download() == baseline.counts);
    if (p.options.scale == 0) return;
    std::printf("\n");
    DeviceGrouping grouping(p.here, edges.num_rows, edges.num_cols, edges.nnz());
    TimingTable table(p, "115", p.options.skew, kGroupingBytesNote);
    const GroupingTimes build =
        timed_grouping_steps(table, p.here, grouping, d.rows, d.cols, d.values, "sources");
    const GroupingBytes bytes = grouping_bytes(edges.num_rows, edges.nnz());
    const double histogram_ms = table.time("cub_histogram", "cub::DeviceHistogram (count only)",
                                           bytes.count, [&] { histogram.run(d.rows.data()); });
    const double by_sort_ms = timed_gather_sort_build(table, edges, d, bytes.total());
    table.ratio("histogram / atomic count", histogram_ms / build.count_ms, "the library is faster");
    table.ratio("sort-based / atomic build", by_sort_ms / build.build_ms, "the sort is faster");
    if (!p.options.has("--sorted-rows")) return;
    DeviceRowSorter sorter(edges.num_rows, edges.nnz());
    const double row_sort_ms = table.time(
        "cub_segmented_row_sort", "--sorted-rows, cub::DeviceSegmentedSort",
        16.0 * edges.nnz() + 4.0 * (edges.num_rows + 1), [&] { sorter.run(grouping.grouped); });
    table.ratio("--sorted-rows / construction", row_sort_ms / build.build_ms);
#endif
}
