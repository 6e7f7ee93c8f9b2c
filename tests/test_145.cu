// Tests of 145 and regular_formats.h: Fig. 14.1 in ELL, HYB and JDS as worked out from the
// figure; every conversion undone to the same multiset of entries on the real matrices of
// data/, on 1,200 random matrices and on the 10^5-entry hub; HYB's width rule and JDS's
// order by counting; and each format's kernel and CPU baseline against the double reference,
// emulated in shuffled orders and on a GPU.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch14_spmv/145_regular_formats_kernel.cu"
#include "../ch14_spmv/proof/145_regular_formats_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed145 = 145;

// Each format's conversion, undone, gives back exactly the input's entries; ELL only where it
// is affordable (the hub's would have 10^10 slots).
void require_round_trips(const HostCoo& input) {
    const std::vector<Entry> expected = sorted_entries(input);
    const HostCsr csr = csr_from_coo_by_stable_sort(input);
    if (ell_is_practical(csr)) {
        const HostEll ell = ell_from_csr(csr);
        REQUIRE(is_well_formed(ell));
        REQUIRE(ell.width == max_row_length(csr));
        REQUIRE(sorted_entries(coo_from_ell(ell)) == expected);
    }
    const HostHyb hyb = hyb_from_csr(csr);
    REQUIRE(is_well_formed(hyb.ell));
    REQUIRE(follows_hyb_rule(row_lengths(csr), hyb.ell.width));
    REQUIRE(sorted_entries(coo_from_hyb(hyb)) == expected);
    const HostJds jds = jds_from_csr(csr);
    REQUIRE(is_well_formed(jds));
    REQUIRE(sorted_longest_first(jds, row_lengths(csr)));
    REQUIRE(jds.num_diagonals() == max_row_length(csr));
    REQUIRE(sorted_entries(coo_from_jds(jds)) == expected);
}

// Each format's kernel, emulated, and HYB's and JDS's baselines, against the reference.
void require_emulated_spmv(const HostCoo& input, uint64_t seed) {
    const auto [csr, x, y0, reference] = spmv_case(input);
    const Here here = Here::emulated(ThreadOrder::shuffled(seed));
    if (ell_is_practical(csr))
        REQUIRE(spmv_matches(ell_spmv(here, ell_from_csr(csr), x, y0), reference));
    const HostHyb hyb = hyb_from_csr(csr);
    const HostJds jds = jds_from_csr(csr);
    REQUIRE(spmv_matches(hyb_spmv(here, hyb, x, y0), reference));
    REQUIRE(spmv_matches(jds_spmv(here, jds, x, y0), reference));
    std::vector<float> y_hyb_cpu = y0, y_jds_cpu = y0;
    spmv_hyb_cpu(hyb, x, y_hyb_cpu);
    spmv_jds_cpu(jds, x, y_jds_cpu);
    REQUIRE(spmv_matches(y_hyb_cpu, reference));
    REQUIRE(spmv_matches(y_jds_cpu, reference));
    // A JDS thread adds its row's entries in the order that the baseline does: the same bits.
    REQUIRE(jds_spmv(here, jds, x, y0) == y_jds_cpu);
}

}  // namespace

TEST_CASE("145: Fig. 14.1 in ELL, HYB and JDS", "[145][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    REQUIRE(csr.row_offsets == kFigRowOffsets);
    // The figure's rows, r0 [1 7 . .], r1 [5 . 3 9], r2 [. 2 8 .], r3 [. . . 6], padded to 3
    // entries and read down the columns of the padded table.
    const HostEll ell = ell_from_csr(csr);
    CHECK(ell.width == 3);
    CHECK(ell.nnz_per_row == std::vector<int>{2, 3, 2, 1});
    CHECK(ell.values == std::vector<float>{1, 5, 2, 6, 7, 3, 8, 0, 0, 9, 0, 0});
    CHECK(ell.col_idx == std::vector<int>{0, 0, 1, 3, 1, 2, 2, -1, -1, 3, -1, -1});
    // 3 of the 4 rows have two or more entries, only row 1 has three: width 2, and row 1's
    // third entry (9, in column 3) goes to COO.
    const HostHyb hyb = hyb_from_csr(csr);
    CHECK(hyb.ell.width == 2);
    CHECK(hyb.ell.values == std::vector<float>{1, 5, 2, 6, 7, 3, 8, 0});
    CHECK(hyb.coo.rows == std::vector<int>{1});
    CHECK(hyb.coo.cols == std::vector<int>{3});
    CHECK(hyb.coo.values == std::vector<float>{9});
    // Sorted by length: r1 (3), r0 (2), r2 (2), r3 (1). Diagonal 0: 5 1 2 6; 1: 3 7 8; 2: 9.
    const HostJds jds = jds_from_csr(csr);
    CHECK(jds.row_perm == std::vector<int>{1, 0, 2, 3});
    CHECK(jds.diag_ptrs == std::vector<int>{0, 4, 7, 8});
    CHECK(jds.values == std::vector<float>{5, 1, 2, 6, 3, 7, 8, 9});
    CHECK(jds.col_idx == std::vector<int>{0, 0, 1, 3, 2, 1, 2, 3});
    // y = A * x for x = 1 2 3 4: 1 + 14, 5 + 9 + 36, 4 + 24, 24.
    const std::vector<float> x = {1, 2, 3, 4}, zeros(4, 0.0f);
    const std::vector<float> expected = {15, 50, 28, 24};
    for (uint64_t seed : {1u, 2u, 145u}) {
        const Here here = Here::emulated(ThreadOrder::shuffled(seed));
        CHECK(ell_spmv(here, ell, x, zeros) == expected);
        CHECK(hyb_spmv(here, hyb, x, zeros) == expected);
        CHECK(jds_spmv(here, jds, x, zeros) == expected);
    }
    std::vector<float> y_ell = zeros, y_hyb = zeros, y_jds = zeros;
    spmv_ell_cpu(ell, x, y_ell);
    spmv_hyb_cpu(hyb, x, y_hyb);
    spmv_jds_cpu(jds, x, y_jds);
    CHECK(y_ell == expected);
    CHECK(y_hyb == expected);
    CHECK(y_jds == expected);
}

TEST_CASE("145: conversions round-trip on the real matrices of data/", "[145][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo input = read_data_file(name);
        require_round_trips(input);
        require_emulated_spmv(input, kSeed145);
    }
}

TEST_CASE("145: conversions round-trip on 1,200 random matrices and the hub",
          "[145][emulation][random]") {
    INFO("seed " << kSeed145);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed145);
        CAPTURE(g, input.num_rows, input.nnz());
        require_round_trips(input);
    }
    const HostCoo star = make_star(100001, 0, kSeed145);
    CHECK_FALSE(ell_is_practical(csr_from_coo_by_stable_sort(star)));
    require_round_trips(star);
    // HYB on the star: width 0 (no row but the hub has an entry), all 10^5 entries in COO.
    CHECK(hyb_from_csr(csr_from_coo_by_stable_sort(star)).coo.nnz() == 100000);
}

TEST_CASE("145: an ELL of a given width keeps each row's first entries", "[145][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    for (int width = 0; width <= 4; ++width) {
        CAPTURE(width);
        const HostEll ell = ell_from_csr(csr, width);
        REQUIRE(is_well_formed(ell));
        size_t kept = 0;
        for (int r = 0; r < 4; ++r)
            kept += std::min(width, kFigRowOffsets[r + 1] - kFigRowOffsets[r]);
        CHECK(coo_from_ell(ell).nnz() == kept);
    }
}

TEST_CASE("145: HYB's width rule on random row lengths", "[145][emulation][random]") {
    SplitMix64 rng(kSeed145);
    for (int trial = 0; trial < 1000; ++trial) {
        std::vector<int> lengths(rng.below(60));
        for (int& n : lengths) n = static_cast<int>(rng.below(trial % 2 ? 5 : 200));
        CAPTURE(trial, lengths.size());
        const int width = hyb_ell_width(lengths);
        REQUIRE(follows_hyb_rule(lengths, width));
    }
    CHECK(hyb_ell_width({}) == 0);
    CHECK(hyb_ell_width({7}) == 7);
    CHECK(hyb_ell_width({0, 0, 9}) == 9);     // a third of 3 rows is 1 row
    CHECK(hyb_ell_width({0, 0, 0, 9}) == 0);  // a third of 4 rows is 2 rows
}

TEST_CASE("145: the emulated ELL, HYB and JDS bodies match the reference",
          "[145][emulation][random]") {
    INFO("seed " << kSeed145);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed145);
        CAPTURE(g, input.num_rows, input.nnz());
        require_emulated_spmv(input, mix_seed(kSeed145, g));
    }
    require_emulated_spmv(make_star(100001, 0, kSeed145), kSeed145);
}

TEST_CASE("145: GPU kernels of ELL, HYB and JDS on 200 random matrices, 0 rows and the hub",
          "[145][gpu][random]") {
    INFO("seed " << kSeed145);
    std::vector<HostCoo> inputs = {fig14_1(), make_uniform_random(0, 0, 1),
                                   make_uniform_random(7, 0, 1), make_star(100001, 0, kSeed145),
                                   make_uniform_random(3000, 100000, kSeed145)};
    for (int g = 0; g < 200; ++g) inputs.push_back(edge_case_graph(g, kSeed145));
    for (size_t g = 0; g < inputs.size(); ++g) {
        const HostCoo& input = inputs[g];
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        if (ell_is_practical(csr))
            REQUIRE(spmv_matches(ell_spmv(Here::gpu(), ell_from_csr(csr), x, y0), reference));
        REQUIRE(spmv_matches(hyb_spmv(Here::gpu(), hyb_from_csr(csr), x, y0), reference));
        REQUIRE(spmv_matches(jds_spmv(Here::gpu(), jds_from_csr(csr), x, y0), reference));
        REQUIRE(cudaGetLastError() == cudaSuccess);
    }
}
