// 21.2, kernel: CSR from a raw edge list by count, scan and scatter, one thread per edge.
// Count: each edge's thread adds one to its source's degree with atomicAdd (a histogram). Scan:
// an exclusive sum turns the degrees into row_offsets. Scatter: each edge's thread claims its
// source's next free slot with atomicAdd on that vertex's cursor. The race for a cursor decides
// only where in its source's slice an edge lands, never which slice: rows are right as multisets
// in any order. --sorted-rows then sorts each row by column, a layout the race cannot change.
// Build and run:
//   make 115_csr_concurrent_construction_kernel && build/115_csr_concurrent_construction_kernel
//   build/115_csr_concurrent_construction_kernel --sorted-rows --matrix data/karate.mtx
//   build/115_csr_concurrent_construction_kernel --scale 22 --sorted-rows --max-memory 20G
#include <algorithm>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "../common/timing_table.cuh"
#include "chapter_inputs.h"

// The three steps are written over a "key" endpoint and a "partner" endpoint: keyed on the
// source they build CSR (here), keyed on the destination they build CSC (118).
// Step 1, one thread per edge: a histogram of the keys.
__host__ __device__ inline void count_key_thread(int e, const int* key, int* counts) {
    atomic_add_shim(&counts[key[e]], 1);
}

__global__ void count_key_kernel(int num_edges, const int* key, int* counts) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) count_key_thread(e, key, counts);
}

// Step 3, one thread per edge: the atomic on the key's cursor is a bump allocator, handing each
// of the key's edges a different slot of the key's slice, in whatever order the edges arrive.
__host__ __device__ inline void scatter_by_key_thread(int e, const int* key, const int* partner,
                                                      const float* weight, int* cursor,
                                                      int* out_partner, float* out_weight) {
    const int slot = atomic_add_shim(&cursor[key[e]], 1);
    out_partner[slot] = partner[e];
    out_weight[slot] = weight[e];
}

__global__ void scatter_by_key_kernel(int num_edges, const int* key, const int* partner,
                                      const float* weight, int* cursor, int* out_partner,
                                      float* out_weight) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges)
        scatter_by_key_thread(e, key, partner, weight, cursor, out_partner, out_weight);
}

// The library route that the build is compared with: a stable sort of edge indices by source,
// then one thread per CSR slot fetching its edge's destination and weight.
__host__ __device__ inline void number_edge_thread(int e, int* edge_index) {
    edge_index[e] = e;
}

__global__ void number_edges_kernel(int num_edges, int* edge_index) {
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

__global__ void gather_slots_kernel(int num_edges, const int* edge_of_slot, const int* dst,
                                    const float* weight, int* col_idx, float* values) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot < num_edges) gather_slot_thread(slot, edge_of_slot, dst, weight, col_idx, values);
}

// One grouping's arrays where the kernels run, each step a call of its own, so that it can be
// run (and timed) alone. `counts` has one extra entry, kept 0, so that the scan's last output is
// the edge count: the offsets then have num_keys + 1 entries, as CSR wants. The output starts
// poisoned (DeviceCsr's), so that a slot that no thread claimed cannot pass for an edge.
class DeviceGrouping {
    Here here_;  // first, as it decides where the arrays below live

public:
    DeviceGrouping(const Here& here, int num_keys, int num_partners, size_t num_edges)
        : here_(here),
          counts(here, static_cast<size_t>(num_keys) + 1),
          cursor(here, static_cast<size_t>(num_keys) + 1),
          grouped(here, num_keys, num_partners, num_edges) {
        if (!here.on_gpu()) return;
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(),
                                                 grouped.row_offsets.data(), num_keys + 1));
        // CUB reads a null scratch pointer as "only report the size", so never hand it one.
        scan_scratch = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }

    void count(const Here& here, const int* key, size_t num_edges) {
        counts.fill_bytes(0);
        same_place(here).launch(num_edges, count_key_kernel, count_key_thread, key, counts.data());
    }

    // Step 2: CUB's exclusive sum on the GPU, one pass on the host in emulation.
    void scan() {
        const int n = grouped.num_rows + 1;
        if (!here_.on_gpu()) {
            std::exclusive_scan(counts.data(), counts.data() + n, grouped.row_offsets.data(), 0);
            return;
        }
        size_t bytes = scan_scratch.size();
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch.data(), bytes, counts.data(),
                                                 grouped.row_offsets.data(), n));
    }

    // Each key's cursor starts at the key's offset, copied where the kernels run.
    void scatter(const Here& here, const int* key, const int* partner, const float* weight,
                 size_t num_edges) {
        copy_where_kernels_run(here_, cursor.data(), grouped.row_offsets.data(), cursor.size());
        same_place(here).launch(num_edges, scatter_by_key_kernel, scatter_by_key_thread, key,
                                partner, weight, cursor.data(), grouped.col_idx.data(),
                                grouped.values.data());
    }

    // Count, scan, scatter: the whole build, with the count and the scatter where `here` says.
    void build(const Here& here, const int* key, const int* partner, const float* weight,
               size_t num_edges) {
        count(here, key, num_edges);
        scan();
        scatter(here, key, partner, weight, num_edges);
    }

    std::vector<int> download_counts() const {
        std::vector<int> c = counts.download();
        c.pop_back();
        return c;
    }

    DeviceArray<int> counts, cursor;
    DeviceCsr grouped;                         // row k: key k's partners and weights
    DeviceBuffer<unsigned char> scan_scratch;  // CUB's, on the GPU only

private:
    // A launch may take its own thread order, but not another kind of memory.
    const Here& same_place(const Here& here) const {
        if (here.on_gpu() != here_.on_gpu())
            throw std::logic_error("a grouping's steps run where its arrays live");
        return here;
    }
};

// A grouping brought back to the host: the count step's histogram (edges per key), and the edges
// grouped by key, as a CSR whose row k lists key k's partners in the order the scatter left them.
struct GroupedEdges {
    std::vector<int> counts;
    HostCsr grouped;
};

// Count, scan, scatter. A GPU interleaves each launch's threads its own way; in emulation the
// count and the scatter may each be given an order (the book's orders are the scatter's).
inline GroupedEdges group_by_key(const Here& count_here, const Here& scatter_here, int num_keys,
                                 int num_partners, const DeviceArray<int>& key,
                                 const DeviceArray<int>& partner,
                                 const DeviceArray<float>& weight) {
    const size_t n = key.size();
    const bool announced = !count_here.on_gpu() && n >= kAnnouncedSize;
    DeviceGrouping grouping(count_here, num_keys, num_partners, n);
    if (announced) announce("step 1, count: " + counted(n, "emulated thread") + ", one per edge");
    grouping.count(count_here, key.data(), n);
    grouping.scan();
    if (announced) announce("step 3, scatter: " + counted(n, "emulated thread") + ", one per edge");
    grouping.scatter(scatter_here, key.data(), partner.data(), weight.data(), n);
    return {grouping.download_counts(), grouping.grouped.download()};
}

// CSR: the edges keyed on their source, each slot holding a destination and a weight.
inline GroupedEdges build_csr(const Here& count_here, const Here& scatter_here,
                              const HostCoo& edges) {
    const DeviceCoo d(count_here, edges);
    return group_by_key(count_here, scatter_here, edges.num_rows, edges.num_cols, d.rows, d.cols,
                        d.values);
}

inline GroupedEdges build_csr(const Here& here, const HostCoo& edges) {
    return build_csr(here, here, edges);
}

// The length of every slice: out-degrees for a CSR, in-degrees for a CSC.
inline std::vector<int> slice_lengths(const HostCsr& g) {
    std::vector<int> lengths(g.num_rows);
    for (int v = 0; v < g.num_rows; ++v) lengths[v] = g.row_offsets[v + 1] - g.row_offsets[v];
    return lengths;
}

// The layout that the book's sample output shows for its second arrival order, kBookOrderB
// (common/emulator.cuh: edge indices, first to claim a slot first).
const std::vector<int> kBookOrderBColIdx = {2, 1, 3, 2, 3, 4, 5, 4, 5};
const std::vector<float> kBookOrderBWeights = {1, 4, 5, 2, 8, 10, 6, 2, 3};

// --sorted-rows: each row sorted by column, its weights moving with it. Duplicate edges (same
// row, same column) may still swap weights with each other; everything else is fixed.
inline bool rows_sorted_by_column(const HostCsr& g) {
    for (int r = 0; r < g.num_rows; ++r)
        if (!std::is_sorted(g.col_idx.begin() + g.row_offsets[r],
                            g.col_idx.begin() + g.row_offsets[r + 1]))
            return false;
    return true;
}

// On the GPU the rows are the segments of one segmented sort, read straight off row_offsets.
struct DeviceRowSorter {
    DeviceRowSorter(int rows, size_t nnz) : num_rows(rows), col_idx(nnz), values(nnz) {
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            nullptr, bytes, static_cast<const int*>(nullptr), col_idx.data(),
            static_cast<const float*>(nullptr), values.data(), static_cast<int64_t>(nnz), rows,
            static_cast<const int*>(nullptr), static_cast<const int*>(nullptr)));
        scratch = DeviceBuffer<unsigned char>(bytes);
    }

    void run(const int* row_offsets, const int* col_in, const float* values_in) {
        if (col_idx.size() == 0 || num_rows == 0) return;
        size_t bytes = scratch.size();
        CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            scratch.data(), bytes, col_in, col_idx.data(), values_in, values.data(),
            static_cast<int64_t>(col_idx.size()), num_rows, row_offsets, row_offsets + 1));
    }

    int num_rows;
    DeviceBuffer<int> col_idx;
    DeviceBuffer<float> values;
    DeviceBuffer<unsigned char> scratch;
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

// The library route to the same CSR, on a GPU only: CUB's radix sort of edge indices keyed on
// the source is stable, so each row keeps arrival order and the result must equal the baseline
// exactly; cuSPARSE's coo2csr turns the sorted sources into row_offsets. It trades the atomics
// for several sort passes over the edges: fewer bytes favour the atomic build, while many edges
// fighting over one hub's cursor favour the sort. The timings at --scale say which wins.
struct SortBasedCsrBuild {
    SortBasedCsrBuild(int num_rows, int num_cols, size_t num_edges)
        : edge_index(gpu, num_edges),
          edge_of_slot(gpu, num_edges),
          sorted_src(gpu, num_edges),
          csr(gpu, num_rows, num_cols, num_edges) {
        while ((int64_t{1} << key_bits) < num_rows) ++key_bits;
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, bytes, static_cast<const int*>(nullptr), sorted_src.data(),
            static_cast<const int*>(nullptr), edge_of_slot.data(), static_cast<int>(num_edges), 0,
            key_bits));
        sort_scratch = DeviceBuffer<unsigned char>(bytes);
    }

    void run(const DeviceCoo& edges) {
        const int num_edges = edges.nnz();
        if (num_edges == 0) {
            csr.row_offsets.fill_bytes(0);
            return;
        }
        gpu.launch(num_edges, number_edges_kernel, number_edge_thread, edge_index.data());
        size_t bytes = sort_scratch.size();
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch.data(), bytes, edges.rows.data(),
                                                   sorted_src.data(), edge_index.data(),
                                                   edge_of_slot.data(), num_edges, 0, key_bits));
        gpu.launch(num_edges, gather_slots_kernel, gather_slot_thread, edge_of_slot.data(),
                   edges.cols.data(), edges.values.data(), csr.col_idx.data(), csr.values.data());
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_src.data(), num_edges, csr.num_rows,
                                        csr.row_offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
    }

    const Here gpu = Here::gpu();
    int key_bits = 1;  // only the bits that a vertex id can use are sorted on
    CusparseHandle handle;
    DeviceArray<int> edge_index, edge_of_slot, sorted_src;
    DeviceCsr csr;
    DeviceBuffer<unsigned char> sort_scratch;
};

inline HostCsr build_csr_by_library_sort(const HostCoo& edges) {
    const DeviceCoo d(Here::gpu(), edges);
    SortBasedCsrBuild build(edges.num_rows, edges.num_cols, edges.nnz());
    build.run(d);
    return build.csr.download();
}

// The library's histogram, to compare with the atomic count step, on a GPU only: one bin per
// vertex. A graph with no vertices has no bins, which CUB refuses to be asked for.
struct LibraryDegreeCount {
    LibraryDegreeCount(int rows, int edges) : num_rows(rows), num_edges(edges), degree(rows) {
        if (num_rows == 0) return;
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
            nullptr, bytes, static_cast<const int*>(nullptr), degree.data(), num_rows + 1, 0,
            num_rows, num_edges));
        scratch = DeviceBuffer<unsigned char>(bytes);
    }
    void run(const int* src) {
        if (num_rows == 0) return;
        size_t bytes = scratch.size();
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.data(), bytes, src, degree.data(),
                                                       num_rows + 1, 0, num_rows, num_edges));
    }

    int num_rows, num_edges;
    DeviceBuffer<int> degree;
    DeviceBuffer<unsigned char> scratch;
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

// Slots where a build's layout differs from the sequential scatter's.
inline size_t slots_that_differ(const HostCsr& a, const HostCsr& b) {
    size_t n = 0;
    for (size_t k = 0; k < a.nnz() && k < b.nnz(); ++k)
        n += a.col_idx[k] != b.col_idx[k] || a.values[k] != b.values[k];
    return n;
}

// The CPU baseline is csr_from_coo_by_stable_sort (common/sparse_host.h): a stable sort of the
// edges by source keeps each row in arrival order, which is exactly the layout that 114's
// sequential scatter produces. A concurrent build must equal it row by row as multisets; slot
// by slot it may differ.
inline HostCsr csr_baseline(const HostCoo& edges) {
    if (edges.nnz() >= kAnnouncedSize)
        announce("the baseline: a stable sort of " + counted(edges.nnz(), "edge") + " by source");
    return csr_from_coo_by_stable_sort(edges);
}

inline void show_baseline(const HostCsr& baseline) {
    print_wrapped(
        "baseline, a stable sort by source (rows in arrival order, as 114's sequential "
        "scatter leaves them):");
    print_array("row_offsets", baseline.row_offsets, 11);
    print_array("col_idx", baseline.col_idx, 11);
    print_array("weights", baseline.values, 11);
    std::printf("\n");
}

inline void show_build(const KernelProgram& p, const HostCoo& edges, const GroupedEdges& built,
                       const HostCsr& baseline) {
    std::printf("%s, one per edge, count then scan then scatter (%s):\n",
                counted(edges.nnz(), "thread").c_str(),
                p.on_gpu() ? "on the GPU" : ("emulated, threads " + p.emulation_order_words()).c_str());
    if (printable(edges)) {
        print_array("degree", built.counts, 11);
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

inline void check_build(const KernelProgram& p, const GroupedEdges& built, const HostCsr& baseline,
                        SelfCheck& check) {
    const std::string whose = p.on_gpu() ? "the GPU's" : "the emulated";
    check.claim(whose + " degrees equal the baseline's", built.counts == slice_lengths(baseline));
    check.claim(whose + " row_offsets equal the baseline's",
                built.grouped.row_offsets == baseline.row_offsets);
    if (baseline.nnz() >= kAnnouncedSize)
        announce("comparing every row with the baseline's, as multisets");
    check.claim(
        "every row of " + whose + " CSR holds the baseline's multiset of (neighbour, weight)",
        same_row_multisets(built.grouped, baseline));
    if (p.options.book_example())
        check.claim("degree = [ 2 2 2 2 1 0 ] and row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                    built.counts == kBookDegree && built.grouped.row_offsets == kBookRowOffsets);
    std::printf("\n");
}

// The book's two arrival orders for the scatter, replayed by the emulator on either backend: the
// replay is the point, and no GPU can be told an order.
inline void replay_book_orders(const KernelProgram& p, const HostCoo& edges,
                               const HostCsr& baseline, SelfCheck& check) {
    std::vector<int> order_a(edges.nnz());
    std::iota(order_a.begin(), order_a.end(), 0);
    const Here count_here = Here::emulated(p.shuffled_order());
    const HostCsr a =
        build_csr(count_here, Here::emulated(ThreadOrder::given(order_a)), edges).grouped;
    const HostCsr b =
        build_csr(count_here, Here::emulated(ThreadOrder::given(kBookOrderB)), edges).grouped;
    std::printf("the book's two arrival orders for the scatter, replayed by the host emulator:\n");
    std::printf("order A, edges claim their slots in input order 0 1 2 3 4 5 6 7 8:\n");
    print_array("col_idx", a.col_idx, 7);
    print_array("weights", a.values, 7);
    std::printf("order B, edges claim their slots in the order 4 0 8 1 7 5 3 6 2:\n");
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

inline void check_sorted_rows(const KernelProgram& p, const HostCsr& built, const HostCsr& baseline,
                              SelfCheck& check) {
    if (built.nnz() >= kAnnouncedSize) announce("--sorted-rows: sorting every row by column");
    const HostCsr sorted = sorted_by_column(p.here, built);
    std::printf("--sorted-rows: every row sorted by column, weights alongside (%s)%s\n",
                p.on_gpu() ? "cub::DeviceSegmentedSort::SortPairs" : "a sort per row, on the host",
                printable(sorted) ? ":" : ".");
    if (printable(sorted)) {
        print_array("col_idx", sorted.col_idx, 7);
        print_array("weights", sorted.values, 7);
    }
    check.claim("after --sorted-rows every row is sorted by column", rows_sorted_by_column(sorted));
    if (sorted.nnz() >= kAnnouncedSize)
        announce("comparing every sorted row with the baseline's, as multisets");
    check.claim("after --sorted-rows every row holds the same multiset as before",
                same_row_multisets(sorted, baseline));
    if (p.options.book_example())
        check.claim("the sorted layout equals the book's layout A",
                    sorted.col_idx == kBookColIdx && sorted.values == kBookWeights);
    std::printf("\n");
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
    auto build = [&] { grouping.build(here, key.data(), partner.data(), weight.data(), n); };
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
                                   const HostCsr& baseline, const GroupedEdges& built,
                                   SelfCheck& check) {
    const std::string histogram_claim =
        "cub::DeviceHistogram::HistogramEven gives the atomic count's degrees";
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
    check.claim(histogram_claim, histogram.degree.download() == built.counts);
    SortBasedCsrBuild by_sort(edges.num_rows, edges.num_cols, edges.nnz());
    by_sort.run(d);
    const HostCsr sorted_build = by_sort.csr.download();
    check.claim(sort_claim, sorted_build.row_offsets == baseline.row_offsets &&
                                sorted_build.col_idx == baseline.col_idx &&
                                sorted_build.values == baseline.values);
    if (p.options.scale == 0) return;
    std::printf("\n");
    time_builds(p, edges, d, histogram, by_sort);
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "115 (21.2) kernel: CSR from a raw edge list by count, scan, scatter",
            {"make 115_csr_concurrent_construction_kernel && "
             "build/115_csr_concurrent_construction_kernel",
             "build/115_csr_concurrent_construction_kernel --sorted-rows --matrix data/karate.mtx",
             "build/115_csr_concurrent_construction_kernel --scale 22 --sorted-rows "
             "--max-memory 20G"})
            .with_book_input("the book's example: 6 vertices, 9 weighted edges, and its orders A "
                             "and B")
            .with_switch("--sorted-rows", "then sort each row by column, weights moving along")
            .with_memory({248, 36, 900e6}));
    const HostCoo edges = chapter_input(p.options);
    const HostCsr baseline = csr_baseline(edges);
    if (printable(edges)) show_baseline(baseline);
    const GroupedEdges built = build_csr(p.here, edges);
    show_build(p, edges, built, baseline);

    SelfCheck check;
    check_build(p, built, baseline, check);
    if (p.options.book_example()) replay_book_orders(p, edges, baseline, check);
    if (p.options.has("--sorted-rows")) check_sorted_rows(p, built.grouped, baseline, check);
    compare_with_libraries(p, edges, baseline, built, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
