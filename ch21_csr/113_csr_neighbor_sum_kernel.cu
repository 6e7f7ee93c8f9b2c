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

// One thread per vertex, wherever the kernels run.
inline void launch_neighbor_sum(const Here& here, DeviceCsr& g, long long* sums) {
    here.launch(g.num_rows, neighbor_sum_kernel, neighbor_sum_thread, g.row_offsets.data(),
                g.col_idx.data(), sums);
}

// The sums are poisoned first (every slot -1), so that a vertex that no thread summed cannot
// pass for one whose sum is 0.
inline std::vector<long long> neighbor_sums(const Here& here, const HostCsr& g) {
    DeviceCsr d(here, g);
    DeviceArray<long long> sums(here, static_cast<size_t>(g.num_rows));
    sums.fill_bytes(0xFF);
    launch_neighbor_sum(here, d, sums.data());
    return sums.download();
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/113_csr_neighbor_sum_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, neighbor_sum_program());
    const HostCoo edges = chapter_input(p.options);
    const HostCsr g = csr_of(edges);
    show_csr(g);

    std::vector<long long> sums_cpu(g.num_rows);
    neighbor_sum_cpu(g, sums_cpu);
    announce_emulation(p, g.nnz(), "summing " + counted(g.nnz(), "neighbour"));
    const std::vector<long long> sums = neighbor_sums(p.here, g);
    show_threads(g, sums);

    SelfCheck check;
    check_sums(p, sums, sums_cpu, check);
    compare_with_cusparse(p, g, sums_cpu, check);
    if (!p.options.book_example()) check.end_with(result_line(edges));
    return check.finish();
}
#endif
