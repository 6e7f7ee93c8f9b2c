// Tests of 113: one thread per vertex sums its CSR slice, in emulation and on the GPU, against a
// sum taken straight from the edge list and against cuSPARSE.
#include <catch2/catch.hpp>
#include <vector>
#include "../ch21_csr/113_csr_neighbor_sum_kernel.cu"
#include "../ch21_csr/proof/reduction_proof.cuh"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed113 = 113113;

// Independent of CSR: every edge adds its destination to its source's sum.
std::vector<long long> neighbor_sums_from_coo(const HostCoo& g) {
    std::vector<long long> sums(g.num_rows, 0);
    for (size_t e = 0; e < g.nnz(); ++e) sums[g.rows[e]] += g.cols[e];
    return sums;
}

// The CPU baseline's sums, poisoned first as the kernel's are, so that a vertex it skipped shows.
std::vector<long long> baseline_sums(const HostCsr& g) {
    std::vector<long long> sums(g.num_rows, -1);
    neighbor_sum_cpu(g, sums);
    return sums;
}

}  // namespace

TEST_CASE("113: emulated sums of the book's example are the book's", "[113][emulation]") {
    const HostCsr g = csr_from_coo_by_stable_sort(book_example_edges());
    for (uint64_t seed : {1u, 2u, 3u, 113u}) {
        CAPTURE(seed);
        CHECK(neighbor_sums(Here::emulated(ThreadOrder::shuffled(seed)), g) == kBookNeighborSums);
    }
    CHECK(baseline_sums(g) == kBookNeighborSums);
}

TEST_CASE("113: emulated sums equal the edge list's on 1,200 random graphs", "[113][emulation]") {
    INFO("seed " << kSeed113);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo coo = edge_case_graph(i, kSeed113);
        CAPTURE(i, coo.num_rows, coo.nnz());
        const HostCsr g = csr_from_coo_by_stable_sort(coo);
        const std::vector<long long> expected = neighbor_sums_from_coo(coo);
        REQUIRE(neighbor_sums(Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed113, i))), g) ==
                expected);
        REQUIRE(baseline_sums(g) == expected);
    }
}

TEST_CASE("113: the hub's sum covers all 10^5 neighbours", "[113][emulation][hub]") {
    const HostCoo star = make_star(100001, 0, 4);
    const std::vector<long long> sums =
        neighbor_sums(Here::emulated(ThreadOrder::shuffled(8)), csr_from_coo_by_stable_sort(star));
    CHECK(sums == neighbor_sums_from_coo(star));
    CHECK(sums[0] == 100000LL * 100001LL / 2);  // 1 + 2 + ... + 100000
}

TEST_CASE("113: GPU sums of the book's example", "[113][gpu]") {
    CHECK(neighbor_sums(Here::gpu(), csr_from_coo_by_stable_sort(book_example_edges())) ==
          kBookNeighborSums);
}

TEST_CASE("113: GPU sums on 200 random graphs, 0 vertices and the hub", "[113][gpu]") {
    INFO("seed " << kSeed113);
    for (int i = 0; i < 200; ++i) {
        const HostCoo coo = edge_case_graph(i, kSeed113);
        CAPTURE(i, coo.num_rows, coo.nnz());
        REQUIRE(neighbor_sums(Here::gpu(), csr_from_coo_by_stable_sort(coo)) ==
                neighbor_sums_from_coo(coo));
    }
    CHECK(neighbor_sums(Here::gpu(), csr_from_coo_by_stable_sort(make_uniform_random(0, 0, 1)))
              .empty());
    const HostCoo star = make_star(100001, 0, 4);
    CHECK(neighbor_sums(Here::gpu(), csr_from_coo_by_stable_sort(star)) ==
          neighbor_sums_from_coo(star));
    CHECK(cudaGetLastError() == cudaSuccess);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("113: cuSPARSE's SpMV with x = vertex ids agrees", "[113][gpu]") {
    const HostCoo coo = make_uniform_random(1000, 20000, kSeed113);
    DeviceCsr d(Here::gpu(), csr_from_coo_by_stable_sort(coo));
    CusparseNeighborSums library(d);
    library.run();
    const std::vector<double> got = library.y.download();
    const std::vector<long long> expected = neighbor_sums_from_coo(coo);
    REQUIRE(got.size() == expected.size());
    for (size_t v = 0; v < got.size(); ++v) REQUIRE(got[v] == static_cast<double>(expected[v]));
}
#endif
