// Tests of 148: CSR SpMV by merge path. The split is checked as a property (every step once,
// equal steps per thread); y against the double reference of chapter_inputs.h, computed from
// the COO, without either kernel's idea, for several step counts, so that rows split across
// many threads, and threads that close many rows, both occur; the CPU baseline's walk against
// 143's row loop, which adds each row's products in the same order.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch14_spmv/148_spmv_merge_path_kernel.cu"
#include "../ch14_spmv/proof/148_spmv_merge_path_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed148 = 148148;

}  // namespace

TEST_CASE("148: Fig. 14.1 split 4 steps to a thread", "[148][emulation]") {
    const HostCsr a = csr_from_coo_by_stable_sort(fig14_1());
    const std::vector<ThreadShare> shares = merge_path_shares(a, 4);
    REQUIRE(shares.size() == 3);
    // By hand: steps nnz0 nnz1 end0 nnz2 | nnz3 nnz4 end1 nnz5 | nnz6 end2 nnz7 end3.
    CHECK(shares[0].first_row == 0);
    CHECK(shares[1].first_row == 1);
    CHECK(shares[2].first_row == 2);
    CHECK(shares[2].rows_closed == 2);
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    for (uint64_t seed : {1u, 2u, 148u})
        CHECK(merge_path_spmv(Here::emulated(ThreadOrder::shuffled(seed)), a, x, y0, 4) ==
              book_product(x, y0));
}

TEST_CASE("148: 1,200 random matrices, several step counts, and the hub",
          "[148][emulation][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed148);
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        for (int steps : {1, 3, 16}) {
            CAPTURE(steps);
            REQUIRE(shares_cover_the_path(csr, steps));
            const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed148, g)));
            REQUIRE(spmv_matches(merge_path_spmv(here, csr, x, y0, steps), reference));
        }
    }
    // One row of 10^5 entries, split over thousands of threads, each leaving a carry.
    const HostCoo star = make_star(100001, 7, kSeed148);
    const auto [csr, x, y0, reference] = spmv_case(star);
    CHECK(shares_cover_the_path(csr, 16));
    CHECK(spmv_matches(merge_path_spmv(Here::emulated(ThreadOrder::shuffled(5)), csr, x, y0),
                       reference));
}

TEST_CASE("148: the CPU baseline's walk adds each row as 143's row loop does, bit for bit",
          "[148][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        CAPTURE(g, csr.num_rows, csr.nnz());
        std::vector<float> walked = y0, row_loop = y0;
        merge_path_cpu(csr, x, walked);
        spmv_csr_cpu(csr, x, row_loop);
        REQUIRE(walked == row_loop);
        REQUIRE(spmv_matches(walked, reference));
    }
}

TEST_CASE("148: the data files", "[148][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const auto [csr, x, y0, reference] = spmv_case(read_data_file(name));
        CHECK(spmv_matches(merge_path_spmv(Here::emulated(ThreadOrder::shuffled(6)), csr, x, y0),
                           reference));
    }
}

TEST_CASE("148: on the GPU, random matrices, the hub and the data files", "[148][gpu]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < 200; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        for (int steps : {1, 16})
            REQUIRE(spmv_matches(merge_path_spmv(Here::gpu(), csr, x, y0, steps), reference));
    }
    const auto [csr, x, y0, reference] = spmv_case(make_star(100001, 7, kSeed148));
    CHECK(spmv_matches(merge_path_spmv(Here::gpu(), csr, x, y0), reference));
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const auto [c, dx, dy0, ref] = spmv_case(read_data_file(name));
        CHECK(spmv_matches(merge_path_spmv(Here::gpu(), c, dx, dy0), ref));
    }
}

// The block-staged kernel: the sweep's matrices fit one tile, so larger ones make rows that
// cross tiles (the hub crosses about a hundred), tiles that only close empty rows, and a last
// tile that is partly empty.
TEST_CASE("148: the block-staged merge path, from one tile to many", "[148][gpu]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < 300; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        REQUIRE(spmv_matches(merge_path_blocks_spmv(Here::gpu(), csr, x, y0), reference));
    }
    std::vector<HostCoo> larger = {make_star(100001, 7, kSeed148),
                                   make_uniform_random(30011, 200003, kSeed148),
                                   coo_of(5000, 3, {4999}, {2}, {1.5f}),
                                   coo_of(3, 2, {}, {}, {}),
                                   coo_of(0, 0, {}, {}, {})};
    for (double skew : {0.25, 0.57, 0.8})
        larger.push_back(make_rmat(14, 16, skew, kSeed148));
    for (const HostCoo& input : larger) {
        CAPTURE(input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        CHECK(spmv_matches(merge_path_blocks_spmv(Here::gpu(), csr, x, y0), reference));
    }
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const auto [c, dx, dy0, ref] = spmv_case(read_data_file(name));
        CHECK(spmv_matches(merge_path_blocks_spmv(Here::gpu(), c, dx, dy0), ref));
    }
}

TEST_CASE("148: the block-staged merge path in the emulator", "[148][emulation][random]") {
    INFO("seed " << kSeed148);
    for (int g = 0; g < 300; ++g) {
        const auto [csr, x, y0, reference] = spmv_case(edge_case_graph(g, kSeed148));
        const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed148, g)));
        REQUIRE(spmv_matches(merge_path_blocks_spmv(here, csr, x, y0), reference));
    }
    const std::vector<HostCoo> larger = {make_star(5001, 7, kSeed148),
                                         make_uniform_random(3001, 20003, kSeed148),
                                         coo_of(3000, 3, {2999}, {2}, {1.5f}),
                                         coo_of(3, 2, {}, {}, {}), coo_of(0, 0, {}, {}, {}),
                                         make_rmat(10, 16, 0.8, kSeed148)};
    for (const HostCoo& input : larger) {
        CAPTURE(input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        CHECK(spmv_matches(merge_path_blocks_spmv(Here::emulated(ThreadOrder::shuffled(7)), csr,
                                                  x, y0),
                           reference));
    }
}
