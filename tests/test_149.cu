// Tests of 149: SpMV and CG across ranks. Whatever the split and the number of ranks, A^3 x
// across the ranks equals the one-rank products bit for bit (each row is summed by the same body
// in the same order from the same x), and CG across the ranks follows the one-rank CG, whose
// dot products differ only in the order of their terms. In emulation everywhere; [gpu] on the
// machine's GPUs (one rank per GPU with NCCL where there are enough of them).
#include <catch2/catch.hpp>
#include <vector>
#include "../ch14_spmv/149_spmv_across_ranks_kernel.cu"
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

std::vector<float> cg_solution(const RankFabric& fabric, const CgSystem& s, int iterations) {
    CgRanks cg(fabric, s.matrix,
               PaddedLayout(split_by_nonzeros(s.matrix.row_offsets, fabric.ranks())), s.b);
    cg.run(iterations, rhs_norm(s));
    return cg.solution();
}

std::vector<float> cg_across(const Here& here, int ranks, const CgSystem& s, int iterations) {
    return cg_solution(RankFabric(here, ranks), s, iterations);
}

}  // namespace

TEST_CASE("149: A^3 x across 1 to 5 ranks equals one rank's, on the edge-case sweep and R-MAT",
          "[149][emulation][random]") {
    INFO("seed " << kSeed149);
    for (int g = 0; g < 200; ++g) {
        const HostCsr a = square_csr(edge_case_graph(g, kSeed149));
        CAPTURE(g, a.num_rows, a.nnz());
        require_power_matches(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed149, g))), a,
                              1 + g % 5);
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
    const CgSystem s = make_cg_system(csr_from_coo_by_stable_sort(poisson_5_point(12, 12)), false);
    const Here here = Here::emulated(ThreadOrder::shuffled(5));
    const std::vector<float> one = cg_across(here, 1, s, 30);
    for (int ranks : {2, 3, 7}) {
        CAPTURE(ranks);
        const std::vector<float> across = cg_across(here, ranks, s, 30);
        REQUIRE(across.size() == one.size());
        for (size_t i = 0; i < one.size(); ++i) REQUIRE(std::fabs(across[i] - one[i]) <= 1e-5f * 2);
    }
}

TEST_CASE("149: on the GPU, A^3 x and CG across ranks", "[149][gpu]") {
    for (int g = 0; g < 50; ++g) {
        const HostCsr a = square_csr(edge_case_graph(g, kSeed149));
        require_power_matches(Here::gpu(), a, 1 + g % 4);
    }
    const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(14, 16, 0.57, kSeed149));
    for (int ranks : {2, 4}) require_power_matches(Here::gpu(), a, ranks);
    const CgSystem s = make_cg_system(csr_from_coo_by_stable_sort(poisson_5_point(12, 12)), false);
    const std::vector<float> one = cg_across(Here::gpu(), 1, s, 30);
    const std::vector<float> two = cg_across(Here::gpu(), 2, s, 30);
    for (size_t i = 0; i < one.size(); ++i) REQUIRE(std::fabs(two[i] - one[i]) <= 1e-5f * 2);
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
    const CgSystem s = make_cg_system(csr_from_coo_by_stable_sort(poisson_5_point(12, 12)), false);
    const std::vector<float> one =
        cg_solution(RankFabric(Here::gpu(), 1, RankFabric::Placement::one_place), s, 30);
    const std::vector<float> across = cg_solution(fabric, s, 30);
    for (size_t i = 0; i < one.size(); ++i) REQUIRE(std::fabs(across[i] - one[i]) <= 1e-5f * 2);
#else
    WARN("built without NCCL (no nccl.h was found): the ranks cannot have a GPU each");
#endif
}
