// 113 (21.1) kernel: one thread per vertex, each summing the ids of its own CSR slice.
// CSR's point is that thread v finds its neighbours with two reads, row_offsets[v] and
// row_offsets[v + 1], in one flat array. The threads share only reads and each writes its own
// output slot, so no atomics are needed. The slices are uneven (degrees 2 2 2 2 1 0 here;
// millions apart on a skewed graph), which is the load imbalance that 21.3 comes back to.
//
// Build and run:  make 113_csr_neighbor_sum_kernel && build/113_csr_neighbor_sum_kernel
//                 build/113_csr_neighbor_sum_kernel --scale 20 --skew 0.7
//                 build/113_csr_neighbor_sum_kernel --matrix data/karate.mtx
#include <vector>
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "chapter_inputs.h"

// The CPU baseline, in the kernel's shape: the same slice loop, one vertex after another.
inline void neighbor_sum_cpu(const HostCsr& g, std::vector<long long>& sums) {
    for (int v = 0; v < g.num_rows; ++v) {
        long long sum = 0;
        for (int k = g.row_offsets[v]; k < g.row_offsets[v + 1]; ++k) sum += g.col_idx[k];
        sums[v] = sum;
    }
}

// One thread's work: vertex v's slice, summed into v's own slot, which no other thread writes.
// Every lesson writes a thread's work as such a __host__ __device__ body, apart from the
// __global__ kernel, which only computes its thread's index, checks it and calls the body: so the
// emulator can run the very same body on the host where there is no GPU.
__host__ __device__ inline void neighbor_sum_thread(int v, const int* row_offsets,
                                                    const int* col_idx, long long* sums) {
    long long sum = 0;
    for (int k = row_offsets[v]; k < row_offsets[v + 1]; ++k) sum += col_idx[k];
    sums[v] = sum;
}

__global__ void neighbor_sum_kernel(int num_vertices, const int* row_offsets, const int* col_idx,
                                    long long* sums) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < num_vertices) neighbor_sum_thread(v, row_offsets, col_idx, sums);
}

// The grid: one thread per vertex, in blocks of 256 threads (eight warps), as many blocks as
// cover the vertices; the last block's threads past the last vertex return at once.
constexpr unsigned kVertexThreads = 256;

inline unsigned vertex_blocks(int num_vertices) {
    return (static_cast<unsigned>(num_vertices) + kVertexThreads - 1) / kVertexThreads;
}

// The sums, written as the book writes it. On a GPU: device memory from cudaMalloc, the CSR
// copied in with cudaMemcpy, the sums poisoned with cudaMemset (every slot -1, so that a vertex
// that no thread summed cannot pass for one whose sum is 0), the launch
// kernel<<<blocks, threads>>>, the sums copied back, and the memory freed. In emulation, host
// vectors stand for device memory, and here.launch runs neighbor_sum_thread for every thread
// index of the same grid, in a shuffled order.
inline std::vector<long long> neighbor_sums(const Here& here, const HostCsr& g) {
    const int n = g.num_rows;
    const unsigned threads = kVertexThreads, blocks = vertex_blocks(n);
    std::vector<long long> sums(n, -1);
    if (n == 0) return sums;  // no vertices: no threads, nothing to launch
    if (!here.on_gpu()) {
        here.launch(blocks, threads, neighbor_sum_kernel, neighbor_sum_thread, n,
                    g.row_offsets.data(), g.col_idx.data(), sums.data());
        return sums;
    }
    // A graph without edges asks cudaMalloc for 0 bytes, which allocates nothing and may leave
    // the pointer as it was: starting from nullptr, cudaFree is then given nullptr, a no-op.
    int *d_row_offsets = nullptr, *d_col_idx = nullptr;
    long long* d_sums = nullptr;
    CUDA_CHECK(cudaMalloc(&d_row_offsets, (n + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_col_idx, g.nnz() * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_sums, n * sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_row_offsets, g.row_offsets.data(), (n + 1) * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_col_idx, g.col_idx.data(), g.nnz() * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sums, 0xFF, n * sizeof(long long)));
#ifdef __CUDACC__  // only nvcc parses a launch; a build without it has no GPU to come here
    neighbor_sum_kernel<<<blocks, threads>>>(n, d_row_offsets, d_col_idx, d_sums);
#endif
    CUDA_CHECK_LAUNCH();
    pause_after_launch(true, size_t{blocks} * threads);
    CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, n * sizeof(long long), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_row_offsets));
    CUDA_CHECK(cudaFree(d_col_idx));
    CUDA_CHECK(cudaFree(d_sums));
    return sums;
}

// The same launch with the suite's helpers, which later lessons use. DeviceCsr holds the CSR's
// arrays as DeviceArrays: device memory on a GPU (cudaMalloc and cudaMemcpy inside, cudaFree when
// the object goes), host memory in emulation. here.launch is the <<<blocks, threads>>> above on
// a GPU, and the emulator's loop over the same grid otherwise.
inline void launch_neighbor_sum(const Here& here, DeviceCsr& g, long long* sums) {
    const unsigned threads = kVertexThreads, blocks = vertex_blocks(g.num_rows);
    here.launch(blocks, threads, neighbor_sum_kernel, neighbor_sum_thread, g.num_rows,
                g.row_offsets.data(), g.col_idx.data(), sums);
}

// __INCLUDE_LEVEL__ is 0 only in the file that the compiler was given: a later lesson or a test
// that includes this one takes the lesson above, without the program below.
#if __INCLUDE_LEVEL__ == 0
#include "proof/reduction_proof.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, neighbor_sum_program());
    const HostCoo edges = chapter_input(p.options);
    const HostCsr g = csr_for_lesson(edges);
    print_csr("the graph in CSR, " + counted(g.nnz(), "edge") + " grouped by source:", g,
              CsrValues::none);

    std::vector<long long> sums_cpu(g.num_rows);
    neighbor_sum_cpu(g, sums_cpu);
    announce_emulation(p, g.nnz(), "summing " + counted(g.nnz(), "neighbour"));
    const std::vector<long long> sums = neighbor_sums(p.here, g);
    show_vertex_threads(g, sums, vertex_blocks(g.num_rows), kVertexThreads);

    SelfCheck check;
    check_sums(p, sums, sums_cpu, check);
    compare_with_library(
        p, g, sums_cpu, [&](DeviceCsr& d, long long* out) { launch_neighbor_sum(p.here, d, out); },
        check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
