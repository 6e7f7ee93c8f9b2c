// Tests of 149: SpMV and CG across ranks. The cut of the rows covers every row exactly once, in
// order; by rows, the blocks' sizes differ by at most one; by nonzeros, each block holds its
// share of the entries to within the longest row (a row is never cut), on random matrices,
// R-MAT's skews and hand-made extremes. Whatever the split and the number of ranks, A^3 x across
// the ranks equals the one-rank products bit for bit (each row is summed by the same body in the
// same order from the same x), and so does the CPU baseline's A x in emulation; 148's merge path
// across the ranks matches the double reference, and CG across the ranks follows the one-rank CG,
// whose dot products differ only in the order of their terms. In emulation everywhere; [gpu] on the
// machine's GPUs (one rank per GPU with NCCL where there are enough of them, one rank on one GPU
// included).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>
#include "../ch14_spmv/149_spmv_across_ranks_kernel.cu"
#include "../ch14_spmv/proof/149_spmv_across_ranks_kernel.cuh"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed149 = 149149;

HostCoo square(const HostCoo& coo) {
    HostCoo square = coo;
    square.num_rows = square.num_cols = std::max(coo.num_rows, coo.num_cols);
    return square;
}

HostCsr square_csr(const HostCoo& coo) {
    return csr_from_coo_by_stable_sort(square(coo));
}

void require_power_matches(const RankFabric& fabric, const HostCsr& a) {
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const std::vector<float> one = power_on_one(fabric.here(), a, x0, 3);
    for (const RowSplit& split : {split_by_rows(a.num_rows, fabric.ranks()),
                                  split_by_nonzeros(a.row_offsets, fabric.ranks())})
        REQUIRE(power_across_ranks(fabric, a, PaddedLayout(split), x0, 3) == one);
}

void require_power_matches(const Here& here, const HostCsr& a, int ranks) {
    require_power_matches(RankFabric(here, ranks), a);
}

// In emulation each rank's block is summed by spmv_csr_thread on the host, which adds a row's
// products as 143's row loop does: the CPU baseline's A x is the same, bit for bit.
void require_cpu_baseline_matches(const HostCsr& a, int ranks, uint64_t seed) {
    const RankFabric fabric(Here::emulated(ThreadOrder::shuffled(seed)), ranks);
    const std::vector<float> x0 = lesson_x(a.num_cols);
    for (const RowSplit& split :
         {split_by_rows(a.num_rows, ranks), split_by_nonzeros(a.row_offsets, ranks)}) {
        const PaddedLayout layout(split);
        REQUIRE(spmv_across_ranks_cpu(a, layout, x0) ==
                power_across_ranks(fabric, a, layout, x0, 1));
    }
}

// 148's kernel on each rank's block, one product, against the double reference.
void require_merge_path_matches(const RankFabric& fabric, const HostCoo& coo) {
    const HostCsr a = csr_from_coo_by_stable_sort(coo);
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const SpmvReference reference = spmv_reference(coo, x0, zeros(a.num_rows));
    for (const RowSplit& split : {split_by_rows(a.num_rows, fabric.ranks()),
                                  split_by_nonzeros(a.row_offsets, fabric.ranks())})
        REQUIRE(spmv_matches(
            power_across_ranks(fabric, a, PaddedLayout(split), x0, 1, RankKernel::merge_path),
            reference));
}

// A tolerance of 0: every one of the iterations runs.
std::vector<float> cg_x_after(const RankFabric& fabric, const CgSystem& s, int iterations) {
    return cg_across_ranks(fabric, s, split_by_nonzeros(s.matrix.row_offsets, fabric.ranks()),
                           iterations, 0.0)
        .y;
}

std::vector<float> cg_across(const Here& here, int ranks, const CgSystem& s, int iterations) {
    return cg_x_after(RankFabric(here, ranks), s, iterations);
}

// The same bound as 149's own claim: within 1e-5 of the largest entry of one rank's x. Only the
// order in which the dot products' terms are added differs.
void require_follows_one_rank(const std::vector<float>& one, const std::vector<float>& across) {
    REQUIRE(across.size() == one.size());
    float largest = 0;
    for (float v : one) largest = std::max(largest, std::fabs(v));
    REQUIRE(largest > 0);
    for (size_t i = 0; i < one.size(); ++i)
        REQUIRE(std::fabs(across[i] - one[i]) <= 1e-5f * largest);
}

}  // namespace

TEST_CASE("149: A^3 x across 1 to 5 ranks equals one rank's, A x the CPU baseline's",
          "[149][emulation][random]") {
    INFO("seed " << kSeed149);
    for (int g = 0; g < 200; ++g) {
        const HostCsr a = square_csr(edge_case_graph(g, kSeed149));
        CAPTURE(g, a.num_rows, a.nnz());
        require_power_matches(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed149, g))), a,
                              1 + g % 5);
        require_cpu_baseline_matches(a, 1 + g % 5, mix_seed(kSeed149, g));
    }
    for (double skew : {0.25, 0.8}) {
        const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(11, 16, skew, kSeed149));
        for (int ranks : {2, 3, 8})
            require_power_matches(Here::emulated(ThreadOrder::shuffled(3)), a, ranks);
    }
    require_power_matches(Here::emulated(ThreadOrder::shuffled(4)),
                          square_csr(make_star(20001, 5, kSeed149)), 4);
}

TEST_CASE("149: A x across 1 to 5 ranks with 148's merge path matches the double reference",
          "[149][emulation][random]") {
    INFO("seed " << kSeed149);
    for (int g = 0; g < 100; ++g) {
        const HostCoo coo = square(edge_case_graph(g, kSeed149));
        CAPTURE(g, coo.num_rows, coo.nnz());
        require_merge_path_matches(
            RankFabric(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed149, g))), 1 + g % 5),
            coo);
    }
    require_merge_path_matches(RankFabric(Here::emulated(ThreadOrder::shuffled(6)), 3),
                               make_rmat(11, 16, 0.8, kSeed149));
}

TEST_CASE("149: CG across ranks follows the one-rank CG", "[149][emulation]") {
    const CgSystem s = poisson_system(12);
    const Here here = Here::emulated(ThreadOrder::shuffled(5));
    const std::vector<float> one = cg_across(here, 1, s, 30);
    for (int ranks : {2, 3, 7}) {
        CAPTURE(ranks);
        require_follows_one_rank(one, cg_across(here, ranks, s, 30));
    }
}

TEST_CASE("149: on the GPU, A^3 x and CG across ranks", "[149][gpu]") {
    for (int g = 0; g < 50; ++g) {
        const HostCsr a = square_csr(edge_case_graph(g, kSeed149));
        require_power_matches(Here::gpu(), a, 1 + g % 4);
    }
    const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(14, 16, 0.57, kSeed149));
    for (int ranks : {2, 4}) require_power_matches(Here::gpu(), a, ranks);
    const CgSystem s = poisson_system(12);
    const std::vector<float> one = cg_across(Here::gpu(), 1, s, 30);
    require_follows_one_rank(one, cg_across(Here::gpu(), 2, s, 30));
}

TEST_CASE("149: one rank per GPU through NCCL, as many ranks as there are GPUs", "[149][gpu]") {
#ifdef SUITE_HAVE_NCCL
    int devices = 0;
    REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
    const RankFabric fabric(Here::gpu(), devices);
    REQUIRE(fabric.kind() == RankFabric::Kind::gpu_per_rank);
    const HostCoo coo = make_rmat(14, 16, 0.57, kSeed149);
    require_power_matches(fabric, csr_from_coo_by_stable_sort(coo));
    require_merge_path_matches(fabric, coo);
    const CgSystem s = poisson_system(12);
    const std::vector<float> one =
        cg_x_after(RankFabric(Here::gpu(), 1, RankFabric::Placement::one_place), s, 30);
    require_follows_one_rank(one, cg_x_after(fabric, s, 30));
#else
    WARN("built without NCCL (no nccl.h was found): the ranks cannot have a GPU each");
#endif
}

namespace {

bool covers_every_row_once(const RowSplit& split, int num_rows, int ranks) {
    if (split.ranks() != ranks || split.first_row.front() != 0 ||
        split.first_row.back() != num_rows)
        return false;
    for (int k = 0; k < ranks; ++k)
        if (split.first_row[k] > split.first_row[k + 1]) return false;
    return true;
}

int longest_row(const std::vector<int>& row_offsets) {
    int longest = 0;
    for (size_t r = 0; r + 1 < row_offsets.size(); ++r)
        longest = std::max(longest, row_offsets[r + 1] - row_offsets[r]);
    return longest;
}

void require_balanced_by_nonzeros(const std::vector<int>& row_offsets, int ranks) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    const RowSplit split = split_by_nonzeros(row_offsets, ranks);
    REQUIRE(covers_every_row_once(split, num_rows, ranks));
    const double share = double(row_offsets.back()) / ranks;
    for (int k = 0; k < ranks; ++k) {
        CAPTURE(k, split.nonzeros(k, row_offsets), share);
        REQUIRE(std::abs(split.nonzeros(k, row_offsets) - share) <= longest_row(row_offsets) + 1);
    }
}

}  // namespace

TEST_CASE("row split: by rows, blocks differ by at most one row", "[149][split]") {
    for (int rows : {0, 1, 2, 7, 1000, 1 << 20})
        for (int ranks : {1, 2, 3, 4, 8}) {
            CAPTURE(rows, ranks);
            const RowSplit split = split_by_rows(rows, ranks);
            REQUIRE(covers_every_row_once(split, rows, ranks));
            for (int k = 0; k < ranks; ++k) CHECK(std::abs(split.rows(k) - rows / ranks) <= 1);
        }
}

TEST_CASE("row split: by nonzeros, each block within the longest row of its share",
          "[149][split][random]") {
    for (double skew : {0.25, 0.57, 0.8}) {
        const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(14, 16, skew, 149));
        for (int ranks : {1, 2, 3, 4, 8}) {
            CAPTURE(skew, ranks);
            require_balanced_by_nonzeros(a.row_offsets, ranks);
        }
    }
    SplitMix64 rng(149);
    for (int trial = 0; trial < 500; ++trial) {
        const int rows = static_cast<int>(rng.below(60));
        std::vector<int> offsets = {0};
        for (int r = 0; r < rows; ++r)
            offsets.push_back(offsets.back() +
                              static_cast<int>(rng.below(4) == 0 ? rng.below(50) : 0));
        CAPTURE(trial, rows, offsets.back());
        require_balanced_by_nonzeros(offsets, 1 + static_cast<int>(rng.below(6)));
    }
}

TEST_CASE("row split: one hub row, no entries, and more ranks than rows", "[149][split]") {
    require_balanced_by_nonzeros({0, 0, 100000, 100001, 100002}, 2);
    const RowSplit hub = split_by_nonzeros({0, 0, 100000, 100001, 100002}, 2);
    CHECK(hub.first_row == std::vector<int>{0, 2, 4});
    CHECK(split_by_nonzeros({0, 0, 0, 0}, 2).first_row == std::vector<int>{0, 0, 3});
    CHECK(covers_every_row_once(split_by_nonzeros({0, 1, 2}, 4), 2, 4));
    CHECK(split_by_rows(2, 4).first_row == std::vector<int>{0, 0, 1, 1, 2});
}

TEST_CASE("padded layout: every row has its own position, and blocks keep their entries",
          "[149][split]") {
    const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(10, 16, 0.57, 7));
    for (int ranks : {1, 2, 3, 5}) {
        const PaddedLayout layout(split_by_nonzeros(a.row_offsets, ranks));
        std::vector<char> used(layout.length(), 0);
        for (int row = 0; row < a.num_rows; ++row) {
            REQUIRE(layout.position(row) < layout.length());
            REQUIRE(!used[layout.position(row)]);
            used[layout.position(row)] = 1;
        }
        std::vector<float> v(a.num_rows);
        for (int row = 0; row < a.num_rows; ++row) v[row] = static_cast<float>(row);
        CHECK(layout.in_row_order(layout.padded(v)) == v);
        size_t entries = 0;
        for (int k = 0; k < ranks; ++k) {
            const HostCsr block = rank_block(a, layout, k);
            entries += block.nnz();
            for (int r = 0; r < block.num_rows; ++r)
                for (int e = block.row_offsets[r]; e < block.row_offsets[r + 1]; ++e) {
                    const int global =
                        a.row_offsets[layout.split.first_row[k] + r] + (e - block.row_offsets[r]);
                    REQUIRE(block.col_idx[e] ==
                            static_cast<int>(layout.position(a.col_idx[global])));
                    REQUIRE(block.values[e] == a.values[global]);
                }
        }
        CHECK(entries == a.nnz());
    }
}
