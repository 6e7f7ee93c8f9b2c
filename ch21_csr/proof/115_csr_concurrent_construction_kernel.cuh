// What 115 prints, checks and times around its lesson (115_csr_concurrent_construction_kernel.cu):
// the layouts, the claims about the build, the book's two orders, --sorted-rows, CUB's routes.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "../../common/cub_scratch.cuh"
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/figure_data.h"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"

inline ProgramDescription csr_construction_program() {
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
    if (printable(edges)) {
        const std::vector<int>& degree = built.counts;
        print_array("degree", degree, 11);
        print_array("row_offsets", built.grouped.row_offsets, 11);
        print_array("col_idx", built.grouped.col_idx, 11);
        print_array("weights", built.grouped.values, 11);
    }
    const size_t moved = slots_that_differ(built.grouped, baseline);
    print_wrapped("layout: " + with_separators(moved) + " of " + counted(edges.nnz(), "slot") +
                  " differ from the sequential scatter's" +
                  (moved > 0 ? " (the atomics ordered rows differently, which CSR allows)" : ""));
    std::printf("\n");
}

// The slot of each edge in a built CSR: the one in its source's row that holds its destination
// and weight (of two identical edges, each takes one of their two slots; which one is which does
// not show in the arrays).
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

// --figure-data: the three steps run one at a time where the kernels run, the arrays after each,
// and the slot that each edge's thread e was handed (its counter and its cursor are those of its
// source, rows[e], already in the data).
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

// The baseline against an independent route: a stable sort of the edges by source keeps each
// row in arrival order, as the sequential scatter does, so the two agree slot by slot.
inline void check_baseline(const HostCoo& edges, const HostCsr& baseline, SelfCheck& check) {
    announce_large(edges.nnz(), "a stable sort of " + counted(edges.nnz(), "edge") + " by source");
    const HostCsr sorted = csr_from_coo_by_stable_sort(edges);
    check.claim("the CPU baseline equals a stable sort of the edges by source, slot by slot",
                baseline.row_offsets == sorted.row_offsets && baseline.col_idx == sorted.col_idx &&
                    baseline.values == sorted.values);
}

inline void check_build(const KernelProgram& p, const GroupedEdges& built,
                        const GroupedEdges& baseline, SelfCheck& check) {
    const std::string whose = p.on_gpu() ? "the GPU's" : "the emulated";
    check.claim(whose + " degrees equal the baseline's", built.counts == baseline.counts);
    check.claim(whose + " row_offsets equal the baseline's",
                built.grouped.row_offsets == baseline.grouped.row_offsets);
    announce_large(built.grouped.nnz(), "comparing every row with the baseline's, as multisets");
    check.claim(
        "every row of " + whose + " CSR holds the baseline's multiset of (neighbour, weight)",
        same_row_multisets(built.grouped, baseline.grouped));
    if (p.options.book_example())
        check.claim("degree = [ 2 2 2 2 1 0 ] and row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.counts == kBookDegree && built.grouped.row_offsets == kBookRowOffsets);
    std::printf("\n");
}

// "4 0 8 1 7 5 3 6 2": the order in which the emulator runs the threads of a launch of `n`.
inline std::string order_text(const ThreadOrder& order, size_t n) {
    const std::string bracketed_order = bracketed(order.sequence(n));
    return bracketed_order.substr(2, bracketed_order.size() - 4);
}

// The book's two arrival orders for the scatter, replayed by the emulator on either backend: the
// replay is the point, and no GPU can be told an order.
inline void replay_book_orders(const KernelProgram& p, const HostCoo& edges,
                               const HostCsr& baseline, SelfCheck& check) {
    const Here count_here = Here::emulated(p.shuffled_order());
    const ThreadOrder order_a = ThreadOrder::ascending(), order_b = ThreadOrder::given(kBookOrderB);
    const HostCsr a = build_csr(count_here, Here::emulated(order_a), edges).grouped;
    const HostCsr b = build_csr(count_here, Here::emulated(order_b), edges).grouped;
    std::printf("the book's two arrival orders for the scatter, replayed by the host emulator:\n");
    std::printf("order A, edges claim their slots in input order %s:\n",
                order_text(order_a, edges.nnz()).c_str());
    print_array("col_idx", a.col_idx, 7);
    print_array("weights", a.values, 7);
    std::printf("order B, edges claim their slots in the order %s:\n",
                order_text(order_b, edges.nnz()).c_str());
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

// --sorted-rows: each row sorted by column, its weights moving with it. Duplicate edges (same
// row, same column) may still swap weights with each other; everything else is fixed.
inline bool rows_sorted_by_column(const HostCsr& g) {
    for (int r = 0; r < g.num_rows; ++r)
        if (!std::is_sorted(g.col_idx.begin() + g.row_offsets[r],
                            g.col_idx.begin() + g.row_offsets[r + 1]))
            return false;
    return true;
}

// The library route of --sorted-rows, on a GPU only: cub::DeviceSegmentedSort::SortPairs, with
// the rows as its segments, read straight off row_offsets. Sorting within rows is not the
// chapter's lesson, and CUB's segmented sort is the tuned way of doing it.
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
    }

    void run(const int* row_offsets, const int* col_in, const float* values_in) {
        if (col_idx.size() == 0 || num_rows == 0) return;
        scratch.run(call(row_offsets, col_in, values_in));
    }

    int num_rows;
    DeviceBuffer<int> col_idx;
    DeviceBuffer<float> values;
    CubScratch scratch;
};

// CUB's segmented sort on the GPU, a sort of each row on the host in emulation.
inline HostCsr sorted_by_column(const Here& here, const HostCsr& g) {
    HostCsr sorted = g;
    if (here.on_gpu()) {
        const DeviceCsr d(here, g);
        DeviceRowSorter sorter(g.num_rows, g.nnz());
        sorter.col_idx.fill_bytes(0xFF);
        sorter.values.fill_bytes(0xFF);
        sorter.run(d.row_offsets.data(), d.col_idx.data(), d.values.data());
        sorted.col_idx = sorter.col_idx.download();
        sorted.values = sorter.values.download();
        return sorted;
    }
    std::vector<std::pair<int, float>> row;
    for (int r = 0; r < g.num_rows; ++r) {
        const int begin = g.row_offsets[r], end = g.row_offsets[r + 1];
        row.clear();
        for (int k = begin; k < end; ++k) row.emplace_back(g.col_idx[k], g.values[k]);
        std::sort(row.begin(), row.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (int k = begin; k < end; ++k)
            std::tie(sorted.col_idx[k], sorted.values[k]) = row[k - begin];
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

// The sort-based build's own small steps: number the edges, and have each CSR slot fetch its
// edge's destination and weight once the sort has said which edge the slot holds.
__host__ __device__ inline void number_edge_thread(int e, int* edge_index) {
    edge_index[e] = e;
}

__global__ void number_edge_kernel(int num_edges, int* edge_index) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) number_edge_thread(e, edge_index);
}

__host__ __device__ inline void gather_slot_thread(int slot, const int* edge_of_slot,
                                                   const int* dst, const float* weight,
                                                   int* col_idx, float* values) {
    const int e = edge_of_slot[slot];
    col_idx[slot] = dst[e];
    values[slot] = weight[e];
}

__global__ void gather_slot_kernel(int num_edges, const int* edge_of_slot, const int* dst,
                                   const float* weight, int* col_idx, float* values) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot < num_edges) gather_slot_thread(slot, edge_of_slot, dst, weight, col_idx, values);
}

// The library route to the same CSR, on a GPU only: cub::DeviceRadixSort::SortPairs sorts the
// edge indices keyed on the source, stably, so each row keeps arrival order and the result must
// equal the baseline exactly; a gather then fetches each slot's edge, and cusparseXcoo2csr turns
// the sorted sources into row_offsets. It is the fair comparison because it is how a library
// user would group edges without atomics: it trades them for several sort passes over the edges.
// Fewer bytes favour the atomic build, many edges fighting over one hub's cursor favour the
// sort; the timings at --scale say which wins.
struct SortBasedCsrBuild {
    // Only the bits that a vertex id can use are sorted on.
    auto sort_call(const int* src) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(
                scratch, bytes, src, sorted_src.data(), edge_index.data(), edge_of_slot.data(),
                static_cast<int>(edge_index.size()), 0, key_bits);
        };
    }

    SortBasedCsrBuild(int num_rows, int num_cols, size_t num_edges)
        : edge_index(gpu, num_edges),
          edge_of_slot(gpu, num_edges),
          sorted_src(gpu, num_edges),
          csr(gpu, num_rows, num_cols, num_edges) {
        key_bits = bits_for(num_rows);
        sort_scratch = CubScratch(sort_call(nullptr));
    }

    void run(const DeviceCoo& edges) {
        const int num_edges = edges.nnz();
        if (num_edges == 0) {
            csr.row_offsets.fill_bytes(0);
            return;
        }
        gpu.launch(blocks_for(num_edges), kThreadsPerBlock, number_edge_kernel, number_edge_thread,
                   num_edges, edge_index.data());
        sort_scratch.run(sort_call(edges.rows.data()));
        gpu.launch(blocks_for(num_edges), kThreadsPerBlock, gather_slot_kernel, gather_slot_thread,
                   num_edges, edge_of_slot.data(), edges.cols.data(), edges.values.data(),
                   csr.col_idx.data(), csr.values.data());
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_src.data(), num_edges, csr.num_rows,
                                        csr.row_offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
    }

    const Here gpu = Here::gpu();
    int key_bits = 1;
    CusparseHandle handle;
    DeviceArray<int> edge_index, edge_of_slot, sorted_src;
    DeviceCsr csr;
    CubScratch sort_scratch;
};

// The library route to the count step, on a GPU only: cub::DeviceHistogram::HistogramEven with
// one bin per vertex. A histogram is exactly what the count is, so CUB's tuned one is the bar
// for the atomic count. A graph with no vertices has no bins, which CUB refuses to be asked for.
struct LibraryDegreeCount {
    auto call(const int* src) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceHistogram::HistogramEven(scratch, bytes, src, degree.data(),
                                                       num_rows + 1, 0, num_rows, num_edges);
        };
    }

    LibraryDegreeCount(int rows, int edges) : num_rows(rows), num_edges(edges), degree(rows) {
        if (num_rows > 0) scratch = CubScratch(call(nullptr));
    }

    void run(const int* src) {
        if (num_rows > 0) scratch.run(call(src));
    }

    int num_rows, num_edges;
    DeviceBuffer<int> degree;
    CubScratch scratch;
};

// The bytes that each step must move at the least, every array touched once: the count reads
// the keys and writes the counts; the scan reads the counts and writes the offsets; the scatter
// copies the offsets to the cursors, reads the three edge arrays and writes two. In all: 24
// bytes per edge and 20 per key.
struct GroupingBytes {
    double count, scan, scatter;
    double total() const { return count + scan + scatter; }
};

inline GroupingBytes grouping_bytes(size_t num_keys, size_t num_edges) {
    const double k = 4.0 * (num_keys + 1), e = 4.0 * num_edges;
    return {e + k, 2 * k, 2 * k + 5 * e};
}

// Each step of a grouping timed alone, then the three together. One untimed build first leaves
// the offsets that the scatter, timed alone, starts from. `keys` names the key endpoint.
struct GroupingTimes {
    double count_ms, build_ms;
};

inline GroupingTimes time_grouping(TimingTable& table, const Here& here, DeviceGrouping& grouping,
                                   const DeviceArray<int>& key, const DeviceArray<int>& partner,
                                   const DeviceArray<float>& weight, const std::string& keys) {
    const size_t n = key.size();
    auto count = [&] { grouping.count(here, key.data(), n); };
    auto scatter = [&] { grouping.scatter(here, key.data(), partner.data(), weight.data(), n); };
    auto build = [&] { grouping.build(here, here, key, partner, weight); };
    build();
    const GroupingBytes bytes = grouping_bytes(grouping.grouped.num_rows, n);
    const double count_ms =
        table.time("atomic_count", "1 count, a histogram of the " + keys, bytes.count, count);
    table.time("cub_scan", "2 scan, cub::DeviceScan::ExclusiveSum", bytes.scan,
               [&] { grouping.scan(); });
    table.time("atomic_scatter", "3 scatter, an atomicAdd on a cursor per edge", bytes.scatter,
               scatter);
    return {count_ms,
            table.time("count_scan_scatter", "count + scan + scatter", bytes.total(), build)};
}

// At --scale on a GPU: the build's steps, and the library routes beside them.
inline void time_builds(const KernelProgram& p, const HostCoo& edges, const DeviceCoo& d,
                        LibraryDegreeCount& histogram, SortBasedCsrBuild& by_sort) {
    DeviceGrouping grouping(p.here, edges.num_rows, edges.num_cols, edges.nnz());
    TimingTable table(p, "115", p.options.skew,
                      "bytes: what each step must move at least; a whole build, 24 per edge and "
                      "20 per vertex");
    const GroupingTimes build =
        time_grouping(table, p.here, grouping, d.rows, d.cols, d.values, "sources");
    const GroupingBytes bytes = grouping_bytes(edges.num_rows, edges.nnz());
    const double histogram_ms = table.time("cub_histogram", "cub::DeviceHistogram (count only)",
                                           bytes.count, [&] { histogram.run(d.rows.data()); });
    const double by_sort_ms = table.time("cub_sort_build", "sort-based build (CUB, coo2csr)",
                                         bytes.total(), [&] { by_sort.run(d); });
    table.ratio("histogram / atomic count", histogram_ms / build.count_ms, "the library is faster");
    table.ratio("sort-based / atomic build", by_sort_ms / build.build_ms, "the sort is faster");
    if (!p.options.has("--sorted-rows")) return;
    DeviceRowSorter sorter(edges.num_rows, edges.nnz());
    const double row_sort_ms =
        table.time("cub_segmented_row_sort", "--sorted-rows, cub::DeviceSegmentedSort",
                   16.0 * edges.nnz() + 4.0 * (edges.num_rows + 1), [&] {
                       sorter.run(grouping.grouped.row_offsets.data(),
                                  grouping.grouped.col_idx.data(), grouping.grouped.values.data());
                   });
    table.ratio("--sorted-rows / construction", row_sort_ms / build.build_ms);
}

// The library routes, checked on any input and timed at --scale.
inline void compare_with_libraries(const KernelProgram& p, const HostCoo& edges,
                                   const GroupedEdges& baseline, SelfCheck& check) {
    const std::string histogram_claim =
        "cub::DeviceHistogram::HistogramEven gives the baseline's degrees";
    const std::string sort_claim =
        "the sort-based build (CUB radix sort + gather + cuSPARSE coo2csr) equals the baseline "
        "exactly";
    if (!p.on_gpu()) {
        check.skip(histogram_claim);
        return check.skip(sort_claim);
    }
    const DeviceCoo d(p.here, edges);
    LibraryDegreeCount histogram(edges.num_rows, d.nnz());
    histogram.degree.fill_bytes(0xFF);
    histogram.run(d.rows.data());
    check.claim(histogram_claim, histogram.degree.download() == baseline.counts);
    SortBasedCsrBuild by_sort(edges.num_rows, edges.num_cols, edges.nnz());
    by_sort.run(d);
    const HostCsr sorted_build = by_sort.csr.download();
    check.claim(sort_claim, sorted_build.row_offsets == baseline.grouped.row_offsets &&
                                sorted_build.col_idx == baseline.grouped.col_idx &&
                                sorted_build.values == baseline.grouped.values);
    if (p.options.scale == 0) return;
    std::printf("\n");
    time_builds(p, edges, d, histogram, by_sort);
}
