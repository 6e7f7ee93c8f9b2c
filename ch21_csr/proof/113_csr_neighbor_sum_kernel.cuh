// What 113 prints, checks and times around its lesson (113_csr_neighbor_sum_kernel.cu): the CSR
// arrays, each thread's slice and sum, the claims about the sums, and cuSPARSE's SpMV beside the
// kernel.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/kernel_program.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"

inline ProgramDescription neighbor_sum_program() {
    return ProgramDescription("113 (21.1) kernel: one thread per vertex sums its CSR slice",
                              {"make 113_csr_neighbor_sum_kernel && build/113_csr_neighbor_sum_kernel",
                               "build/113_csr_neighbor_sum_kernel --scale 20 --skew 0.7",
                               "build/113_csr_neighbor_sum_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_memory({56, 72, 900e6});
}

// cuSPARSE's SpMV (cusparseSpMV, its default algorithm, in double) computes the same sums as
// y = A * x, with A the graph's 0/1 adjacency matrix and x[j] = j. It is the fair bar: the same
// CSR arrays, one output per row, and NVIDIA's tuned balancing of uneven rows. In double the
// sums are exact for any graph this program can hold.
struct CusparseNeighborSums {
    explicit CusparseNeighborSums(DeviceCsr& g)
        : ones(std::vector<double>(g.nnz(), 1.0)), x(g.num_cols), y(g.num_rows) {
        std::vector<double> ids(g.num_cols);
        for (int j = 0; j < g.num_cols; ++j) ids[j] = j;
        x.upload(ids);
        CUSPARSE_CHECK(cusparseCreateCsr(&a, g.num_rows, g.num_cols, g.nnz(), g.row_offsets.data(),
                                         g.col_idx.data(), ones.data(), CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vx, g.num_cols, x.data(), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vy, g.num_rows, y.data(), CUDA_R_64F));
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a,
                                               vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                               &bytes));
        workspace = DeviceBuffer<unsigned char>(bytes);
    }
    ~CusparseNeighborSums() {
        cusparseDestroySpMat(a);
        cusparseDestroyDnVec(vx);
        cusparseDestroyDnVec(vy);
    }
    CusparseNeighborSums(const CusparseNeighborSums&) = delete;
    CusparseNeighborSums& operator=(const CusparseNeighborSums&) = delete;

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

// Each thread's slice and the sum that it wrote; on a large graph, the longest slice, whose
// thread the rest of its warp waits for.
inline void show_threads(const HostCsr& g, const std::vector<long long>& sums) {
    std::printf("%s, one per vertex (%s of %u):\n", counted(g.num_rows, "thread").c_str(),
                counted(vertex_blocks(g.num_rows), "block").c_str(), kVertexThreads);
    if (printable(g)) {
        for (int v = 0; v < g.num_rows; ++v) {
            const int begin = g.row_offsets[v], end = g.row_offsets[v + 1];
            std::printf("  thread %d: slice [%d,%d), %-12s -> sum = %lld\n", v, begin, end,
                        counted(end - begin, "neighbour").c_str(), sums[v]);
        }
        print_array("sums", sums, 4);
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

// cuSPARSE's SpMV on the same device arrays: checked, and at --scale timed beside the kernel.
inline void compare_with_cusparse(const KernelProgram& p, const HostCsr& g,
                                  const std::vector<long long>& sums_cpu, SelfCheck& check) {
    const std::string claim = "cuSPARSE SpMV with x = vertex ids gives the same sums";
    if (!p.on_gpu()) return check.skip(claim);
    const std::string refused =
        cusparse_refusal(g.num_rows, g.num_cols, static_cast<int64_t>(g.nnz()));
    if (!refused.empty()) return check.skip(claim, refused);
    DeviceCsr d(p.here, g);
    CusparseNeighborSums library(d);
    library.run();
    const std::vector<double> library_sums = library.y.download();
    bool agrees = library_sums.size() == sums_cpu.size();
    for (size_t v = 0; agrees && v < sums_cpu.size(); ++v)
        agrees = library_sums[v] == static_cast<double>(sums_cpu[v]);
    check.claim(claim, agrees);
    if (p.options.scale == 0) return;

    DeviceArray<long long> sums(p.here, static_cast<size_t>(g.num_rows));
    const double csr_bytes = 4.0 * (g.num_rows + 1) + 4.0 * g.nnz();
    TimingTable table(p, "113", p.options.skew,
                      "bytes: row_offsets and col_idx read once, one sum per vertex written; "
                      "cuSPARSE also reads its values (8 per edge) and x");
    const double kernel_ms =
        table.time("csr_thread_per_vertex", "CSR, thread per vertex", csr_bytes + 8.0 * g.num_rows,
                   [&] { launch_neighbor_sum(p.here, d, sums.data()); });
    const double library_ms = table.time(
        "cusparse_spmv_f64", "cuSPARSE SpMV in double, x = vertex ids",
        csr_bytes + 8.0 * g.nnz() + 8.0 * g.num_cols + 8.0 * g.num_rows, [&] { library.run(); });
    table.ratio("cuSPARSE / thread per vertex", library_ms / kernel_ms, "cuSPARSE is faster");
}
