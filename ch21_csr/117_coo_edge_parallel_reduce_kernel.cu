// 117 (21.3) kernel: the total edge weight, edge-parallel over COO, one thread per edge.
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
#include <cstdint>
#include <stdexcept>
#include <vector>
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/warp.h"
// 116's lesson: total_weight_coo_cpu, the flat loop over COO that this kernel's threads share
#include "116_coo_vs_csr_sum_cpu_baseline.cpp"

// The CPU baseline is 116's flat loop over COO, total_weight_coo_cpu: the same add per edge, one
// edge after another. Totals are doubles. The generated weights are whole numbers of at most
// kMaxWeight, so every partial sum is a whole number far below 2^53, which a double holds
// exactly: however the adds are ordered or grouped (atomics in any order, shuffles, CUB's tree),
// the total is the same number, and == against the CPU baseline is the right test. A float total
// would stop being exact past 2^24, which an R-MAT graph's total passes at scale 17.

// (1) One thread's work: its own edge's weight, added to the one total that every thread shares.
__host__ __device__ inline void total_weight_thread(int e, const float* weights, double* total) {
    atomic_add_shim(total, static_cast<double>(weights[e]));
}

__global__ void total_weight_kernel(int num_edges, const float* weights, double* total) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) total_weight_thread(e, weights, total);
}

// Every version's grid has blocks of 256 threads, eight whole warps.
constexpr unsigned kReduceThreads = 256;
static_assert(kReduceThreads % kWarpSize == 0, "blocks must hold whole warps");

// One thread per edge, as many blocks as cover the edges.
inline unsigned edge_blocks(size_t num_edges) {
    return static_cast<unsigned>((num_edges + kReduceThreads - 1) / kReduceThreads);
}

// (2) Warp-cooperative. Its lanes trade values, so a body that sees one thread alone will not
// do: the body takes a `cuda` context (common/cooperative.cuh) and asks it for what CUDA gives a
// kernel, cuda.threadIdx, cuda.shfl_down_sync, cuda.syncthreads, shared_array<T>(cuda, n) and
// cuda.atomic_add. In the kernel the context is DeviceCuda, whose calls are CUDA's own; in the
// emulator each thread is a fiber, and a block's fibers meet at each shuffle and barrier, so the
// same code runs in both places, launched with here.launch_blocks. There is no early
// return: a shuffle reads a register of another lane, and every lane named in the mask must
// execute it, so threads past the last edge stay in and contribute 0. After the halving steps
// (16, 8, 4, 2, 1) lane 0 holds the warp's sum and is the only lane that touches the shared
// total. A warp wholly past the end has nothing to add and issues no atomic, so the count is
// exactly ceil(E / 32).
template <class Cuda>
__host__ __device__ void warp_aggregated_total_lane(Cuda& cuda, int num_edges,
                                                    const float* weights, double* total) {
    const int e = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    const int lane = cuda.threadIdx.x % kWarpSize;
    double sum = e < num_edges ? static_cast<double>(weights[e]) : 0.0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0 && e < num_edges) cuda.atomic_add(total, sum);
}

__global__ void warp_aggregated_total_kernel(int num_edges, const float* weights,
                                             double* total) {
    DeviceCuda cuda;
    warp_aggregated_total_lane(cuda, num_edges, weights, total);
}

// (4) The fix that reaches CUB: few threads, each summing many weights, and one atomic per
// block. Each thread strides over the weights by the whole grid's width, so a warp's loads are
// always neighbouring weights (coalesced) and every thread has the same share. Reading memory
// at full speed needs many bytes in flight per thread, not one 4-byte load at a time: each load
// takes four weights at once (a float4, 16 bytes), and each turn of the loop issues four such
// loads before it adds any of them. The weights that do not fill a last float4 (at most three)
// go to the first threads of block 0. The warp halves its sums with shuffles; each warp's lane 0
// leaves its sum in shared memory; after the barrier the first warp adds those up, and one
// thread of the block adds the block's sum into the total. The grid is no larger than the GPU
// holds at once (1,056 blocks on an H200's 132 SMs, 160 on a T4's 40), so the atomics number
// the blocks, not E. Every thread reaches both shuffles and the barrier.
constexpr int kWarpsPerBlock = kReduceThreads / kWarpSize;
constexpr int kLoadsInFlight = 4;

__host__ __device__ inline double sum_of(float4 four) {
    return (static_cast<double>(four.x) + four.y) + (static_cast<double>(four.z) + four.w);
}

// The weights must be 16-byte aligned for the float4 loads (DeviceEdgeTotal checks it).
template <class Cuda>
__host__ __device__ void block_reduced_total_thread(Cuda& cuda, int num_edges,
                                                    const float* weights, double* total) {
    double* warp_sums = shared_array<double>(cuda, kWarpsPerBlock);
    const int lane = cuda.threadIdx.x % kWarpSize, warp = cuda.threadIdx.x / kWarpSize;
    const float4* quads = reinterpret_cast<const float4*>(weights);
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
    if (cuda.blockIdx.x == 0 && leftover < num_edges) sum += static_cast<double>(weights[leftover]);
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

__global__ void block_reduced_total_kernel(int num_edges, const float* weights, double* total) {
    DeviceCuda cuda;
    block_reduced_total_thread(cuda, num_edges, weights, total);
}

inline size_t block_reduce_shared_bytes() {
    return SharedBytes().add<double>(kWarpsPerBlock).total();
}

// One thread per edge at most, and no more blocks than are resident at once: a block that
// waited for another's SM would only add one more atomic.
inline unsigned int block_reduce_blocks(const Here& here, size_t num_edges) {
    const unsigned resident = resident_blocks(here, block_reduced_total_kernel, kReduceThreads,
                                              block_reduce_shared_bytes());
    return std::max(1u, std::min(edge_blocks(num_edges), resident));
}

// The atomics that each way issues on the one total for E edges: the lesson's cost model in one
// line each. (3), CUB, issues none.
struct AtomicCounts {
    size_t per_edge, per_warp, per_block;
};

inline AtomicCounts atomics_issued(const Here& here, size_t num_edges) {
    return {num_edges, (num_edges + kWarpSize - 1) / kWarpSize,
            num_edges == 0 ? 0 : block_reduce_blocks(here, num_edges)};
}

// The edge weights and the one total where the kernels run, and the launches of (1), (2) and
// (4). Each run resets the total itself, so that repeated (timed) runs each compute a fresh sum.
class DeviceEdgeTotal {
    Here here_;  // first, as it decides where the arrays below live

public:
    DeviceEdgeTotal(const Here& here, const HostCoo& edges)
        : here_(here), weights(here, edges.values), total(here, size_t{1}) {}

    int num_edges() const { return static_cast<int>(weights.size()); }

    void run_atomic() {
        total.fill_bytes(0);
        const unsigned threads = kReduceThreads, blocks = edge_blocks(num_edges());
        here_.launch(blocks, threads, total_weight_kernel, total_weight_thread, num_edges(),
                     weights.data(), total.data());
    }

    void run_warp_aggregated() {
        total.fill_bytes(0);
        const unsigned threads = kReduceThreads, blocks = edge_blocks(num_edges());
        here_.launch_blocks({blocks, threads, 0},
                            warp_aggregated_total_kernel, warp_aggregated_total_lane<EmulatedCuda>,
                            num_edges(), weights.data(), total.data());
    }

    // cudaMalloc's allocations, and malloc's on a 64-bit host, are aligned for float4; the check
    // keeps a misaligned one from reading the wrong weights.
    void run_block_reduce() {
        if (reinterpret_cast<uintptr_t>(weights.data()) % alignof(float4) != 0)
            throw std::logic_error("the block reduction needs weights aligned for float4");
        total.fill_bytes(0);
        if (num_edges() == 0) return;
        const unsigned threads = kReduceThreads, blocks = block_reduce_blocks(here_, num_edges());
        here_.launch_blocks({blocks, threads, block_reduce_shared_bytes()},
                            block_reduced_total_kernel, block_reduced_total_thread<EmulatedCuda>,
                            num_edges(), weights.data(), total.data());
    }

    double read_total() const { return total.download()[0]; }

    DeviceArray<float> weights;
    DeviceArray<double> total;
};

// (1), (2) and (4) once each, wherever the kernels run.
inline double total_by_atomics(const Here& here, const HostCoo& edges) {
    DeviceEdgeTotal d(here, edges);
    d.run_atomic();
    return d.read_total();
}

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

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/reduction_proof.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, edge_parallel_reduce_program());
    const HostCoo edges = chapter_input(p.options);
    const AtomicCounts atomics = atomics_issued(p.here, edges.nnz());
    show_edge_threads(p.here, edges, edge_blocks(edges.nnz()), kReduceThreads, atomics);
    const double total_cpu = total_weight_coo_cpu(edges);
    show_total_cpu(total_cpu);

    announce_emulation(p, edges.nnz(), "adding " + counted(edges.nnz(), "weight"));
    EdgeTotals totals;
    totals.per_edge = total_by_atomics(p.here, edges);
    if (p.options.book_example()) {  // the per-edge body replayed in two fixed orders
        totals.order_a = total_by_atomics(Here::emulated(ThreadOrder::ascending()), edges);
        totals.reverse = total_by_atomics(Here::emulated(ThreadOrder::descending()), edges);
    }
    totals.per_warp = total_warp_aggregated(p.here, edges);
    totals.per_block = total_by_block_reduce(p.here, edges);
    show_totals(p, totals);

    SelfCheck check;
    const RightTotal right = right_total(p.options.book_example(), edges, total_cpu);
    check_totals(p, totals, right, check);
    compare_with_library<DeviceEdgeTotal>(p, edges, right, atomics, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
