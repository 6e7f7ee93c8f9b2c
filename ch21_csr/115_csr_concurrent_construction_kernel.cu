// 115 (21.2) kernel: CSR from a raw edge list by count, scan and scatter, one thread per edge.
// Count: each edge's thread adds one to its source's degree with atomicAdd (a histogram). Scan:
// an exclusive sum turns the degrees into row_offsets. Scatter: each edge's thread claims its
// source's next free slot with atomicAdd on that vertex's cursor. The race for a cursor decides
// only where in its source's slice an edge lands, never which slice: rows are right as multisets
// in any order. --sorted-rows then sorts each row by column, a layout the race cannot change.
//
// Build and run:  make 115_csr_concurrent_construction_kernel
//   build/115_csr_concurrent_construction_kernel
//   build/115_csr_concurrent_construction_kernel --sorted-rows --matrix data/karate.mtx
//   build/115_csr_concurrent_construction_kernel --scale 22 --sorted-rows --max-memory 20G
#ifndef CSR_CONCURRENT_CONSTRUCTION_115  // 118, 123 and exercise 21.1 take this lesson's steps
#define CSR_CONCURRENT_CONSTRUCTION_115
#ifdef __CUDACC__  // the GPU's scan; a build without the CUDA Toolkit scans on the host
#include <cub/device/device_scan.cuh>
#endif
#include <numeric>
#include <vector>
#include "../common/cub_scratch.cuh"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
// 114's lesson: the CPU baseline, count_degrees, scan_degrees and the scatter one edge at a time
#include "114_csr_construction_cpu_baseline.cpp"

// What a grouping leaves: how many edges each key has, and the edges grouped by key, as a CSR
// whose row k lists key k's partners and weights in the order the scatter left them.
struct GroupedEdges {
    std::vector<int> counts;
    HostCsr grouped;
};

// The three kernels are written over a "key" endpoint and a "partner" endpoint: keyed on the
// source they build CSR (here), keyed on the destination they build CSC (118). Their CPU baseline
// is 114's three steps, each its kernel's loop over the edges run one edge after another.

// Step 1, one thread per edge: a histogram of the keys. The edges of one key add to the same
// counter at the same time, so the add must be atomic. atomic_add_shim (common/emulator.cuh) is
// CUDA's atomicAdd on a GPU, returning the old value as atomicAdd does; in the emulator, which
// runs one thread at a time, it is a plain read, add and write, and under `make races`, where
// host threads run the bodies at once, a real host atomic.
__host__ __device__ inline void count_key_thread(int e, const int* key, int* counts) {
    atomic_add_shim(&counts[key[e]], 1);
}

__global__ void count_key_kernel(int num_edges, const int* key, int* counts) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) count_key_thread(e, key, counts);
}

// Step 3, one thread per edge: the atomic on the key's cursor is a bump allocator, handing each
// of the key's edges a different slot of the key's slice, in whatever order the edges arrive.
// The old value that the atomic returns is the slot; a plain ++ would let two edges read the
// same value and write the same slot, losing one edge and leaving another slot unwritten.
__host__ __device__ inline void scatter_by_key_thread(int e, const int* key, const int* partner,
                                                      const float* weight, int* cursor,
                                                      int* out_partner, float* out_weight) {
    const int slot = atomic_add_shim(&cursor[key[e]], 1);  // make races plants a plain ++ here
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

// The whole CPU baseline, 114's: count, scan and scatter one after another. Its rows keep
// arrival order, the layout of the book's order A. Keyed on the source it gives the CSR; 118 hands
// it the reversed edges for the CSC.
inline GroupedEdges build_csr_cpu(const HostCoo& edges) {
    CsrConstruction built = csr_construction_cpu(edges);
    return {std::move(built.degree), std::move(built.csr)};
}

// Steps 1 and 3 each have one thread per edge, in blocks of 256 threads, as many blocks as
// cover the edges.
constexpr unsigned kEdgeThreads = 256;

inline unsigned edge_blocks(size_t num_edges) {
    return static_cast<unsigned>((num_edges + kEdgeThreads - 1) / kEdgeThreads);
}

// One grouping's arrays where the kernels run, each step a call of its own, so that it can be
// run (and timed) alone. `counts` has one extra entry, kept 0, so that the scan's last output is
// the edge count. The output starts poisoned (DeviceCsr's), so that a slot that no thread
// claimed cannot pass for an edge. A GPU interleaves each launch's threads its own way; in
// emulation the count and the scatter may each be given a `here` with an order of its own (the
// book's orders are the scatter's).
struct DeviceGrouping {
#ifdef __CUDACC__
    // Step 2 on the GPU: CUB's exclusive sum, its scratch sized once.
    auto scan_call() {
        return [this](void* scratch, size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(scratch, bytes, counts.data(),
                                                 grouped.row_offsets.data(), grouped.num_rows + 1);
        };
    }
#endif

    DeviceGrouping(const Here& here, int num_keys, int num_partners, size_t num_edges)
        : on_gpu(here.on_gpu()),
          counts(here, static_cast<size_t>(num_keys) + 1),
          cursor(here, static_cast<size_t>(num_keys) + 1),
          grouped(here, num_keys, num_partners, num_edges) {
#ifdef __CUDACC__
        if (on_gpu) scan_scratch = CubScratch(scan_call());
#endif
    }

    void count(const Here& here, const int* key, size_t num_edges) {
        counts.fill_bytes(0);
        here.launch(edge_blocks(num_edges), kEdgeThreads, count_key_kernel, count_key_thread,
                    num_edges, key, counts.data());
    }

    void scan() {
#ifdef __CUDACC__
        if (on_gpu) return scan_scratch.run(scan_call());
#endif
        std::exclusive_scan(counts.data(), counts.data() + counts.size(),
                            grouped.row_offsets.data(), 0);
    }

    // Each key's cursor at the first slot of its slice, where the scatter's claims begin.
    void start_cursors(const Here& here) {
        copy_where_kernels_run(here, cursor.data(), grouped.row_offsets.data(), cursor.size());
    }

    void scatter(const Here& here, const int* key, const int* partner, const float* weight,
                 size_t num_edges) {
        start_cursors(here);
        here.launch(edge_blocks(num_edges), kEdgeThreads, scatter_by_key_kernel,
                    scatter_by_key_thread, num_edges, key, partner, weight, cursor.data(),
                    grouped.col_idx.data(), grouped.values.data());
    }

    void build(const Here& count_here, const Here& scatter_here, const DeviceArray<int>& key,
               const DeviceArray<int>& partner, const DeviceArray<float>& weight) {
        count(count_here, key.data(), key.size());
        scan();
        scatter(scatter_here, key.data(), partner.data(), weight.data(), key.size());
    }

    GroupedEdges download() const {
        std::vector<int> c = counts.download();
        c.pop_back();
        return {c, grouped.download()};
    }

    bool on_gpu;
    DeviceArray<int> counts, cursor;
    DeviceCsr grouped;  // row k: key k's partners and weights
    CubScratch scan_scratch;
};

// The kernels' grouping of the edges, and of a CSR, the count and the scatter each where (and in
// the order) its `here` says.
inline GroupedEdges group_by_key(const Here& count_here, const Here& scatter_here, int num_keys,
                                 int num_partners, const DeviceArray<int>& key,
                                 const DeviceArray<int>& partner,
                                 const DeviceArray<float>& weight) {
    if (!count_here.on_gpu())
        announce_large(key.size(), "count and scatter: " + counted(key.size(), "emulated thread") +
                                       " each, one per edge");
    DeviceGrouping grouping(count_here, num_keys, num_partners, key.size());
    grouping.build(count_here, scatter_here, key, partner, weight);
    return grouping.download();
}

inline GroupedEdges build_csr(const Here& count_here, const Here& scatter_here,
                              const HostCoo& edges) {
    const DeviceCoo d(count_here, edges);
    return group_by_key(count_here, scatter_here, edges.num_rows, edges.num_cols, d.rows, d.cols,
                        d.values);
}

inline GroupedEdges build_csr(const Here& here, const HostCoo& edges) {
    return build_csr(here, here, edges);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/115_csr_concurrent_construction_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, concurrent_construction_program());
    const HostCoo edges = chapter_input(p.options);
    const GroupedEdges baseline = build_csr_cpu(edges);
    print_csr(
        "the CPU baseline, build_csr_cpu: count, scan and scatter one edge at a time (each "
        "row in arrival order, the book's layout A):",
        baseline.grouped);
    const GroupedEdges built = build_csr(p.here, edges);
    show_build(p, edges, built, baseline.grouped);
    write_build_figure(p, edges);

    SelfCheck check;
    check_build(p, edges, built, baseline, check);
    if (p.options.book_example()) {  // the replay is the point, and no GPU can be told an order
        const Here count_here = Here::emulated(p.shuffled_order());
        const GroupedEdges a =
            build_csr(count_here, Here::emulated(ThreadOrder::ascending()), edges);
        const GroupedEdges b =
            build_csr(count_here, Here::emulated(ThreadOrder::given(kBookOrderB)), edges);
        check_book_orders(edges, a.grouped, b.grouped, baseline.grouped, check);
    }
    if (p.options.has("--sorted-rows"))
        check_sorted_rows(p, built.grouped, baseline.grouped, check);
    compare_with_library(p, edges, baseline, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
#endif  // CSR_CONCURRENT_CONSTRUCTION_115
