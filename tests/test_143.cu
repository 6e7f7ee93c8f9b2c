// Tests of 143: CSR SpMV, one thread per row, emulated and on the GPU, against the double
// reference on the book's matrix, the data files and random matrices; SpMV accumulating into y;
// and each thread writing its own row's y entry only.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch14_spmv/143_spmv_csr_kernel.cu"
#include "../ch14_spmv/proof/143_spmv_csr_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed143 = 143143;

std::vector<float> doubled(const std::vector<float>& x) {
    std::vector<float> d(x.size());
    for (size_t j = 0; j < x.size(); ++j) d[j] = 2.0f * x[j];
    return d;
}

}  // namespace

TEST_CASE("143: emulated CSR SpMV of Fig. 14.1, once and twice", "[143][emulation]") {
    const HostCsr a = csr_from_coo_by_stable_sort(fig14_1());
    REQUIRE(a.row_offsets == kFigRowOffsets);
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    const std::vector<float> once = book_product(x, y0);
    for (uint64_t seed : {1u, 2u, 143u}) {
        CAPTURE(seed);
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(seed)), launch_spmv_csr, a, x,
                             y0) == once);
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(seed)), launch_spmv_csr, a, x, y0,
                             2) == book_product(x, once));
    }
    CHECK(first_thread_writing_outside_its_row(a, x) == -1);
    const HostCsr empty_rows = csr_from_coo_by_stable_sort(make_uniform_random(6, 0, 1));
    CHECK(first_thread_writing_outside_its_row(empty_rows, lesson_x(6)) == -1);
}

TEST_CASE("143: emulated CSR SpMV on the data files", "[143][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo coo = read_data_file(name);
        const HostCsr a = csr_from_coo_by_stable_sort(coo);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        CHECK(spmv_matches(spmv_on_device(Here::emulated(ThreadOrder::shuffled(kSeed143)),
                                          launch_spmv_csr, a, x, y0),
                           spmv_reference(coo, x, y0)));
        CHECK(spmv_matches(spmv_on_device(Here::emulated(ThreadOrder::shuffled(kSeed143)),
                                          launch_spmv_csr, a, x, y0, 2),
                           spmv_reference(coo, doubled(x), y0)));
    }
}

TEST_CASE("143: emulated CSR SpMV on 1,200 random matrices and the hub",
          "[143][emulation][random]") {
    INFO("seed " << kSeed143);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo coo = edge_case_graph(i, kSeed143);
        CAPTURE(i, coo.num_rows, coo.nnz());
        const HostCsr a = csr_from_coo_by_stable_sort(coo);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        const ThreadOrder order = ThreadOrder::shuffled(mix_seed(kSeed143, i));
        REQUIRE(spmv_matches(spmv_on_device(Here::emulated(order), launch_spmv_csr, a, x, y0),
                             spmv_reference(coo, x, y0)));
        REQUIRE(spmv_matches(spmv_on_device(Here::emulated(order), launch_spmv_csr, a, x, y0, 2),
                             spmv_reference(coo, doubled(x), y0)));
        REQUIRE(first_thread_writing_outside_its_row(a, x) == -1);
    }
    // One thread walks 10^5 entries; the other 10^5 threads have empty rows.
    const HostCoo star = make_star(100001, 0, kSeed143);
    const HostCsr a = csr_from_coo_by_stable_sort(star);
    const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
    const std::vector<float> y =
        spmv_on_device(Here::emulated(ThreadOrder::shuffled(kSeed143)), launch_spmv_csr, a, x, y0);
    CHECK(spmv_matches(y, spmv_reference(star, x, y0)));
    CHECK(std::vector<float>(y.begin() + 1, y.end()) ==
          std::vector<float>(y0.begin() + 1, y0.end()));
}

TEST_CASE("143: GPU CSR SpMV of Fig. 14.1, once and twice", "[143][gpu]") {
    const HostCsr a = csr_from_coo_by_stable_sort(fig14_1());
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    const std::vector<float> once = book_product(x, y0);
    CHECK(spmv_on_device(Here::gpu(), launch_spmv_csr, a, x, y0) == once);
    CHECK(spmv_on_device(Here::gpu(), launch_spmv_csr, a, x, y0, 2) == book_product(x, once));
}

TEST_CASE("143: GPU CSR SpMV on 200 random matrices, an empty one and the hub",
          "[143][gpu][random]") {
    INFO("seed " << kSeed143);
    for (int i = 0; i < 200; ++i) {
        const HostCoo coo = edge_case_graph(i, kSeed143);
        CAPTURE(i, coo.num_rows, coo.nnz());
        const HostCsr a = csr_from_coo_by_stable_sort(coo);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_csr, a, x, y0),
                             spmv_reference(coo, x, y0)));
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_csr, a, x, y0, 2),
                             spmv_reference(coo, doubled(x), y0)));
    }
    CHECK(spmv_on_device(Here::gpu(), launch_spmv_csr,
                         csr_from_coo_by_stable_sort(make_uniform_random(0, 0, 1)), {}, {})
              .empty());
    const HostCsr no_entries = csr_from_coo_by_stable_sort(make_uniform_random(5, 0, 1));
    CHECK(spmv_on_device(Here::gpu(), launch_spmv_csr, no_entries, lesson_x(5), varied_y0(5)) ==
          varied_y0(5));
    const HostCoo star = make_star(100001, 0, kSeed143);
    const std::vector<float> x = lesson_x(star.num_cols), y0 = varied_y0(star.num_rows);
    CHECK(spmv_matches(
        spmv_on_device(Here::gpu(), launch_spmv_csr, csr_from_coo_by_stable_sort(star), x, y0),
        spmv_reference(star, x, y0)));
    CHECK(cudaGetLastError() == cudaSuccess);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("143: GPU CSR SpMV on the data files, and cuSPARSE agrees", "[143][gpu][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo coo = read_data_file(name);
        const HostCsr a = csr_from_coo_by_stable_sort(coo);
        const std::vector<float> x = lesson_x(a.num_cols), y0 = varied_y0(a.num_rows);
        const SpmvReference reference = spmv_reference(coo, x, y0);
        CHECK(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_csr, a, x, y0), reference));
        CusparseCsrSpmv library(a, x, y0);
        library.run();
        CHECK(spmv_matches(library.y.download(), reference));
    }
}
#endif
