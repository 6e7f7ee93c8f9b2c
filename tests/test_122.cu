// Tests of 122: row-sorted COO to CSR in one pass over the row ids. The reference is the
// stable-sort CSR of common/, computed without the idea of either conversion; 120's search
// route must agree too. In emulation on every machine, on the GPU where there is one.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch21_csr/122_sorted_coo_to_csr_one_pass_kernel.cu"
#include "../ch21_csr/proof/sorted_coo_proof.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed122 = 122122;

void require_exact(const CooToCsrResult& result, const HostCoo& original) {
    INFO(result.verdict.refusal);
    REQUIRE(result.converted());
    const HostCsr expected = csr_from_coo_by_stable_sort(original);
    REQUIRE(result.csr.row_offsets == expected.row_offsets);
    REQUIRE(result.csr.col_idx == expected.col_idx);
    REQUIRE(result.csr.values == expected.values);
}

// Each offset written by exactly one thread: every thread's writes, recorded, cover [0, R]
// once, whatever the input.
bool each_offset_written_once(const HostCoo& sorted) {
    std::vector<int> writes(static_cast<size_t>(sorted.num_rows) + 1, 0);
    const int nnz = static_cast<int>(sorted.nnz());
    for (int t = 0; t < row_change_threads(sorted.nnz()); ++t) {
        std::vector<int> offsets(writes.size(), -1);
        row_change_thread(t, sorted.rows.data(), nnz, sorted.num_rows, offsets.data());
        for (size_t r = 0; r < offsets.size(); ++r) writes[r] += offsets[r] != -1;
    }
    return std::all_of(writes.begin(), writes.end(), [](int n) { return n == 1; });
}

}  // namespace

TEST_CASE("122: the card's example and the one with gaps, in several orders", "[122][emulation]") {
    for (uint64_t seed : {1u, 2u, 122u}) {
        CAPTURE(seed);
        const Here here = Here::emulated(ThreadOrder::shuffled(seed));
        const CooToCsrResult card = sorted_coo_to_csr_one_pass(here, card_example());
        CHECK(card.csr.row_offsets == kCardRowOffsets);
        require_exact(card, card_example());
        const CooToCsrResult gaps = sorted_coo_to_csr_one_pass(here, gaps_and_duplicate_example());
        CHECK(rows_with_repeated_offsets(gaps.csr.row_offsets) == kGapsEmptyRows);
        require_exact(gaps, gaps_and_duplicate_example());
    }
}

TEST_CASE("122: 1,200 random sorted inputs: exact CSR, each offset written once, 120 agrees",
          "[122][emulation][random]") {
    INFO("seed " << kSeed122);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo sorted = sorted_by_row(edge_case_graph(i, kSeed122));
        CAPTURE(i, sorted.num_rows, sorted.nnz());
        const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed122, i)));
        const CooToCsrResult result = sorted_coo_to_csr_one_pass(here, sorted);
        require_exact(result, sorted);
        REQUIRE(row_change_cpu(sorted) == result.csr.row_offsets);
        REQUIRE(result.csr.row_offsets == sorted_coo_to_csr(here, sorted).csr.row_offsets);
        REQUIRE(each_offset_written_once(sorted));
    }
    // No entries at all, and one hub row of 10^5 entries between 10^5 empty rows.
    const HostCoo empty = coo_of(5, 3, {}, {}, {});
    require_exact(sorted_coo_to_csr_one_pass(Here::emulated(ThreadOrder::shuffled(1)), empty),
                  empty);
    CHECK(row_change_cpu(empty) == std::vector<int>(6, 0));
    const HostCoo hub = sorted_by_row(make_star(100001, 50000, kSeed122));
    CHECK(row_change_cpu(hub) == csr_from_coo_by_stable_sort(hub).row_offsets);
    require_exact(sorted_coo_to_csr_one_pass(Here::emulated(ThreadOrder::shuffled(2)), hub), hub);
}

TEST_CASE("122: the data files, sorted by row", "[122][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo sorted = sorted_by_row(read_data_file(name));
        require_exact(sorted_coo_to_csr_one_pass(Here::emulated(ThreadOrder::shuffled(3)), sorted),
                      sorted);
    }
}

TEST_CASE("122: an input that breaks the contract is refused before anything is written",
          "[122][emulation]") {
    for (const RefusalDemo& demo : refusal_demos()) {
        CAPTURE(demo.what);
        const CooToCsrResult result =
            sorted_coo_to_csr_one_pass(Here::emulated(ThreadOrder::shuffled(4)), demo.coo);
        CHECK_FALSE(result.converted());
        CHECK(result.verdict.first_bad == demo.first_bad);
        CHECK(still_poisoned(result.csr));
    }
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("122: on the GPU, 200 random inputs, the hub, and cuSPARSE agrees", "[122][gpu]") {
    INFO("seed " << kSeed122);
    for (int i = 0; i < 200; ++i) {
        const HostCoo sorted = sorted_by_row(edge_case_graph(i, kSeed122));
        CAPTURE(i, sorted.num_rows, sorted.nnz());
        const CooToCsrResult result = sorted_coo_to_csr_one_pass(Here::gpu(), sorted);
        require_exact(result, sorted);
        if (sorted.nnz() > 0)
            REQUIRE(offsets_by_cusparse(Here::gpu(), sorted) == result.csr.row_offsets);
    }
    const HostCoo hub = sorted_by_row(make_star(100001, 50000, kSeed122));
    require_exact(sorted_coo_to_csr_one_pass(Here::gpu(), hub), hub);
    for (const RefusalDemo& demo : refusal_demos()) {
        const CooToCsrResult result = sorted_coo_to_csr_one_pass(Here::gpu(), demo.coo);
        CHECK(result.verdict.first_bad == demo.first_bad);
        CHECK(still_poisoned(result.csr));
    }
}
#endif
