// 21.3, kernel: the total edge weight, edge-parallel over COO, one thread per edge.
// Every thread does the same work, one weight read and one add into one shared total, however
// skewed the degrees are. The chapter's kernel makes that add an atomicAdd on a single address,
// so all E atomics queue on one memory location. Two fixes are run beside it: a warp adds its 32
// weights with shuffles first and issues one atomic (E/32 in all), and cub::DeviceReduce, a
// tree of per-block partial sums with no atomics at all. At --scale the timings show what one
// contended address costs.
//
// Build and run:  make 117_coo_edge_parallel_reduce_kernel && build/117_coo_edge_parallel_reduce_kernel
//                 build/117_coo_edge_parallel_reduce_kernel --scale 22
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <vector>
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"

// Totals are doubles. The weights are whole numbers of at most kMaxWeight stored in floats, so
// every partial sum of them is a whole number far below 2^53, which a double holds exactly:
// however the additions are ordered or grouped (atomics in any order, shuffles, CUB's tree),
// the total is the same exact number, and the GPU's result can be compared with == against
// the CPU's. A float total would stop being exact past 2^24 (about 16.7 million), which an
// R-MAT graph's total passes at scale 17; with arbitrary real weights even a double total
// would depend on the order in which the atomics happened to land.
double edge_weight_total_cpu(const HostCoo& edges) {
    double total = 0;
    for (size_t e = 0; e < edges.nnz(); ++e) total += edges.values[e];
    return total;
}

// Weights read from a file need not be whole numbers. Then the order of the additions changes
// the last bits of a double total, and totals can only agree to within rounding.
bool whole_number_weights(const HostCoo& edges) {
    for (float w : edges.values)
        if (w != std::trunc(w) || std::fabs(w) > 1e6f) return false;
    return true;
}

double absolute_weight_sum(const HostCoo& edges) {
    double sum = 0;
    for (float w : edges.values) sum += std::fabs(w);
    return sum;
}

// One thread's work: its own edge's weight, added to the one total that every thread shares.
__host__ __device__ inline void add_edge_weight_thread(int e, const float* weight, double* total) {
    atomic_add_shim(total, static_cast<double>(weight[e]));
}

__global__ void edge_weight_atomic_kernel(int num_edges, const float* weight, double* total) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) add_edge_weight_thread(e, weight, total);
}

constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must hold whole warps");

// Warp-cooperative, so it has no host emulation. There is no early return: a shuffle reads a
// register of another lane, and every lane named in the mask must execute it, so threads past
// the last edge stay in and contribute 0. After the halving steps (16, 8, 4, 2, 1) lane 0 holds
// the warp's sum and is the only lane that touches the shared total. A warp lying wholly past
// the end has nothing to add and issues no atomic, so the count is exactly ceil(E / 32).
__global__ void edge_weight_warp_aggregated_kernel(int num_edges, const float* weight,
                                                   double* total) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % kWarpSize;
    double sum = e < num_edges ? static_cast<double>(weight[e]) : 0.0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0 && e < num_edges) atomicAdd(total, sum);
}

// The edge weights and the one total on the device, with the three ways to reduce them. Each
// run resets the total itself, so that repeated (timed) runs each compute a fresh sum: the
// atomic kernels add into a zeroed total, and CUB, which writes its result outright, finds a
// NaN there (all bits set), which no correct total can be mistaken for.
class DeviceEdgeTotal {
public:
    explicit DeviceEdgeTotal(const HostCoo& edges) : weight(edges.values), total(1) {
        size_t bytes = 0;
        CUDA_CHECK(cub_reduce(nullptr, bytes));
        // CUB reads a null scratch pointer as "only report the size", so never hand it one.
        cub_scratch = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }

    int num_edges() const { return static_cast<int>(weight.size()); }

    void run_atomic() {
        CUDA_CHECK(cudaMemsetAsync(total.data(), 0, total.bytes()));
        if (num_edges() == 0) return;
        edge_weight_atomic_kernel<<<blocks_for(num_edges()), kThreadsPerBlock>>>(
            num_edges(), weight.data(), total.data());
        CUDA_CHECK_LAUNCH();
    }

    void run_warp_aggregated() {
        CUDA_CHECK(cudaMemsetAsync(total.data(), 0, total.bytes()));
        if (num_edges() == 0) return;
        edge_weight_warp_aggregated_kernel<<<blocks_for(num_edges()), kThreadsPerBlock>>>(
            num_edges(), weight.data(), total.data());
        CUDA_CHECK_LAUNCH();
    }

    // With no edges CUB still writes the initial value, 0.
    void run_cub() {
        CUDA_CHECK(cudaMemsetAsync(total.data(), 0xFF, total.bytes()));
        size_t bytes = cub_scratch.size();
        CUDA_CHECK(cub_reduce(cub_scratch.data(), bytes));
    }

    double read_total() const { return total.download()[0]; }

    DeviceBuffer<float> weight;
    DeviceBuffer<double> total;
    DeviceBuffer<unsigned char> cub_scratch;

private:
    // CUB accumulates in the type that its operator returns for (initial value, input item):
    // plus<double> on a double 0.0 and a float weight gives double, so each float is widened on
    // load and every partial sum is a double. Sum() takes its accumulator from the output type,
    // so Sum() into a float would add in float; naming the operator and init says it outright.
    cudaError_t cub_reduce(void* scratch, size_t& bytes) {
        return cub::DeviceReduce::Reduce(scratch, bytes, weight.data(), total.data(), num_edges(),
                                         cuda::std::plus<double>{}, 0.0);
    }
};

double total_atomic_gpu(const HostCoo& edges) {
    DeviceEdgeTotal d(edges);
    d.run_atomic();
    return d.read_total();
}

double total_warp_aggregated_gpu(const HostCoo& edges) {
    DeviceEdgeTotal d(edges);
    d.run_warp_aggregated();
    return d.read_total();
}

double total_cub_gpu(const HostCoo& edges) {
    DeviceEdgeTotal d(edges);
    d.run_cub();
    return d.read_total();
}

double total_atomic_emulated(const HostCoo& edges, const ThreadOrder& order) {
    double total = 0;
    emulate_threads(edges.nnz(), order,
                    [&](int e) { add_edge_weight_thread(e, edges.values.data(), &total); });
    return total;
}

// The atomics that each way issues for E edges: the lesson's cost model in one line each.
struct AtomicCounts {
    size_t per_edge, per_warp;
};

AtomicCounts atomics_issued(size_t num_edges) {
    return {num_edges, (num_edges + kWarpSize - 1) / kWarpSize};
}

#ifndef LESSON_WITHOUT_MAIN
namespace {
std::vector<int> increasing_order(size_t n) {
    std::vector<int> order(n);
    for (size_t e = 0; e < n; ++e) order[e] = static_cast<int>(e);
    return order;
}

std::vector<int> reverse_order(size_t n) {
    std::vector<int> order = increasing_order(n);
    std::reverse(order.begin(), order.end());
    return order;
}
}  // namespace

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{24, 0, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "117 (21.3) kernel: edge-parallel reduction over COO, one thread per edge");
    const HostCoo edges = chapter_input(p.options, kMemory);
    const bool book = p.options.book_example();
    const bool timed = p.options.scale > 0;
    const size_t num_edges = edges.nnz();
    if (book) {
        print_array("edge_weight", edges.values, 11);
        std::printf("\n");
    }
    std::printf("%zu threads, one per edge (%u block(s) of %d): each reads its own weight and\n"
                "adds it to the one shared total, the same work whatever the vertex degrees.\n",
                num_edges, blocks_for(num_edges), kThreadsPerBlock);
    const AtomicCounts atomics = atomics_issued(num_edges);
    std::printf("atomics on that total: (1) one per edge = %zu; (2) one per warp = %zu;\n"
                "  (3) CUB = none (partial sums per block, then one block adds the partials)\n\n",
                atomics.per_edge, atomics.per_warp);

    double expected = 0;
    const double baseline_ms = host_ms([&] { expected = edge_weight_total_cpu(edges); });
    std::printf("CPU baseline (one flat loop, in double): total = %.17g\n\n", expected);

    double total_a = 0, total_b = 0;
    if (book) {
        total_a = total_atomic_emulated(edges, ThreadOrder::given(increasing_order(num_edges)));
        total_b = total_atomic_emulated(edges, ThreadOrder::given(reverse_order(num_edges)));
        std::printf("the per-edge body replayed on the host in two fixed orders:\n");
        std::printf("  order A (increasing edge index): total = %g\n", total_a);
        std::printf("  order B (reverse edge index):    total = %g\n", total_b);
        std::printf("The order in which the atomics land changes only the order of the additions;\n"
                    "with whole numbers held exactly, it cannot change the sum.\n\n");
    }

    SelfCheck check;
    if (!p.options.matrix.empty()) check.end_with(result_line(edges));
    const bool whole = whole_number_weights(edges);
    const std::string target = book    ? "41, as in the book"
                               : whole ? "the CPU baseline's total exactly"
                                       : "the CPU baseline's total to 1e-12 of the sum of |w|";
    auto holds = [&](double total) {
        if (book) return total == kBookTotalWeight;
        return whole ? total == expected
                     : std::fabs(total - expected) <= 1e-12 * absolute_weight_sum(edges);
    };
    auto claim_book_orders = [&] {
        if (!book) return;
        check.claim("(1) one atomic per edge, replayed in order A, gives 41",
                    total_a == kBookTotalWeight);
        check.claim("(1) one atomic per edge, replayed in order B, gives 41",
                    total_b == kBookTotalWeight);
    };
    const std::string warp_claim =
        "(2) warp-aggregated (shuffles, one atomic per warp) gives " + target;
    const std::string cub_claim = "(3) cub::DeviceReduce in double gives " + target;

    if (!p.on_gpu()) {
        double total = 0;
        const double ms =
            host_ms([&] { total = total_atomic_emulated(edges, p.shuffled_order()); });
        std::printf("(1) one atomic per edge, emulated in shuffled order: total = %.17g\n", total);
        std::printf("(2) and (3) need warps and a device: they run on a GPU only\n");
        if (timed)
            std::printf("time: %.1f ms emulated, %.1f ms the CPU baseline (emulation: not a GPU "
                        "time)\n",
                        ms, baseline_ms);
        std::printf("\n");
        check.claim("(1) one atomic per edge, emulated in shuffled order, gives " + target,
                    holds(total));
        claim_book_orders();
        check.skip(warp_claim);
        check.skip(cub_claim);
        return check.finish();
    }

    DeviceEdgeTotal d(edges);
    d.run_atomic();
    const double total_atomic = d.read_total();
    d.run_warp_aggregated();
    const double total_warp = d.read_total();
    d.run_cub();
    const double total_cub = d.read_total();
    std::printf("(1) one atomic per edge:                  total = %.17g\n", total_atomic);
    std::printf("(2) warp-aggregated, one atomic per warp: total = %.17g\n", total_warp);
    std::printf("(3) cub::DeviceReduce, in double:         total = %.17g\n\n", total_cub);

    // Each timed run resets the total, so after all of its runs (warm-ups included) the total
    // must still be one run's sum; a missing reset would leave the sums piled up.
    bool fresh_after_timing = true;
    if (timed) {
        const double copy_gbs = measure_copy_gbs();
        auto time_and_recheck = [&](auto run) {
            const double ms = median_gpu_ms(run);
            fresh_after_timing = fresh_after_timing && holds(d.read_total());
            return ms;
        };
        const double atomic_ms = time_and_recheck([&] { d.run_atomic(); });
        const double warp_ms = time_and_recheck([&] { d.run_warp_aggregated(); });
        const double cub_ms = time_and_recheck([&] { d.run_cub(); });
        const double bytes = static_cast<double>(d.weight.bytes());
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s;\n"
                    "each run reads the %zu weights, %.0f MB):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs, num_edges, bytes / 1e6);
        auto row = [&](const char* name, double ms, size_t num_atomics) {
            std::printf("  %-24s %9.3f ms %7.1f GB/s (%5.1f%% of copy) %11zu atomics\n", name, ms,
                        gb_per_s(bytes, ms), 100 * gb_per_s(bytes, ms) / copy_gbs, num_atomics);
        };
        row("(1) one atomic per edge", atomic_ms, atomics.per_edge);
        row("(2) warp-aggregated", warp_ms, atomics.per_warp);
        row("(3) cub::DeviceReduce", cub_ms, 0);
        std::printf("  ratio atomic per edge / CUB: %.2f\n", atomic_ms / cub_ms);
        std::printf("  ratio warp-aggregated / CUB: %.2f\n", warp_ms / cub_ms);
        // Atomics on one address are applied one at a time by the L2 slice that holds it, so
        // this rate, not the memory bandwidth, is what bounds (1) and (2).
        std::printf("  atomics absorbed by the one address: (1) %.0f, (2) %.0f million/s\n\n",
                    atomics.per_edge / (atomic_ms * 1e3), atomics.per_warp / (warp_ms * 1e3));
    }

    check.claim("(1) one atomic per edge on the GPU gives " + target, holds(total_atomic));
    claim_book_orders();
    check.claim(warp_claim, holds(total_warp));
    check.claim(cub_claim, holds(total_cub));
    if (timed)
        check.claim("after its timed runs, each of the three still gives " + target +
                        " (every run starts from a reset total)",
                    fresh_after_timing);
    return check.finish();
}
#endif
