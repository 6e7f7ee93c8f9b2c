// 21.3, kernel: the total edge weight, edge-parallel over COO, one thread per edge.
// Every thread does the same work, one weight read and one add into one shared total, however
// skewed the degrees are. The chapter's kernel makes that add an atomicAdd on a single address,
// so all E atomics queue on one memory location. Three fixes run beside it on a GPU: (2) a warp
// adds its 32 weights with shuffles and issues one atomic (E/32 in all); (3) cub::DeviceReduce
// sums per block with no atomics at all; (4) a capped grid of blocks, each summing many weights
// and issuing one atomic. At --scale the timings show what one address costs.
//
// Build and run:  make 117_coo_edge_parallel_reduce_kernel
//                 build/117_coo_edge_parallel_reduce_kernel --scale 22
//                 build/117_coo_edge_parallel_reduce_kernel --matrix data/karate.mtx
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <stdexcept>
#include <string>
#include <vector>
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "../common/timing_table.cuh"
#include "../common/warp.h"
#include "chapter_inputs.h"

// Totals are doubles. The generated weights are whole numbers of at most kMaxWeight, so every
// partial sum is a whole number far below 2^53, which a double holds exactly: however the adds
// are ordered or grouped (atomics in any order, shuffles, CUB's tree), the total is the same
// number, and == against the CPU baseline is the right test. A float total would stop being
// exact past 2^24, which an R-MAT graph's total passes at scale 17.
inline double edge_weight_total_cpu(const HostCoo& edges) {
    double total = 0;
    for (size_t e = 0; e < edges.nnz(); ++e) total += edges.values[e];
    return total;
}

// One thread's work: its own edge's weight, added to the one total that every thread shares.
__host__ __device__ inline void add_edge_weight_thread(int e, const float* weight, double* total) {
    atomic_add_shim(total, static_cast<double>(weight[e]));
}

__global__ void edge_weight_atomic_kernel(int num_edges, const float* weight, double* total) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) add_edge_weight_thread(e, weight, total);
}

static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must hold whole warps");

// Warp-cooperative: the body takes the cuda context of common/cooperative.cuh, so the same code
// runs on the GPU and in the emulator, whose warps meet at each shuffle. There is no early
// return: a shuffle reads a register of another lane, and every lane named in the mask must
// execute it, so threads past the last edge stay in and contribute 0. After the halving steps
// (16, 8, 4, 2, 1) lane 0 holds the warp's sum and is the only lane that touches the shared
// total. A warp wholly past the end has nothing to add and issues no atomic, so the count is
// exactly ceil(E / 32).
template <class Cuda>
__host__ __device__ void edge_weight_warp_aggregated_body(Cuda& cuda, int num_edges,
                                                          const float* weight, double* total) {
    const int e = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    const int lane = cuda.threadIdx.x % kWarpSize;
    double sum = e < num_edges ? static_cast<double>(weight[e]) : 0.0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0 && e < num_edges) cuda.atomic_add(total, sum);
}

__global__ void edge_weight_warp_aggregated_kernel(int num_edges, const float* weight,
                                                   double* total) {
    DeviceCuda cuda;
    edge_weight_warp_aggregated_body(cuda, num_edges, weight, total);
}

// (4) The fix that reaches CUB: few threads, each summing many weights, and one atomic per
// block. Each thread strides over the weights by the whole grid's width, so a warp's loads are
// always neighbouring weights (coalesced) and every thread has the same share. Reading memory
// at full speed needs many bytes in flight per thread, not one 4-byte load at a time: each load
// takes four weights at once (a float4, 16 bytes), and each turn of the loop issues four such
// loads before it adds any of them. The weights that do not fill a last float4 (at most three)
// go to the first threads of block 0. The warp halves its sums with shuffles; each warp's lane 0
// leaves its sum in shared memory; after the barrier the first warp adds those up, and one
// thread of the block adds the block's sum into the total. The grid is capped, so the atomics
// number the blocks, about a thousand, not E. Every thread reaches both shuffles and the barrier.
constexpr int kReduceBlocks = 1024;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr int kLoadsInFlight = 4;

__host__ __device__ inline double sum_of(float4 four) {
    return (static_cast<double>(four.x) + four.y) + (static_cast<double>(four.z) + four.w);
}

// The weights must be 16-byte aligned for the float4 loads (DeviceEdgeTotal checks it).
template <class Cuda>
__host__ __device__ void edge_weight_block_reduce_body(Cuda& cuda, int num_edges,
                                                       const float* weight, double* total) {
    double* warp_sums = shared_array<double>(cuda, kWarpsPerBlock);
    const int lane = cuda.threadIdx.x % kWarpSize, warp = cuda.threadIdx.x / kWarpSize;
    const float4* quads = reinterpret_cast<const float4*>(weight);
    const int num_quads = num_edges / 4, stride = cuda.gridDim.x * cuda.blockDim.x;
    int q = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    double sum = 0;
    for (; q + (kLoadsInFlight - 1) * stride < num_quads; q += kLoadsInFlight * stride) {
        float4 loaded[kLoadsInFlight];
        for (int i = 0; i < kLoadsInFlight; ++i) loaded[i] = quads[q + i * stride];
        for (int i = 0; i < kLoadsInFlight; ++i) sum += sum_of(loaded[i]);
    }
    for (; q < num_quads; q += stride) sum += sum_of(quads[q]);
    const int leftover = 4 * num_quads + static_cast<int>(cuda.threadIdx.x);
    if (cuda.blockIdx.x == 0 && leftover < num_edges) sum += static_cast<double>(weight[leftover]);
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0) warp_sums[warp] = sum;
    cuda.syncthreads();
    if (warp != 0) return;
    sum = lane < kWarpsPerBlock ? warp_sums[lane] : 0.0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0) cuda.atomic_add(total, sum);
}

__global__ void edge_weight_block_reduce_kernel(int num_edges, const float* weight, double* total) {
    DeviceCuda cuda;
    edge_weight_block_reduce_body(cuda, num_edges, weight, total);
}

inline unsigned int block_reduce_blocks(size_t num_edges) {
    return std::max(1u, std::min(blocks_for(num_edges), static_cast<unsigned int>(kReduceBlocks)));
}

// The edge weights and the one total where the kernels run, with the four ways to reduce
// them. Each run resets the total itself, so that repeated (timed) runs each compute a fresh
// sum: the atomic kernels add into a zeroed total, and CUB, which writes its result outright,
// finds a NaN there (all bits set), which no correct total can be mistaken for.
class DeviceEdgeTotal {
    Here here_;  // first, as it decides where the arrays below live

public:
    DeviceEdgeTotal(const Here& here, const HostCoo& edges)
        : here_(here), weight(here, edges.values), total(here, size_t{1}) {
        if (!here.on_gpu()) return;
        size_t bytes = 0;
        CUDA_CHECK(cub_reduce(nullptr, bytes));
        // CUB reads a null scratch pointer as "only report the size", so never hand it one.
        cub_scratch = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }

    int num_edges() const { return static_cast<int>(weight.size()); }

    // (1), wherever the kernels run.
    void run_atomic() {
        total.fill_bytes(0);
        here_.launch(num_edges(), edge_weight_atomic_kernel, add_edge_weight_thread, weight.data(),
                     total.data());
    }

    // (2), wherever the kernels run.
    void run_warp_aggregated() {
        total.fill_bytes(0);
        here_.launch_blocks({blocks_for(num_edges()), kThreadsPerBlock, 0},
                            edge_weight_warp_aggregated_kernel,
                            edge_weight_warp_aggregated_body<EmulatedCuda>, num_edges(),
                            weight.data(), total.data());
    }

    // (4), wherever the kernels run. cudaMalloc's allocations, and malloc's on a 64-bit host,
    // are aligned for float4; the check keeps a misaligned one from reading the wrong weights.
    void run_block_reduce() {
        if (reinterpret_cast<uintptr_t>(weight.data()) % alignof(float4) != 0)
            throw std::logic_error("the block reduction needs weights aligned for float4");
        total.fill_bytes(0);
        if (num_edges() == 0) return;
        here_.launch_blocks(
            {block_reduce_blocks(num_edges()), kThreadsPerBlock,
             SharedBytes().add<double>(kWarpsPerBlock).total()},
            edge_weight_block_reduce_kernel, edge_weight_block_reduce_body<EmulatedCuda>,
            num_edges(), weight.data(), total.data());
    }

    // (3), on a GPU only. With no edges CUB still writes the initial value, 0.
    void run_cub() {
        here_.require_gpu("cub::DeviceReduce");
        total.fill_bytes(0xFF);
        size_t bytes = cub_scratch.size();
        CUDA_CHECK(cub_reduce(cub_scratch.data(), bytes));
    }

    double read_total() const { return total.download()[0]; }

    DeviceArray<float> weight;
    DeviceArray<double> total;
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

// (1), one atomic per edge, wherever the kernels run.
inline double total_by_atomics(const Here& here, const HostCoo& edges) {
    DeviceEdgeTotal d(here, edges);
    d.run_atomic();
    return d.read_total();
}

// (2) and (4), wherever the kernels run; (3), CUB, on a device only.
inline double total_warp_aggregated(const Here& here, const HostCoo& edges) {
    DeviceEdgeTotal d(here, edges);
    d.run_warp_aggregated();
    return d.read_total();
}

inline double total_by_block_reduce(const Here& here, const HostCoo& edges) {
    DeviceEdgeTotal d(here, edges);
    d.run_block_reduce();
    return d.read_total();
}

inline double total_by_cub(const HostCoo& edges) {
    DeviceEdgeTotal d(Here::gpu(), edges);
    d.run_cub();
    return d.read_total();
}

// The atomics that each way issues for E edges: the lesson's cost model in one line each.
struct AtomicCounts {
    size_t per_edge, per_warp, per_block;
};

inline AtomicCounts atomics_issued(size_t num_edges) {
    return {num_edges, (num_edges + kWarpSize - 1) / kWarpSize,
            num_edges == 0 ? 0 : block_reduce_blocks(num_edges)};
}

// What a right total is, and the words that the claims use for it. Weights read from a file
// need not be whole numbers; then the order of the adds changes the last bits of a double
// total, and totals can only agree within rounding.
struct RightTotal {
    std::string words;
    double value = 0, tolerance = 0;
    bool holds(double total) const { return std::fabs(total - value) <= tolerance; }
};

inline RightTotal right_total(bool book_example, const HostCoo& edges, double baseline) {
    if (book_example) return {"41, as in the book", kBookTotalWeight, 0};
    double absolute_sum = 0;
    bool whole = true;
    for (float w : edges.values) {
        absolute_sum += std::fabs(w);
        whole = whole && w == std::trunc(w) && std::fabs(w) <= 1e6f;
    }
    if (whole) return {"the CPU baseline's total exactly", baseline, 0};
    return {"the CPU baseline's total to 1e-12 of the sum of |w|", baseline, 1e-12 * absolute_sum};
}

inline std::vector<int> increasing_order(size_t n) {
    std::vector<int> order(n);
    for (size_t e = 0; e < n; ++e) order[e] = static_cast<int>(e);
    return order;
}

// The threads and the atomics that each way issues on the one total.
inline void show_threads(const HostCoo& edges) {
    if (printable(edges)) {
        print_array("edge_weight", edges.values, 11);
        std::printf("\n");
    }
    print_wrapped(counted(edges.nnz(), "thread") + ", one per edge (" +
                  counted(blocks_for(edges.nnz()), "block") + " of " +
                  std::to_string(kThreadsPerBlock) +
                  "): each reads its own weight and adds it to the one shared total, the same "
                  "work whatever the vertex degrees.");
    const AtomicCounts atomics = atomics_issued(edges.nnz());
    print_wrapped("atomics on that total: (1) one per edge = " + with_separators(atomics.per_edge) +
                  "; (2) one per warp = " + with_separators(atomics.per_warp) +
                  "; (3) CUB = none (partial sums per block, then one block adds the partials); "
                  "(4) one per block of a capped grid = " +
                  with_separators(atomics.per_block));
    std::printf("\n");
}

// (1) where the kernels run, and on the book's example the book's two orders, replayed by the
// emulator on either backend: a GPU cannot be told an order.
inline void check_atomic_total(const KernelProgram& p, const HostCoo& edges,
                               const RightTotal& right, SelfCheck& check) {
    const std::string where = p.on_gpu() ? "on the GPU" : "emulated " + p.emulation_order_words();
    if (!p.on_gpu() && edges.nnz() >= kAnnouncedSize)
        announce("adding " + counted(edges.nnz(), "weight") + " in emulated threads");
    const double total = total_by_atomics(p.here, edges);
    std::printf("(1) one atomic per edge, %s: total = %.17g\n", where.c_str(), total);
    double total_a = 0, total_b = 0;
    if (p.options.book_example()) {
        std::vector<int> order_a = increasing_order(edges.nnz());
        std::vector<int> order_b(order_a.rbegin(), order_a.rend());
        total_a = total_by_atomics(Here::emulated(ThreadOrder::given(order_a)), edges);
        total_b = total_by_atomics(Here::emulated(ThreadOrder::given(order_b)), edges);
        std::printf("\nthe per-edge body replayed on the host in two fixed orders:\n");
        std::printf("  order A (increasing edge index): total = %g\n", total_a);
        std::printf("  order B (reverse edge index):    total = %g\n", total_b);
        print_wrapped(
            "The order in which the atomics land changes only the order of the "
            "additions; with whole numbers held exactly, it cannot change the sum.");
    }
    std::printf("\n");
    check.claim("(1) one atomic per edge, " + where + ", gives " + right.words, right.holds(total));
    if (!p.options.book_example()) return;
    check.claim("(1) one atomic per edge, replayed in order A, gives 41",
                total_a == kBookTotalWeight);
    check.claim("(1) one atomic per edge, replayed in order B, gives 41",
                total_b == kBookTotalWeight);
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
    const std::string cub_claim = "(3) cub::DeviceReduce in double gives " + right.words;
    if (!p.on_gpu()) return check.skip(cub_claim);
    const double cub = total_by_cub(edges);
    std::printf("(3) cub::DeviceReduce, in double:         total = %.17g\n\n", cub);
    check.claim(cub_claim, right.holds(cub));
}

// At --scale on a GPU. Each timed run resets the total, so after all of its runs (warm-ups
// included) the total must still be one run's sum; a missing reset would pile the sums up.
inline void time_reductions(const KernelProgram& p, const HostCoo& edges, const RightTotal& right,
                            SelfCheck& check) {
    if (!p.on_gpu() || p.options.scale == 0) return;
    DeviceEdgeTotal d(p.here, edges);
    const double bytes = static_cast<double>(d.weight.bytes());
    const AtomicCounts atomics = atomics_issued(edges.nnz());
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
    const double cub_ms = timed("cub_reduce", "(3) cub::DeviceReduce", [&] { d.run_cub(); });
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

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "117 (21.3) kernel: edge-parallel reduction over COO, one thread per edge",
            {"make 117_coo_edge_parallel_reduce_kernel",
             "build/117_coo_edge_parallel_reduce_kernel --scale 22",
             "build/117_coo_edge_parallel_reduce_kernel --matrix data/karate.mtx"})
            .with_book_input("the book's example: 6 vertices, 9 weighted edges")
            .with_memory({24, 0, 900e6}));
    const HostCoo edges = chapter_input(p.options);
    show_threads(edges);
    const double baseline = edge_weight_total_cpu(edges);
    std::printf("CPU baseline (one flat loop, in double): total = %.17g\n", baseline);
    const RightTotal right = right_total(p.options.book_example(), edges, baseline);

    SelfCheck check;
    check_atomic_total(p, edges, right, check);
    check_cooperative_reductions(p, edges, right, check);
    time_reductions(p, edges, right, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
