// 21.2, kernel: CSR from a raw edge list by count, scan and scatter, one thread per edge.
// Count: each edge's thread adds one to its source's degree with atomicAdd (a histogram). Scan:
// CUB's exclusive sum turns degrees into row_offsets. Scatter: each edge's thread claims its
// source's next free slot with atomicAdd on that vertex's cursor. The race for a cursor decides
// only where in its source's slice an edge lands, never which slice: rows are right as multisets
// in any order. --sorted-rows then sorts each row by column, a layout the race cannot change.
//
// Build and run:  make 115_csr_concurrent_construction_kernel
//                 build/115_csr_concurrent_construction_kernel [--sorted-rows]
//                 build/115_csr_concurrent_construction_kernel --scale 22 --sorted-rows --max-memory 20G
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "group_by_key.cuh"

// The CPU baseline is csr_from_coo_by_stable_sort (common/sparse_host.h): a stable sort of the
// edges by source keeps each row in arrival order, which is exactly the layout that 114's
// sequential scatter produces, step by step. A concurrent build must equal it row by row as
// multisets; slot by slot it may differ.
std::vector<int> degrees_of(const HostCsr& g) {
    std::vector<int> degree(g.num_rows);
    for (int v = 0; v < g.num_rows; ++v) degree[v] = g.row_offsets[v + 1] - g.row_offsets[v];
    return degree;
}

// The book's second arrival order for the scatter (edge indices, first to claim a slot first),
// and the layout that its sample output shows for it.
const std::vector<int> kBookOrderB = {4, 0, 8, 1, 7, 5, 3, 6, 2};
const std::vector<int> kBookOrderBColIdx = {2, 1, 3, 2, 3, 4, 5, 4, 5};
const std::vector<float> kBookOrderBWeights = {1, 4, 5, 2, 8, 10, 6, 2, 3};

// The per-thread bodies of count and scatter are count_key_thread and scatter_by_key_thread in
// group_by_key.cuh, keyed here on the source with the destination as partner. The bodies below
// serve the library route that the build is compared with: a stable sort of edge indices by
// source, then one thread per CSR slot fetching its edge's destination and weight.
__host__ __device__ inline void number_edge_thread(int e, int* edge_index) { edge_index[e] = e; }

__host__ __device__ inline void gather_slot_thread(int slot, const int* edge_of_slot,
                                                   const int* dst, const float* weight,
                                                   int* col_idx, float* values) {
    const int e = edge_of_slot[slot];
    col_idx[slot] = dst[e];
    values[slot] = weight[e];
}

__global__ void number_edges_kernel(int num_edges, int* edge_index) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) number_edge_thread(e, edge_index);
}

__global__ void gather_slots_kernel(int num_edges, const int* edge_of_slot, const int* dst,
                                    const float* weight, int* col_idx, float* values) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot < num_edges) gather_slot_thread(slot, edge_of_slot, dst, weight, col_idx, values);
}

// One construction's result: the degrees that the count step produced, and the CSR.
struct CsrBuild {
    std::vector<int> degree;
    HostCsr csr;
};

CsrBuild build_csr_emulated(const HostCoo& edges, const ThreadOrder& count_order,
                            const ThreadOrder& scatter_order) {
    EmulatedGrouping g = group_by_key_emulated(edges.num_rows, edges.num_cols, edges.rows,
                                               edges.cols, edges.values, count_order,
                                               scatter_order);
    return {std::move(g.counts), std::move(g.grouped)};
}

CsrBuild build_csr_gpu(const HostCoo& edges) {
    DeviceEdgeList d(edges);
    DeviceGrouping grouping(edges.num_rows, edges.num_cols, edges.nnz());
    // Poisoned, so that a slot that no thread claimed cannot pass for an edge.
    grouping.offsets.fill_bytes(0xFF);
    grouping.partner.fill_bytes(0xFF);
    grouping.weight.fill_bytes(0xFF);
    grouping.run(d.src.data(), d.dst.data(), d.weight.data(), d.num_edges());
    return {grouping.download_counts(), grouping.download()};
}

// --sorted-rows: each row sorted by column, its weights moving with it. Duplicate edges (same
// row, same column) may still swap weights with each other; everything else is fixed.
bool rows_sorted_by_column(const HostCsr& g) {
    for (int r = 0; r < g.num_rows; ++r)
        if (!std::is_sorted(g.col_idx.begin() + g.row_offsets[r],
                            g.col_idx.begin() + g.row_offsets[r + 1]))
            return false;
    return true;
}

void sort_rows_by_column_host(HostCsr& g) {
    std::vector<std::pair<int, float>> row;
    for (int r = 0; r < g.num_rows; ++r) {
        const int begin = g.row_offsets[r], end = g.row_offsets[r + 1];
        row.clear();
        for (int k = begin; k < end; ++k) row.emplace_back(g.col_idx[k], g.values[k]);
        std::sort(row.begin(), row.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (int k = begin; k < end; ++k) std::tie(g.col_idx[k], g.values[k]) = row[k - begin];
    }
}

// On the GPU the rows are the segments of one segmented sort, read straight off row_offsets.
class DeviceRowSorter {
public:
    DeviceRowSorter(int num_rows, size_t nnz) : num_rows_(num_rows), col_idx(nnz), values(nnz) {
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            nullptr, bytes, static_cast<const int*>(nullptr), col_idx.data(),
            static_cast<const float*>(nullptr), values.data(), static_cast<int64_t>(nnz),
            num_rows, static_cast<const int*>(nullptr), static_cast<const int*>(nullptr)));
        scratch = DeviceBuffer<unsigned char>(bytes);
    }

    void run(const int* row_offsets, const int* col_in, const float* values_in) {
        if (col_idx.size() == 0 || num_rows_ == 0) return;
        size_t bytes = scratch.size();
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            scratch.data(), bytes, col_in, col_idx.data(), values_in, values.data(),
            static_cast<int64_t>(col_idx.size()), num_rows_, row_offsets, row_offsets + 1));
    }

private:
    int num_rows_;

public:
    DeviceBuffer<int> col_idx;
    DeviceBuffer<float> values;
    DeviceBuffer<unsigned char> scratch;
};

HostCsr sort_rows_by_column_gpu(const HostCsr& g) {
    DeviceBuffer<int> row_offsets(g.row_offsets), col_idx(g.col_idx);
    DeviceBuffer<float> values(g.values);
    DeviceRowSorter sorter(g.num_rows, g.nnz());
    sorter.col_idx.fill_bytes(0xFF);
    sorter.values.fill_bytes(0xFF);
    sorter.run(row_offsets.data(), col_idx.data(), values.data());
    HostCsr sorted = g;
    sorted.col_idx = sorter.col_idx.download();
    sorted.values = sorter.values.download();
    return sorted;
}

// The library route to the same CSR: CUB's radix sort of edge indices keyed on the source is
// stable, so each row keeps arrival order and the result must equal the baseline exactly;
// cuSPARSE's coo2csr turns the sorted sources into row_offsets. It trades the atomics for
// several sort passes over the edges: fewer bytes favour the atomic build, while many edges
// fighting over one hub's cursor favour the sort. The timings at --scale say which wins.
class SortBasedCsrBuild {
public:
    SortBasedCsrBuild(int num_rows, int num_cols, size_t num_edges)
        : num_rows_(num_rows), num_cols_(num_cols), edge_index(num_edges), edge_of_slot(num_edges),
          sorted_src(num_edges), row_offsets(static_cast<size_t>(num_rows) + 1),
          col_idx(num_edges), values(num_edges) {
        while ((int64_t{1} << key_bits_) < num_rows) ++key_bits_;
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, bytes, static_cast<const int*>(nullptr), sorted_src.data(),
            static_cast<const int*>(nullptr), edge_of_slot.data(), static_cast<int>(num_edges), 0,
            key_bits_));
        sort_scratch = DeviceBuffer<unsigned char>(bytes);
    }

    void run(const DeviceEdgeList& edges) {
        const int num_edges = edges.num_edges();
        if (num_edges == 0) {
            row_offsets.fill_bytes(0);
            return;
        }
        number_edges_kernel<<<blocks_for(num_edges), kThreadsPerBlock>>>(num_edges,
                                                                        edge_index.data());
        CUDA_CHECK_LAUNCH();
        size_t bytes = sort_scratch.size();
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch.data(), bytes, edges.src.data(),
                                                   sorted_src.data(), edge_index.data(),
                                                   edge_of_slot.data(), num_edges, 0, key_bits_));
        gather_slots_kernel<<<blocks_for(num_edges), kThreadsPerBlock>>>(
            num_edges, edge_of_slot.data(), edges.dst.data(), edges.weight.data(), col_idx.data(),
            values.data());
        CUDA_CHECK_LAUNCH();
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_src.data(), num_edges, num_rows_,
                                        row_offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
    }

    HostCsr download() const {
        HostCsr c;
        c.num_rows = num_rows_;
        c.num_cols = num_cols_;
        c.row_offsets = row_offsets.download();
        c.col_idx = col_idx.download();
        c.values = values.download();
        return c;
    }

private:
    int num_rows_, num_cols_;
    int key_bits_ = 1;  // only the bits that a vertex id can use are sorted on

public:
    CusparseHandle handle;
    DeviceBuffer<int> edge_index, edge_of_slot, sorted_src, row_offsets, col_idx;
    DeviceBuffer<float> values;
    DeviceBuffer<unsigned char> sort_scratch;
};

HostCsr build_csr_by_sort_gpu(const HostCoo& edges) {
    const DeviceEdgeList d(edges);
    SortBasedCsrBuild build(edges.num_rows, edges.num_cols, edges.nnz());
    build.row_offsets.fill_bytes(0xFF);
    build.col_idx.fill_bytes(0xFF);
    build.values.fill_bytes(0xFF);
    build.run(d);
    return build.download();
}

// The library's histogram, to compare with the atomic count step: one bin per vertex. A graph
// with no vertices has no bins, which CUB refuses to be asked for: there is nothing to count.
class LibraryDegreeCount {
public:
    LibraryDegreeCount(int num_rows, int num_edges)
        : num_rows_(num_rows), num_edges_(num_edges), degree(num_rows) {
        if (num_rows_ == 0) return;
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes,
                                                       static_cast<const int*>(nullptr),
                                                       degree.data(), num_rows + 1, 0, num_rows,
                                                       num_edges));
        scratch = DeviceBuffer<unsigned char>(bytes);
    }
    void run(const int* src) {
        if (num_rows_ == 0) return;
        size_t bytes = scratch.size();
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.data(), bytes, src, degree.data(),
                                                       num_rows_ + 1, 0, num_rows_, num_edges_));
    }

private:
    int num_rows_, num_edges_;

public:
    DeviceBuffer<int> degree;
    DeviceBuffer<unsigned char> scratch;
};

// Slots where a build's layout differs from the sequential scatter's.
size_t slots_that_differ(const HostCsr& a, const HostCsr& b) {
    size_t n = 0;
    for (size_t k = 0; k < a.nnz() && k < b.nnz(); ++k)
        n += a.col_idx[k] != b.col_idx[k] || a.values[k] != b.values[k];
    return n;
}

void print_csr(const CsrBuild& b) {
    print_array("degree", b.degree, 11);
    print_array("row_offsets", b.csr.row_offsets, 11);
    print_array("col_idx", b.csr.col_idx, 11);
    print_array("weights", b.csr.values, 11);
}

#ifndef LESSON_WITHOUT_MAIN
// The book's example only: its two arrival orders for the scatter, replayed by the emulator
// (on either backend, since the replay is the point and no GPU can be told an order).
void replay_book_orders(const KernelProgram& p, const HostCoo& edges, const HostCsr& baseline,
                        SelfCheck& check) {
    std::vector<int> order_a(edges.nnz());
    std::iota(order_a.begin(), order_a.end(), 0);
    const CsrBuild a = build_csr_emulated(edges, p.shuffled_order(), ThreadOrder::given(order_a));
    const CsrBuild b =
        build_csr_emulated(edges, p.shuffled_order(), ThreadOrder::given(kBookOrderB));
    std::printf("the book's two arrival orders for the scatter, replayed by the host emulator "
                "(the same per-thread bodies):\n");
    std::printf("order A, edges claim their slots in input order 0 1 2 3 4 5 6 7 8:\n");
    print_array("col_idx", a.csr.col_idx, 7);
    print_array("weights", a.csr.values, 7);
    std::printf("order B, edges claim their slots in the order 4 0 8 1 7 5 3 6 2:\n");
    print_array("col_idx", b.csr.col_idx, 7);
    print_array("weights", b.csr.values, 7);
    check.claim("order A gives the book's layout A (col_idx 1 2 2 3 3 4 4 5 5, "
                "weights 4 1 2 5 8 10 2 6 3)",
                a.csr.col_idx == kBookColIdx && a.csr.values == kBookWeights);
    check.claim("order B gives the book's layout B (col_idx 2 1 3 2 3 4 5 4 5, "
                "weights 1 4 5 2 8 10 6 2 3)",
                b.csr.col_idx == kBookOrderBColIdx && b.csr.values == kBookOrderBWeights);
    check.claim("the layouts of orders A and B differ", a.csr.col_idx != b.csr.col_idx);
    check.claim("every row holds the same multiset in A, in B and in the baseline",
                same_row_multisets(a.csr, baseline) && same_row_multisets(b.csr, baseline) &&
                    same_row_multisets(a.csr, b.csr));
    std::printf("\n");
}

// --sorted-rows on the built CSR; returns the host time of the whole call.
double sort_rows_and_check(const KernelProgram& p, const HostCsr& built, const HostCsr& baseline,
                           SelfCheck& check) {
    HostCsr sorted;
    const double ms = host_ms([&] {
        if (p.on_gpu()) {
            sorted = sort_rows_by_column_gpu(built);
        } else {
            sorted = built;
            sort_rows_by_column_host(sorted);
        }
    });
    std::printf("--sorted-rows: each row sorted by column (%s), weights moving with their "
                "columns:\n",
                p.on_gpu() ? "cub::DeviceSegmentedSort::SortPairs" : "a per-row sort on the host");
    if (sorted.num_rows <= static_cast<int>(kPrintLimit)) {
        print_array("col_idx", sorted.col_idx, 7);
        print_array("weights", sorted.values, 7);
    }
    check.claim("after --sorted-rows every row is sorted by column", rows_sorted_by_column(sorted));
    check.claim("after --sorted-rows every row holds the same multiset as before",
                same_row_multisets(sorted, baseline));
    if (p.options.book_example())
        check.claim("the sorted layout equals the book's layout A",
                    sorted.col_idx == kBookColIdx && sorted.values == kBookWeights);
    std::printf("\n");
    return ms;
}

// The library routes, checked on any input and timed at --scale.
void compare_with_libraries(const KernelProgram& p, const HostCoo& edges, const HostCsr& baseline,
                            const CsrBuild& built, SelfCheck& check) {
    DeviceEdgeList d(edges);
    const int num_edges = d.num_edges();
    LibraryDegreeCount histogram(edges.num_rows, num_edges);
    histogram.degree.fill_bytes(0xFF);
    histogram.run(d.src.data());
    check.claim("cub::DeviceHistogram::HistogramEven gives the atomic count's degrees",
                histogram.degree.download() == built.degree);
    SortBasedCsrBuild by_sort(edges.num_rows, edges.num_cols, edges.nnz());
    by_sort.row_offsets.fill_bytes(0xFF);
    by_sort.col_idx.fill_bytes(0xFF);
    by_sort.values.fill_bytes(0xFF);
    by_sort.run(d);
    const HostCsr sorted_build = by_sort.download();
    check.claim("the sort-based build (CUB radix sort + gather + cuSPARSE coo2csr) equals the "
                "baseline exactly",
                sorted_build.row_offsets == baseline.row_offsets &&
                    sorted_build.col_idx == baseline.col_idx &&
                    sorted_build.values == baseline.values);
    if (p.options.scale == 0) return;  // times only for --scale inputs

    DeviceGrouping grouping(edges.num_rows, edges.num_cols, edges.nnz());
    const int* src = d.src.data();
    const double copy_gbs = measure_copy_gbs();
    const double count_ms = median_gpu_ms([&] { grouping.count(src, num_edges); });
    const double scan_ms = median_gpu_ms([&] { grouping.scan(); });
    const double scatter_ms = median_gpu_ms(
        [&] { grouping.scatter(src, d.dst.data(), d.weight.data(), num_edges); });
    const double total_ms =
        median_gpu_ms([&] { grouping.run(src, d.dst.data(), d.weight.data(), num_edges); });
    const double histogram_ms = median_gpu_ms([&] { histogram.run(src); });
    const double by_sort_ms = median_gpu_ms([&] { by_sort.run(d); });
    // The traffic that no build avoids: count reads src; the scatter reads the whole edge list
    // and writes the CSR once (24 bytes per edge in all); the degrees are zeroed, written and
    // read, the offsets written, read and copied to the cursors (20 bytes per vertex).
    const double bytes = 24.0 * num_edges + 20.0 * (edges.num_rows + 1);
    const double total_gbs = gb_per_s(bytes, total_ms);
    std::printf("\ntimings on %s (%s; copy bandwidth %.0f GB/s):\n",
                p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
    std::printf("  1 count    atomicAdd per edge        %9.3f ms\n", count_ms);
    std::printf("  2 scan     cub::DeviceScan           %9.3f ms\n", scan_ms);
    std::printf("  3 scatter  atomicAdd per edge        %9.3f ms\n", scatter_ms);
    std::printf("  total      count + scan + scatter    %9.3f ms  %6.0f GB/s (%.0f%% of copy; "
                "24 bytes per edge, 20 per vertex)\n",
                total_ms, total_gbs, 100 * total_gbs / copy_gbs);
    std::printf("  library    cub::DeviceHistogram      %9.3f ms  ratio histogram / atomic count: "
                "%.2f\n",
                histogram_ms, histogram_ms / count_ms);
    std::printf("  library    sort-based build          %9.3f ms  ratio sort-based / atomic build: "
                "%.2f\n",
                by_sort_ms, by_sort_ms / total_ms);
    std::printf("             (CUB radix sort of edge ids by source, gather, cuSPARSE coo2csr)\n");
    if (p.options.has("--sorted-rows")) {
        DeviceRowSorter sorter(edges.num_rows, edges.nnz());
        const double row_sort_ms = median_gpu_ms([&] {
            sorter.run(grouping.offsets.data(), grouping.partner.data(), grouping.weight.data());
        });
        std::printf("  rows       cub::DeviceSegmentedSort  %9.3f ms  --sorted-rows costs %.2f x "
                    "the construction's time\n",
                    row_sort_ms, row_sort_ms / total_ms);
    }
}

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{248, 36, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "115 (21.2) kernel: CSR from a raw edge list by count, scan, scatter",
        {"--sorted-rows"});
    const bool book = p.options.book_example();
    const HostCoo edges = chapter_input(p.options, kMemory);
    const HostCsr baseline = csr_from_coo_by_stable_sort(edges);
    const bool small = edges.num_rows <= static_cast<int>(kPrintLimit);
    if (small) {
        std::printf("baseline, a stable sort by source (rows in arrival order, as 114's sequential "
                    "scatter leaves them):\n");
        print_array("row_offsets", baseline.row_offsets, 11);
        print_array("col_idx", baseline.col_idx, 11);
        print_array("weights", baseline.values, 11);
        std::printf("\n");
    }

    CsrBuild built;
    const double build_ms = host_ms([&] {
        built = p.on_gpu() ? build_csr_gpu(edges)
                           : build_csr_emulated(edges, p.shuffled_order(), p.shuffled_order());
    });
    std::printf("%zu threads, one per edge, count then scan then scatter (%s):\n", edges.nnz(),
                p.on_gpu() ? "on the GPU" : "emulated, threads in shuffled order");
    if (small) print_csr(built);
    const size_t moved = slots_that_differ(built.csr, baseline);
    std::printf("layout: %zu of %zu slots differ from the sequential scatter's%s\n", moved,
                edges.nnz(),
                moved > 0 ? " (the atomics ordered rows differently, which CSR allows)" : "");

    SelfCheck check;
    if (!p.options.matrix.empty()) check.end_with(result_line(edges));
    const std::string whose = p.on_gpu() ? "the GPU's" : "the emulated";
    check.claim(whose + " degrees equal the baseline's", built.degree == degrees_of(baseline));
    check.claim(whose + " row_offsets equal the baseline's",
                built.csr.row_offsets == baseline.row_offsets);
    check.claim("every row of " + whose +
                    " CSR holds the baseline's multiset of (neighbour, weight)",
                same_row_multisets(built.csr, baseline));
    if (book)
        check.claim("degree = [ 2 2 2 2 1 0 ] and row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.degree == kBookDegree && built.csr.row_offsets == kBookRowOffsets);
    std::printf("\n");

    if (book) replay_book_orders(p, edges, baseline, check);
    double sort_ms = 0;
    if (p.options.has("--sorted-rows"))
        sort_ms = sort_rows_and_check(p, built.csr, baseline, check);

    if (p.on_gpu()) {
        compare_with_libraries(p, edges, baseline, built, check);
        return check.finish();
    }
    check.skip("cub::DeviceHistogram::HistogramEven gives the atomic count's degrees");
    check.skip("the sort-based build (CUB radix sort + gather + cuSPARSE coo2csr) equals the "
               "baseline exactly");
    if (p.options.scale > 0) {
        std::printf("\ntime: construction %.1f ms on the host (emulation: not a GPU time)\n",
                    build_ms);
        if (p.options.has("--sorted-rows"))
            std::printf("time: --sorted-rows %.1f ms on the host (emulation: not a GPU time), "
                        "%.2f x the construction's\n",
                        sort_ms, sort_ms / build_ms);
    }
    return check.finish();
}
#endif
