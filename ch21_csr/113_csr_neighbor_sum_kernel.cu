// 21.1, kernel: one thread per vertex, each summing the ids of its own CSR slice.
// CSR's point is that thread v can find its neighbours with two reads, row_offsets[v] and
// row_offsets[v + 1], in one flat array. Threads only read shared data and each writes its own
// output slot, so no atomics are needed. The slices are uneven (degrees 2 2 2 2 1 0 here;
// millions apart on a skewed graph), which is the load imbalance that 21.3 comes back to.
//
// Build and run:  make 113_csr_neighbor_sum_kernel && build/113_csr_neighbor_sum_kernel
//                 build/113_csr_neighbor_sum_kernel --scale 20 --skew 0.7
#include <cstdio>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"

std::vector<long long> neighbor_sums_cpu(const HostCsr& g) {
    std::vector<long long> sums(g.num_rows, 0);
    for (int v = 0; v < g.num_rows; ++v)
        for (int k = g.row_offsets[v]; k < g.row_offsets[v + 1]; ++k) sums[v] += g.col_idx[k];
    return sums;
}

// One thread's work: vertex v's slice, summed into v's own slot.
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

// The graph's arrays on the device, uploaded once and shared by the kernel and cuSPARSE.
struct DeviceCsr {
    explicit DeviceCsr(const HostCsr& g)
        : num_rows(g.num_rows), num_cols(g.num_cols), row_offsets(g.row_offsets),
          col_idx(g.col_idx) {}
    int num_rows, num_cols;
    DeviceBuffer<int> row_offsets, col_idx;
};

void launch_neighbor_sums(DeviceCsr& g, DeviceBuffer<long long>& sums) {
    if (g.num_rows == 0) return;
    neighbor_sum_kernel<<<blocks_for(g.num_rows), kThreadsPerBlock>>>(
        g.num_rows, g.row_offsets.data(), g.col_idx.data(), sums.data());
    CUDA_CHECK_LAUNCH();
}

std::vector<long long> neighbor_sums_gpu(const HostCsr& g) {
    DeviceCsr d(g);
    DeviceBuffer<long long> sums(g.num_rows);
    sums.fill_bytes(0xFF);  // poisoned, so that an unwritten slot cannot pass for a zero sum
    launch_neighbor_sums(d, sums);
    return sums.download();
}

std::vector<long long> neighbor_sums_emulated(const HostCsr& g, const ThreadOrder& order) {
    std::vector<long long> sums(g.num_rows, -1);
    emulate_threads(g.num_rows, order, [&](int v) {
        neighbor_sum_thread(v, g.row_offsets.data(), g.col_idx.data(), sums.data());
    });
    return sums;
}

// The library's view of the same computation: y = A * x with A the graph's 0/1 adjacency
// matrix and x[j] = j. In double, the sums are exact for any graph this program can hold.
struct CusparseNeighborSums {
    CusparseNeighborSums(DeviceCsr& g) : ones(std::vector<double>(g.col_idx.size(), 1.0)),
                                         x(g.num_cols), y(g.num_rows) {
        std::vector<double> ids(g.num_cols);
        for (int j = 0; j < g.num_cols; ++j) ids[j] = j;
        x.upload(ids);
        CUSPARSE_CHECK(cusparseCreateCsr(&a, g.num_rows, g.num_cols, g.col_idx.size(),
                                         g.row_offsets.data(), g.col_idx.data(), ones.data(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vx, g.num_cols, x.data(), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vy, g.num_rows, y.data(), CUDA_R_64F));
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a,
                                               vx, &beta, vy, CUDA_R_64F,
                                               CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        workspace = DeviceBuffer<unsigned char>(bytes);
    }
    ~CusparseNeighborSums() {
        cusparseDestroySpMat(a);
        cusparseDestroyDnVec(vx);
        cusparseDestroyDnVec(vy);
    }
    void run() {
        CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta,
                                    vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, workspace.data()));
    }
    CusparseHandle handle;
    DeviceBuffer<double> ones, x, y;
    DeviceBuffer<unsigned char> workspace;
    cusparseSpMatDescr_t a = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    const double alpha = 1.0, beta = 0.0;
};

#ifndef LESSON_WITHOUT_MAIN
// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{56, 72, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p =
        start_kernel_program(argc, argv, "113 (21.1) kernel: one thread per vertex sums its CSR slice");
    const HostCoo edges = chapter_input(p.options, kMemory);
    const HostCsr g = csr_from_coo_by_stable_sort(edges);
    const bool small = g.num_rows <= static_cast<int>(kPrintLimit);
    if (small) {
        print_array("row_offsets", g.row_offsets, 11);
        print_array("col_idx", g.col_idx, 11);
        std::printf("\n");
    }

    const std::vector<long long> expected = neighbor_sums_cpu(g);
    std::vector<long long> sums;
    double ms = 0;
    if (p.on_gpu()) {
        ms = host_ms([&] { sums = neighbor_sums_gpu(g); });
    } else {
        ms = host_ms([&] { sums = neighbor_sums_emulated(g, p.shuffled_order()); });
    }
    std::printf("%d threads, one per vertex (%u blocks of %d):\n", g.num_rows, blocks_for(g.num_rows),
                kThreadsPerBlock);
    if (small) {
        for (int v = 0; v < g.num_rows; ++v)
            std::printf("  thread %d: slice [%d,%d), %d neighbour(s) -> sum = %lld\n", v,
                        g.row_offsets[v], g.row_offsets[v + 1],
                        g.row_offsets[v + 1] - g.row_offsets[v], sums[v]);
        print_array("sums", sums, 4);
    }
    std::printf("\n");

    SelfCheck check;
    if (!p.options.matrix.empty()) check.end_with(result_line(edges));
    check.claim(std::string("every vertex's sum from the ") + (p.on_gpu() ? "GPU" : "emulated") +
                    " kernel equals the CPU baseline's",
                sums == expected);
    if (p.options.book_example())
        check.claim("the sums are 3 5 7 9 5 0, as in the book", sums == kBookNeighborSums);

    if (!p.on_gpu()) {
        if (p.options.scale > 0)
            std::printf("time: %.1f ms on the host (emulation: not a GPU time)\n", ms);
        check.skip("cuSPARSE SpMV with x = vertex ids gives the same sums");
        return check.finish();
    }

    const std::string library_claim = "cuSPARSE SpMV with x = vertex ids gives the same sums";
    const std::string refused =
        cusparse_refusal(g.num_rows, g.num_cols, static_cast<int64_t>(g.nnz()));
    if (!refused.empty()) {
        check.skip(library_claim, refused);
        return check.finish();
    }
    DeviceCsr d(g);
    DeviceBuffer<long long> d_sums(g.num_rows);
    CusparseNeighborSums library(d);
    library.run();
    const std::vector<double> library_sums = library.y.download();
    bool library_agrees = library_sums.size() == sums.size();
    for (size_t v = 0; library_agrees && v < sums.size(); ++v)
        library_agrees = library_sums[v] == static_cast<double>(sums[v]);
    check.claim(library_claim, library_agrees);

    if (p.options.scale > 0) {
        const double copy_gbs = measure_copy_gbs();
        const double kernel_ms = median_gpu_ms([&] { launch_neighbor_sums(d, d_sums); });
        const double library_ms = median_gpu_ms([&] { library.run(); });
        const double bytes = d.row_offsets.bytes() + d.col_idx.bytes() + d_sums.bytes();
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
        std::printf("  thread per vertex   %8.3f ms  %6.0f GB/s (%.0f%% of copy)\n", kernel_ms,
                    gb_per_s(bytes, kernel_ms), 100 * gb_per_s(bytes, kernel_ms) / copy_gbs);
        std::printf("  cuSPARSE SpMV (f64) %8.3f ms  (it also reads the values and x)\n", library_ms);
        std::printf("  ratio cuSPARSE / thread per vertex: %.2f\n", library_ms / kernel_ms);
    }
    return check.finish();
}
#endif
