// What 113 and 117, which sum over a graph's edges, print, check and time: the library routes
// (cuSPARSE's SpMV, CUB's reduction) are checked on a GPU and timed at --scale.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#ifdef __CUDACC__  // the library routes; a build without the CUDA Toolkit leaves them out
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include "../../common/cub_scratch.cuh"
#include "../../common/cusparse_support.cuh"
#endif
#include "../../common/device_formats.cuh"
#include "../../common/kernel_program.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "reduction_proof.h"

inline ProgramDescription neighbor_sum_program() {
    return ProgramDescription(
               "113 (21.1) kernel: one thread per vertex sums its CSR slice",
               {"make 113_csr_neighbor_sum_kernel && build/113_csr_neighbor_sum_kernel",
                "build/113_csr_neighbor_sum_kernel --scale 20 --skew 0.7",
                "build/113_csr_neighbor_sum_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_memory({56, 72, 900e6});
}

inline ProgramDescription edge_parallel_reduce_program() {
    return ProgramDescription(
               "117 (21.3) kernel: edge-parallel reduction over COO, one thread per edge",
               {"make 117_coo_edge_parallel_reduce_kernel",
                "build/117_coo_edge_parallel_reduce_kernel --scale 22",
                "build/117_coo_edge_parallel_reduce_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_memory({24, 0, 900e6});
}

#ifdef __CUDACC__
// cuSPARSE's SpMV in double gives the same sums as y = A * x, A the 0/1 adjacency matrix and
// x[j] = j: the fair bar (same CSR arrays, tuned balancing of uneven rows), exact in double.
struct CusparseNeighborSums {
    explicit CusparseNeighborSums(DeviceCsr& g)
        : ones(std::vector<double>(g.nnz(), 1.0)),
          x(vertex_ids(g.num_cols)),
          y(g.num_rows),
          spmv(g.num_rows, g.num_cols, g.nnz(), g.row_offsets.data(), g.col_idx.data(), ones.data(),
               x.data(), y.data(), CUSPARSE_SPMV_ALG_DEFAULT, 0.0) {}

    static std::vector<double> vertex_ids(int n) {
        std::vector<double> ids(n);
        for (int j = 0; j < n; ++j) ids[j] = j;
        return ids;
    }
    void run() { spmv.run(); }

    DeviceBuffer<double> ones, x, y;
    CusparseSpmvOf<double> spmv;
};
#endif

// Each thread's slice and the sum that it wrote; on a large graph, the longest slice, whose
// thread the rest of its warp waits for.
inline void show_vertex_threads(const HostCsr& g, const std::vector<long long>& sums,
                                unsigned blocks, unsigned threads) {
    std::printf("%s, one per vertex (%s of %u):\n", counted(g.num_rows, "thread").c_str(),
                counted(blocks, "block").c_str(), threads);
    if (printable(g)) {
        for (int v = 0; v < g.num_rows; ++v) {
            const int begin = g.row_offsets[v], end = g.row_offsets[v + 1];
            std::printf("  thread %d: slice [%d,%d), %-12s -> sum = %lld\n", v, begin, end,
                        counted(end - begin, "neighbour").c_str(), sums[v]);
        }
    } else if (g.num_rows > 0) {
        const int longest = max_row_length(g);
        const std::vector<int> lengths = row_lengths(g);
        const auto vertex = std::find(lengths.begin(), lengths.end(), longest) - lengths.begin();
        print_wrapped("slices: " + fixed_text(static_cast<double>(g.nnz()) / g.num_rows, 2) +
                      " neighbours on average, " + with_separators(longest) + " for vertex " +
                      std::to_string(vertex) + ", whose thread loops " + counted(longest, "time") +
                      " while the rest of its warp waits.");
    }
    std::printf("\n");
}

inline void check_sums(const KernelProgram& p, const std::vector<long long>& sums,
                       const std::vector<long long>& sums_cpu, SelfCheck& check) {
    check.claim(std::string("every vertex's sum from the ") + p.here.name() +
                    " kernel equals the CPU baseline's",
                sums == sums_cpu);
    if (p.options.book_example())
        check.claim("the sums are 3 5 7 9 5 0, as in the book", sums == kBookNeighborSums);
}

// cuSPARSE's SpMV on the same device arrays: checked, and at --scale timed beside the kernel,
// which `launch(d, sums)` launches over the device CSR d.
template <class Launch>
void compare_with_library(const KernelProgram& p, const HostCsr& g,
                          const std::vector<long long>& sums_cpu, Launch launch, SelfCheck& check) {
    const std::string claim = "cuSPARSE SpMV with x = vertex ids gives the same sums";
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    const std::string refused =
        cusparse_refusal(g.num_rows, g.num_cols, static_cast<int64_t>(g.nnz()));
    if (!refused.empty()) return check.skip(claim, refused);
    DeviceCsr d(p.here, g);
    CusparseNeighborSums library(d);
    library.run();
    const std::vector<double> sums_in_double(sums_cpu.begin(), sums_cpu.end());
    check.claim(claim, library.y.download() == sums_in_double);
    if (p.options.scale == 0) return;

    DeviceArray<long long> sums(p.here, static_cast<size_t>(g.num_rows));
    const double csr_bytes = 4.0 * (g.num_rows + 1) + 4.0 * g.nnz();
    TimingTable table(p, "113", p.options.skew,
                      "bytes: row_offsets and col_idx read once, one sum per vertex written; "
                      "cuSPARSE also reads its values (8 per edge) and x");
    const double kernel_ms =
        table.time("csr_thread_per_vertex", "CSR, thread per vertex", csr_bytes + 8.0 * g.num_rows,
                   [&] { launch(d, sums.data()); });
    const double library_ms = table.time(
        "cusparse_spmv_f64", "cuSPARSE SpMV in double, x = vertex ids",
        csr_bytes + 8.0 * g.nnz() + 8.0 * g.num_cols + 8.0 * g.num_rows, [&] { library.run(); });
    table.ratio("cuSPARSE / thread per vertex", library_ms / kernel_ms, "cuSPARSE is faster");
#endif
}

#ifdef __CUDACC__
// (3) cub::DeviceReduce::Reduce over the same weights into the same double total, no atomics:
// the fair bar. plus<double> on a 0.0 init makes CUB add in double (Sum() would take the output
// type). Callers first fill the total with NaN, so that a run that wrote nothing shows.
template <class DeviceTotal>
auto cub_total_weight(DeviceTotal& d) {
    return [&d](void* scratch, size_t& bytes) {
        return cub::DeviceReduce::Reduce(scratch, bytes, d.weights.data(), d.total.data(),
                                         d.num_edges(), cuda::std::plus<double>{}, 0.0);
    };
}

// (3) once, on a GPU, over the lesson's arrays (DeviceTotal: 117's DeviceEdgeTotal).
template <class DeviceTotal>
double total_by_cub(const HostCoo& edges) {
    DeviceTotal d(Here::gpu(), edges);
    d.total.fill_bytes(0xFF);
    run_cub(cub_total_weight(d));
    return d.read_total();
}
#endif

// The threads and the atomics that each way issues on the one total.
template <class AtomicCounts>
void show_edge_threads(const Here& here, const HostCoo& edges, unsigned blocks, unsigned threads,
                       const AtomicCounts& atomics) {
    if (printable(edges)) {
        print_array("weights", edges.values);
        std::printf("\n");
    }
    print_wrapped(counted(edges.nnz(), "thread") + ", one per edge (" + counted(blocks, "block") +
                  " of " + std::to_string(threads) +
                  "): each reads its own weight and adds it to the one shared total, the same "
                  "work whatever the vertex degrees.");
    print_wrapped("atomics on that total: (1) one per edge = " + with_separators(atomics.per_edge) +
                  "; (2) one per warp = " + with_separators(atomics.per_warp) +
                  "; (3) CUB = none (partial sums per block, then one block adds the partials); "
                  "(4) one per block of a grid no larger than the GPU holds at once = " +
                  with_separators(atomics.per_block) + " (" +
                  std::to_string(here.limits().multiprocessors) + " SMs)");
    std::printf("\n");
}

// The totals that the kernels gave: (1), and on the book's example (1) replayed by the emulator
// in order A and its reverse on either backend (a GPU cannot be told an order), (2) and (4).
struct EdgeTotals {
    double per_edge = 0, order_a = 0, reverse = 0, per_warp = 0, per_block = 0;
};

inline void show_totals(const KernelProgram& p, const EdgeTotals& t) {
    const std::string where = p.on_gpu() ? "on the GPU" : "emulated " + p.emulation_order_words();
    std::printf("(1) one atomic per edge, %s: total = %.17g\n", where.c_str(), t.per_edge);
    if (p.options.book_example()) {
        std::printf("\nthe per-edge body replayed on the host in two fixed orders:\n");
        std::printf("  order A (increasing edge index): total = %g\n", t.order_a);
        std::printf("  reverse (decreasing edge index): total = %g\n", t.reverse);
        print_wrapped(
            "The order in which the atomics land changes only the order of the "
            "additions; with whole numbers held exactly, it cannot change the sum.");
    }
    const std::string emulated = p.on_gpu() ? "" : ", emulated";
    std::printf("\n\n(2) warp-aggregated, one atomic per warp%s: total = %.17g\n", emulated.c_str(),
                t.per_warp);
    std::printf("(4) block reduction, one atomic per block%s: total = %.17g\n", emulated.c_str(),
                t.per_block);
}

inline void check_totals(const KernelProgram& p, const EdgeTotals& t, const RightTotal& right,
                         SelfCheck& check) {
    const std::string where = p.on_gpu() ? "on the GPU" : "emulated " + p.emulation_order_words();
    check.claim("(1) one atomic per edge, " + where + ", gives " + right.words,
                right.holds(t.per_edge));
    if (p.options.book_example()) {
        check.claim("(1) one atomic per edge, replayed in order A, gives 41",
                    t.order_a == kBookTotalWeight);
        check.claim("(1) one atomic per edge, replayed in reverse order, gives 41",
                    t.reverse == kBookTotalWeight);
    }
    const std::string emulated = p.on_gpu() ? "" : ", emulated";
    check.claim(
        "(2) warp-aggregated (shuffles, one atomic per warp)" + emulated + " gives " + right.words,
        right.holds(t.per_warp));
    check.claim("(4) block reduction (one atomic per block)" + emulated + " gives " + right.words,
                right.holds(t.per_block));
}

// (3) cub::DeviceReduce, checked on a GPU, and at --scale the four ways timed over the lesson's
// arrays. Each run resets the total, so after all runs it must still be one run's sum.
template <class DeviceTotal, class AtomicCounts>
void compare_with_library(const KernelProgram& p, const HostCoo& edges, const RightTotal& right,
                          const AtomicCounts& atomics, SelfCheck& check) {
    const std::string claim = "(3) cub::DeviceReduce in double gives " + right.words;
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    const double cub_total = total_by_cub<DeviceTotal>(edges);
    std::printf("(3) cub::DeviceReduce, in double:         total = %.17g\n\n", cub_total);
    check.claim(claim, right.holds(cub_total));
    if (p.options.scale == 0) return;
    DeviceTotal d(p.here, edges);
    CubScratch cub(cub_total_weight(d));
    const double bytes = static_cast<double>(d.weights.bytes());
    std::printf("\n");
    TimingTable table(p, "117", p.options.skew,
                      "bytes: each run reads the " + counted(edges.nnz(), "weight") + " once, " +
                          readable_bytes(bytes));
    bool fresh = true;
    auto timed = [&](const std::string& key, const std::string& label, auto run) {
        const double ms = table.time(key, label, bytes, run);
        fresh = fresh && right.holds(d.read_total());
        return ms;
    };
    const double atomic_ms =
        timed("atomic_per_edge", "(1) one atomic per edge", [&] { d.run_atomic(); });
    const double warp_ms = timed("warp_aggregated", "(2) warp-aggregated, one atomic per warp",
                                 [&] { d.run_warp_aggregated(); });
    const double cub_ms = timed("cub_reduce", "(3) cub::DeviceReduce", [&] {
        d.total.fill_bytes(0xFF);
        cub.run(cub_total_weight(d));
    });
    const double block_ms = timed("block_reduce", "(4) block reduction, one atomic per block",
                                  [&] { d.run_block_reduce(); });
    table.ratio("atomic per edge / CUB", atomic_ms / cub_ms, "the atomics are faster");
    table.ratio("warp-aggregated / CUB", warp_ms / cub_ms, "the warp's atomics are faster");
    table.ratio("block reduction / CUB", block_ms / cub_ms, "the block reduction is faster");
    // Atomics on one address are applied one at a time by the L2 slice that holds it, so this
    // rate, not the memory bandwidth, is what bounds (1) and (2).
    std::printf("  atomics absorbed by the one address: (1) %.0f, (2) %.0f million/s\n\n",
                atomics.per_edge / (atomic_ms * 1e3), atomics.per_warp / (warp_ms * 1e3));
    check.claim("after its timed runs, each of the four still gives " + right.words +
                    " (every run starts from a reset total)",
                fresh);
#endif
}
