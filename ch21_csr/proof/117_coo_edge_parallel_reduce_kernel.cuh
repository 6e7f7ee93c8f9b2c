// What 117 prints, checks and times around its lesson (117_coo_edge_parallel_reduce_kernel.cu):
// the threads and the atomics of each way, the claims about each total, cub::DeviceReduce beside
// the kernels, and at --scale the timings of all four.
#pragma once
#include <cmath>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <string>
#include <vector>
#include "../../common/cub_scratch.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/kernel_program.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"

inline ProgramDescription edge_parallel_reduce_program() {
    return ProgramDescription(
               "117 (21.3) kernel: edge-parallel reduction over COO, one thread per edge",
               {"make 117_coo_edge_parallel_reduce_kernel",
                "build/117_coo_edge_parallel_reduce_kernel --scale 22",
                "build/117_coo_edge_parallel_reduce_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_memory({24, 0, 900e6});
}

// (3) cub::DeviceReduce::Reduce over the same weights into the same double total: the library's
// device-wide sum, partial sums per block combined in a tree, no atomics. The fair bar for the
// kernels: the same bytes in, the same total out, NVIDIA's tuned reduction. CUB accumulates in
// the type that its operator returns for (initial value, input item): plus<double> on a double
// 0.0 and a float weight gives double, so each float is widened on load and every partial sum
// is a double. Sum() takes its accumulator from the output type, so Sum() into a float would add
// in float; naming the operator and init says it outright. CUB writes its result outright, so
// each run first fills the total with NaN (all bits set), which no correct total can be
// mistaken for; with no edges CUB still writes the initial value, 0.
class CubTotalWeight {
    DeviceEdgeTotal& d_;

    auto reduce() {
        return [this](void* scratch, size_t& bytes) {
            return cub::DeviceReduce::Reduce(scratch, bytes, d_.weights.data(), d_.total.data(),
                                             d_.num_edges(), cuda::std::plus<double>{}, 0.0);
        };
    }

    CubScratch scratch_;

public:
    explicit CubTotalWeight(DeviceEdgeTotal& d) : d_(d) {
        d.here().require_gpu("cub::DeviceReduce");
        scratch_ = CubScratch(reduce());
    }

    void run() {
        d_.total.fill_bytes(0xFF);
        scratch_.run(reduce());
    }
};

// (3) once, on a GPU.
inline double total_by_cub(const HostCoo& edges) {
    DeviceEdgeTotal d(Here::gpu(), edges);
    CubTotalWeight(d).run();
    return d.read_total();
}

// The atomics that each way issues for E edges: the lesson's cost model in one line each.
struct AtomicCounts {
    size_t per_edge, per_warp, per_block;
};

inline AtomicCounts atomics_issued(const Here& here, size_t num_edges) {
    return {num_edges, (num_edges + kWarpSize - 1) / kWarpSize,
            num_edges == 0 ? 0 : block_reduce_blocks(here, num_edges)};
}

// What a right total is, and the words that the claims use for it. Weights read from a file
// need not be whole numbers; then the order of the adds changes the last bits of a double
// total, and totals can only agree within rounding.
struct RightTotal {
    std::string words;
    double value = 0, tolerance = 0;
    bool holds(double total) const { return std::fabs(total - value) <= tolerance; }
};

inline RightTotal right_total(bool book_example, const HostCoo& edges, double total_cpu) {
    if (book_example) return {"41, as in the book", kBookTotalWeight, 0};
    double absolute_sum = 0;
    long long not_whole = 0;
    const long long n = static_cast<long long>(edges.nnz());
#pragma omp parallel for reduction(+ : absolute_sum, not_whole) if (edges.nnz() >= kParallelSize)
    for (long long e = 0; e < n; ++e) {
        const float w = edges.values[e];
        absolute_sum += std::fabs(w);
        not_whole += !(w == std::trunc(w) && std::fabs(w) <= 1e6f);
    }
    if (not_whole == 0) return {"the CPU baseline's total exactly", total_cpu, 0};
    return {"the CPU baseline's total to 1e-12 of the sum of |w|", total_cpu, 1e-12 * absolute_sum};
}

// The threads and the atomics that each way issues on the one total.
inline void show_threads(const Here& here, const HostCoo& edges) {
    if (printable(edges)) {
        print_array("weights", edges.values);
        std::printf("\n");
    }
    print_wrapped(counted(edges.nnz(), "thread") + ", one per edge (" +
                  counted(edge_blocks(edges.nnz()), "block") + " of " +
                  std::to_string(kReduceThreads) +
                  "): each reads its own weight and adds it to the one shared total, the same "
                  "work whatever the vertex degrees.");
    const AtomicCounts atomics = atomics_issued(here, edges.nnz());
    print_wrapped("atomics on that total: (1) one per edge = " + with_separators(atomics.per_edge) +
                  "; (2) one per warp = " + with_separators(atomics.per_warp) +
                  "; (3) CUB = none (partial sums per block, then one block adds the partials); "
                  "(4) one per block of a grid no larger than the GPU holds at once = " +
                  with_separators(atomics.per_block) + " (" +
                  std::to_string(here.limits().multiprocessors) + " SMs)");
    std::printf("\n");
}

inline void show_total_cpu(double total_cpu) {
    std::printf("CPU baseline (one flat loop, in double): total = %.17g\n", total_cpu);
}

// (1) where the kernels run, and on the book's example in two fixed orders, order A and its
// reverse, replayed by the emulator on either backend: a GPU cannot be told an order.
inline void check_atomic_total(const KernelProgram& p, const HostCoo& edges,
                               const RightTotal& right, SelfCheck& check) {
    const std::string where = p.on_gpu() ? "on the GPU" : "emulated " + p.emulation_order_words();
    announce_emulation(p, edges.nnz(), "adding " + counted(edges.nnz(), "weight"));
    const double total = total_by_atomics(p.here, edges);
    std::printf("(1) one atomic per edge, %s: total = %.17g\n", where.c_str(), total);
    double total_a = 0, total_reverse = 0;
    if (p.options.book_example()) {
        total_a = total_by_atomics(Here::emulated(ThreadOrder::ascending()), edges);
        total_reverse = total_by_atomics(Here::emulated(ThreadOrder::descending()), edges);
        std::printf("\nthe per-edge body replayed on the host in two fixed orders:\n");
        std::printf("  order A (increasing edge index): total = %g\n", total_a);
        std::printf("  reverse (decreasing edge index): total = %g\n", total_reverse);
        print_wrapped(
            "The order in which the atomics land changes only the order of the "
            "additions; with whole numbers held exactly, it cannot change the sum.");
    }
    std::printf("\n");
    check.claim("(1) one atomic per edge, " + where + ", gives " + right.words, right.holds(total));
    if (!p.options.book_example()) return;
    check.claim("(1) one atomic per edge, replayed in order A, gives 41",
                total_a == kBookTotalWeight);
    check.claim("(1) one atomic per edge, replayed in reverse order, gives 41",
                total_reverse == kBookTotalWeight);
}

inline void check_cooperative_reductions(const KernelProgram& p, const HostCoo& edges,
                                         const RightTotal& right, SelfCheck& check) {
    const std::string where = p.on_gpu() ? "" : ", emulated";
    const double warp = total_warp_aggregated(p.here, edges);
    const double block = total_by_block_reduce(p.here, edges);
    std::printf("\n(2) warp-aggregated, one atomic per warp%s: total = %.17g\n", where.c_str(),
                warp);
    std::printf("(4) block reduction, one atomic per block%s: total = %.17g\n", where.c_str(),
                block);
    check.claim("(2) warp-aggregated (shuffles, one atomic per warp)" + where + " gives " +
                    right.words,
                right.holds(warp));
    check.claim("(4) block reduction (one atomic per block)" + where + " gives " + right.words,
                right.holds(block));
}

inline void compare_with_cub(const KernelProgram& p, const HostCoo& edges, const RightTotal& right,
                             SelfCheck& check) {
    const std::string claim = "(3) cub::DeviceReduce in double gives " + right.words;
    if (!p.on_gpu()) return check.skip(claim);
    const double cub = total_by_cub(edges);
    std::printf("(3) cub::DeviceReduce, in double:         total = %.17g\n\n", cub);
    check.claim(claim, right.holds(cub));
}

// At --scale on a GPU. Each timed run resets the total, so after all of its runs (warm-ups
// included) the total must still be one run's sum; a missing reset would pile the sums up.
inline void time_reductions(const KernelProgram& p, const HostCoo& edges, const RightTotal& right,
                            SelfCheck& check) {
    if (!p.on_gpu() || p.options.scale == 0) return;
    DeviceEdgeTotal d(p.here, edges);
    CubTotalWeight cub(d);
    const double bytes = static_cast<double>(d.weights.bytes());
    const AtomicCounts atomics = atomics_issued(p.here, edges.nnz());
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
    const double cub_ms = timed("cub_reduce", "(3) cub::DeviceReduce", [&] { cub.run(); });
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
}
