// Tests of 142: COO SpMV, one thread per nonzero with atomicAdd, emulated in shuffled orders and
// on the GPU, and its CPU baseline, against the double reference on the book's matrix, the data
// files and random matrices; and the table of which threads add into which y entry.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch14_spmv/142_spmv_coo_kernel.cu"
#include "../ch14_spmv/proof/142_spmv_coo_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed142 = 142142;

}  // namespace

TEST_CASE("142: emulated COO SpMV of Fig. 14.1 in several thread orders", "[142][emulation]") {
    const HostCoo a = fig14_1();
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    // Every product and partial sum here is exact in float, so any order gives the same bits.
    const std::vector<float> expected = book_product(x, y0);
    for (uint64_t seed : {1u, 2u, 3u, 142u, 999u}) {
        CAPTURE(seed);
        CHECK(coo_spmv(Here::emulated(ThreadOrder::shuffled(seed)), a, x, y0) == expected);
    }
    CHECK(coo_spmv(Here::emulated(ThreadOrder::given({7, 6, 5, 4, 3, 2, 1, 0})), a, x, y0) ==
          expected);
}

TEST_CASE("142: the CPU baseline on Fig. 14.1, 1,200 random matrices and the hub",
          "[142][random]") {
    INFO("seed " << kSeed142);
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    std::vector<float> y = y0;
    spmv_coo_cpu(fig14_1(), x, y);
    CHECK(y == book_product(x, y0));
    std::vector<HostCoo> inputs = {make_star(100001, 0, kSeed142)};
    for (int i = 0; i < kSweepGraphs; ++i) inputs.push_back(edge_case_graph(i, kSeed142));
    for (size_t i = 0; i < inputs.size(); ++i) {
        const HostCoo& a = inputs[i];
        CAPTURE(i, a.num_rows, a.nnz());
        const std::vector<float> xi = lesson_x(a.num_cols), y0i = varied_y0(a.num_rows);
        std::vector<float> y_cpu = y0i;
        spmv_coo_cpu(a, xi, y_cpu);
        REQUIRE(spmv_matches(y_cpu, spmv_reference(a, xi, y0i)));
    }
}

TEST_CASE("142: the contention table of Fig. 14.1", "[142]") {
    const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(fig14_1());
    CHECK(groups == std::vector<std::vector<int>>{{0, 1}, {2, 3, 4}, {5, 6}, {7}});
}

TEST_CASE("142: every thread is in the group of its own row, once", "[142][random]") {
    INFO("seed " << kSeed142);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo a = edge_case_graph(i, kSeed142);
        CAPTURE(i, a.num_rows, a.nnz());
        const std::vector<std::vector<int>> groups = coo_threads_per_y_entry(a);
        REQUIRE(groups.size() == static_cast<size_t>(a.num_rows));
        std::vector<int> seen(a.nnz(), 0);
        for (int r = 0; r < a.num_rows; ++r)
            for (int k : groups[r]) {
                REQUIRE(a.rows[k] == r);
                ++seen[k];
            }
        for (int count : seen) REQUIRE(count == 1);
    }
}

TEST_CASE("142: emulated COO SpMV on the data files", "[142][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo a = read_data_file(name);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        CHECK(spmv_matches(coo_spmv(Here::emulated(ThreadOrder::shuffled(kSeed142)), a, x, y0),
                           spmv_reference(a, x, y0)));
    }
}

TEST_CASE("142: emulated COO SpMV on 1,200 random matrices and the hub",
          "[142][emulation][random]") {
    INFO("seed " << kSeed142);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo a = edge_case_graph(i, kSeed142);
        CAPTURE(i, a.num_rows, a.nnz());
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        REQUIRE(spmv_matches(
            coo_spmv(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed142, i))), a, x, y0),
            spmv_reference(a, x, y0)));
    }
    // 10^5 atomics on one y entry, and 10^5 entries that no thread touches.
    const HostCoo star = make_star(100001, 0, kSeed142);
    const std::vector<float> x = lesson_x(star.num_cols), y0 = varied_y0(star.num_rows);
    const std::vector<float> y =
        coo_spmv(Here::emulated(ThreadOrder::shuffled(kSeed142)), star, x, y0);
    CHECK(spmv_matches(y, spmv_reference(star, x, y0)));
    CHECK(std::vector<float>(y.begin() + 1, y.end()) ==
          std::vector<float>(y0.begin() + 1, y0.end()));
}

TEST_CASE("142: GPU COO SpMV of Fig. 14.1", "[142][gpu]") {
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    CHECK(coo_spmv(Here::gpu(), fig14_1(), x, y0) == book_product(x, y0));
}

TEST_CASE("142: GPU COO SpMV on 200 random matrices, an empty one and the hub",
          "[142][gpu][random]") {
    INFO("seed " << kSeed142);
    for (int i = 0; i < 200; ++i) {
        const HostCoo a = edge_case_graph(i, kSeed142);
        CAPTURE(i, a.num_rows, a.nnz());
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        REQUIRE(spmv_matches(coo_spmv(Here::gpu(), a, x, y0), spmv_reference(a, x, y0)));
    }
    CHECK(coo_spmv(Here::gpu(), make_uniform_random(0, 0, 1), {}, {}).empty());
    const HostCoo no_entries = make_uniform_random(5, 0, 1);
    CHECK(coo_spmv(Here::gpu(), no_entries, lesson_x(5), varied_y0(5)) == varied_y0(5));
    const HostCoo star = make_star(100001, 0, kSeed142);
    const std::vector<float> x = lesson_x(star.num_cols), y0 = varied_y0(star.num_rows);
    CHECK(spmv_matches(coo_spmv(Here::gpu(), star, x, y0), spmv_reference(star, x, y0)));
    CHECK(cudaGetLastError() == cudaSuccess);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("142: GPU COO SpMV on the data files, and cuSPARSE agrees", "[142][gpu][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo a = read_data_file(name);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        const SpmvReference reference = spmv_reference(a, x, y0);
        CHECK(spmv_matches(coo_spmv(Here::gpu(), a, x, y0), reference));
        CusparseCsrSpmv library(csr_from_coo_by_stable_sort(a), x, y0);
        library.run();
        CHECK(spmv_matches(library.y.download(), reference));
    }
}
#endif
