// Tests of 120: sorted COO to CSR with one lower-bound search per row boundary, after a check of
// the input where the kernels run; in emulation and on the GPU, with the RLE + scan route and
// cuSPARSE's coo2csr on the GPU only. The reference is the stable-sort CSR of common/: the
// conversion keeps the order of the entries, so the arrays must be equal exactly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>
#include "../ch21_csr/120_sorted_coo_to_csr_kernel.cu"
#include "../ch21_csr/proof/sorted_coo_proof.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "sorted_coo_refusals.h"
#include "emulated_here.h"
#include "run_program.h"

namespace {

constexpr uint64_t kSeed120 = 120120;
constexpr int kGpuSweepGraphs = 200;

// The validation kernel's smallest bad index for a host input, uploaded where `here` runs.
int first_bad_of(const Here& here, const HostCoo& coo) {
    return validate_sorted_coo(here, DeviceCoo(here, coo));
}

// The RLE + scan route after 120's check, as the lesson's own route runs after it. The route's
// scratch outlives the conversion's last read of it, which the download waits for.
#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
CooToCsrResult sorted_coo_to_csr_rle_scan(const Here& here, const HostCoo& coo) {
    RleScanRoute route(here, coo.num_rows, static_cast<int>(coo.nnz()), copy_entry_arrays);
    return validate_then_convert(here, coo,
                                 [&](const DeviceCoo& d, DeviceCsr& csr) { route.launch(d, csr); });
}
#endif

bool equals_exactly(const HostCsr& got, const HostCsr& expected) {
    return got.num_rows == expected.num_rows && got.num_cols == expected.num_cols &&
           got.row_offsets == expected.row_offsets && got.col_idx == expected.col_idx &&
           got.values == expected.values;
}

// A conversion of a row-sorted input that keeps the contract, against the stable-sort CSR of
// `original`, the same entries in any order.
void require_converted_exactly(const CooToCsrResult& result, const HostCoo& original) {
    INFO(result.verdict.refusal);
    REQUIRE(result.converted());
    REQUIRE(result.verdict.first_bad == static_cast<int>(original.nnz()));
    REQUIRE(equals_exactly(result.csr, csr_from_coo_by_stable_sort(original)));
}

void require_refused(const CooToCsrResult& result, int first_bad, const std::string& message) {
    REQUIRE_FALSE(result.converted());
    REQUIRE(result.verdict.first_bad == first_bad);
    REQUIRE(result.verdict.refusal == message);
    REQUIRE(still_poisoned(result.csr));
}

// Inputs with no entries, or with no rows at all.
HostCoo no_entries() {
    HostCoo a;
    a.num_rows = 4;
    a.num_cols = 3;
    return a;
}

HostCoo with_duplicates() {
    return coo_of(2, 2, {0, 0, 0, 1, 1}, {1, 1, 1, 0, 0}, {7, 7, 8, 3, 4});
}

// The small named inputs: the card's, the gaps-and-duplicate one, duplicates, no entries, no rows.
std::vector<HostCoo> small_inputs() {
    return {card_example(), gaps_and_duplicate_example(), with_duplicates(), no_entries(),
            make_uniform_random(0, 0, 1)};
}

// The row-sorted input, and an id pushed out of range at a random entry: that entry, and no
// earlier one, is to blame. Returns the entry; `bad` is left with the broken copy.
int break_one_entry(const HostCoo& sorted, SplitMix64& rng, HostCoo& bad) {
    bad = sorted;
    const int k = static_cast<int>(rng.below(static_cast<uint32_t>(bad.nnz())));
    switch (rng.below(4)) {
        case 0:
            bad.rows[k] = -1;
            break;
        case 1:
            bad.rows[k] = bad.num_rows;
            break;
        case 2:
            bad.cols[k] = -1;
            break;
        default:
            bad.cols[k] = bad.num_cols;
            break;
    }
    return k;
}

// The inputs of the GPU sweeps, each row-sorted beside the original: the card's example (whose
// expected offsets are the card's, 0 2 3 5), the small named inputs, the real files, 200 random
// graphs, the hub and its transpose.
template <class Check>
void for_every_gpu_input(Check&& check) {
    REQUIRE(csr_from_coo_by_stable_sort(card_example()).row_offsets ==
            std::vector<int>{0, 2, 3, 5});
    for (const HostCoo& coo : small_inputs()) {
        CAPTURE(coo.num_rows, coo.nnz());
        check(coo, coo);
    }
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo raw = read_data_file(name);
        check(sorted_by_row(raw), raw);
    }
    INFO("seed " << kSeed120);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        const HostCoo raw = edge_case_graph(i, kSeed120);
        CAPTURE(i, raw.num_rows, raw.nnz());
        check(sorted_by_row(raw), raw);
    }
    const HostCoo star = make_star(100001, 0, 120);
    check(sorted_by_row(star), star);
    const HostCoo into_hub = transposed(star);
    check(sorted_by_row(into_hub), into_hub);
}

int first_descent(const HostCoo& coo) {
    return static_cast<int>(std::is_sorted_until(coo.rows.begin(), coo.rows.end()) -
                            coo.rows.begin());
}

}  // namespace

TEST_CASE("120: the card's example gives the card's offsets", "[120][emulation]") {
    const HostCoo card = card_example();
    for (uint64_t seed : {1u, 2u, 3u, 120u}) {
        CAPTURE(seed);
        const CooToCsrResult result = sorted_coo_to_csr(emulated(seed), card);
        REQUIRE(result.converted());
        CHECK(result.csr.row_offsets == std::vector<int>{0, 2, 3, 5});
        CHECK(result.csr.col_idx == card.cols);
        CHECK(result.csr.values == card.values);
        CHECK(row_boundary_cpu(card) == std::vector<int>{0, 2, 3, 5});
        CHECK(first_contract_violation(card) == 5);
    }
}

TEST_CASE("120: empty rows at the start, middle and end; duplicates; no entries; no rows",
          "[120][emulation]") {
    const ThreadOrder order = ThreadOrder::shuffled(7);
    const CooToCsrResult gaps =
        sorted_coo_to_csr(Here::emulated(order), gaps_and_duplicate_example());
    REQUIRE(gaps.converted());
    CHECK(gaps.csr.row_offsets == std::vector<int>{0, 0, 2, 2, 2, 5, 6, 6});
    const CooToCsrResult dup = sorted_coo_to_csr(Here::emulated(order), with_duplicates());
    REQUIRE(dup.converted());
    CHECK(dup.csr.row_offsets == std::vector<int>{0, 3, 5});
    CHECK(dup.csr.values == std::vector<float>{7, 7, 8, 3, 4});
    const CooToCsrResult empty = sorted_coo_to_csr(Here::emulated(order), no_entries());
    REQUIRE(empty.converted());
    CHECK(empty.csr.row_offsets == std::vector<int>{0, 0, 0, 0, 0});
    const CooToCsrResult nothing =
        sorted_coo_to_csr(Here::emulated(order), make_uniform_random(0, 0, 1));
    REQUIRE(nothing.converted());
    CHECK(nothing.csr.row_offsets == std::vector<int>{0});
    for (const HostCoo& coo : small_inputs()) {
        CAPTURE(coo.num_rows, coo.nnz());
        require_converted_exactly(sorted_coo_to_csr(Here::emulated(order), coo), coo);
        CHECK(row_boundary_cpu(coo) == csr_from_coo_by_stable_sort(coo).row_offsets);
        CHECK(first_contract_violation(coo) == static_cast<int>(coo.nnz()));
    }
}

TEST_CASE(
    "120: every way to break the contract is refused at the first bad entry, outputs "
    "untouched",
    "[120][emulation]") {
    for (const RefusalCase& c : refusal_cases()) {
        CAPTURE(c.what);
        CHECK(first_contract_violation(c.coo) == c.first_bad);
        for (uint64_t seed : {1u, 2u, 3u}) {
            CAPTURE(seed);
            CHECK(first_bad_of(emulated(seed), c.coo) == c.first_bad);
            require_refused(sorted_coo_to_csr(emulated(seed), c.coo), c.first_bad, c.message);
        }
    }
    for (const RefusalDemo& demo : refusal_demos()) {
        CAPTURE(demo.what);
        CHECK(first_contract_violation(demo.coo) == demo.first_bad);
        CHECK(first_bad_of(emulated(5), demo.coo) == demo.first_bad);
    }
}

TEST_CASE("120: the poison check notices a single written byte", "[120][emulation]") {
    const HostCsr clean = DeviceCsr(emulated(1), 3, 3, 5).download();
    REQUIRE(still_poisoned(clean));
    HostCsr offset = clean, column = clean, value = clean;
    offset.row_offsets[3] = 5;
    column.col_idx[0] = 0;
    value.values[4] = 5.0f;
    CHECK_FALSE(still_poisoned(offset));
    CHECK_FALSE(still_poisoned(column));
    CHECK_FALSE(still_poisoned(value));
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("120: the library routes refuse to run without a GPU", "[120][emulation]") {
    CHECK_THROWS_AS(sorted_coo_to_csr_rle_scan(emulated(1), card_example()), std::logic_error);
    CHECK_THROWS_AS(offsets_by_cusparse(emulated(1), card_example()), std::logic_error);
}
#else
using Catch::Matchers::Contains;

// Without the CUDA Toolkit the library routes are not built at all: the program says why it
// skipped their claims.
TEST_CASE("120: the library routes refuse to run without a GPU", "[120][emulation]") {
    const ProgramRun run = run_program("120_sorted_coo_to_csr_kernel", {});
    const std::string out = unwrapped(run.out);
    INFO(out);
    CHECK(run.exit_code == 0);
    const std::string why = ": skipped (needs a GPU: the build had no CUDA Toolkit)";
    CHECK_THAT(out, Contains("the card's example: the RLE + scan route (CUB) gives the same CSR as "
                             "the lower-bound route" + why));
    CHECK_THAT(out, Contains("the card's example: cusparseXcoo2csr gives the same row_offsets" +
                             why));
    CHECK_THAT(out, Contains(", 0 MISMATCH, "));
}
#endif

TEST_CASE("120: the real matrices, row-sorted, give the stable-sort CSR exactly",
          "[120][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo raw = read_data_file(name);
        const HostCoo coo = sorted_by_row(raw);
        require_converted_exactly(sorted_coo_to_csr(emulated(kSeed120), coo), raw);
        CHECK(row_boundary_cpu(coo) == csr_from_coo_by_stable_sort(raw).row_offsets);
        // In the file's own order the entries are refused wherever the rows first go down.
        const int descent = first_descent(raw);
        CHECK(first_bad_of(emulated(kSeed120), raw) == descent);
    }
}

TEST_CASE(
    "120: 1,200 random graphs: row-sorted, they give the stable-sort CSR exactly; spoiled, "
    "the validation names the first bad entry",
    "[120][emulation]") {
    INFO("seed " << kSeed120);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo raw = edge_case_graph(i, kSeed120);
        CAPTURE(i, raw.num_rows, raw.nnz());
        const ThreadOrder order = ThreadOrder::shuffled(mix_seed(kSeed120, i));
        const HostCoo sorted = sorted_by_row(raw);
        require_converted_exactly(sorted_coo_to_csr(Here::emulated(order), sorted), raw);
        REQUIRE(row_boundary_cpu(sorted) == csr_from_coo_by_stable_sort(raw).row_offsets);
        REQUIRE(first_contract_violation(sorted) == static_cast<int>(raw.nnz()));
        REQUIRE(first_contract_violation(raw) == first_descent(raw));
        REQUIRE(first_bad_of(Here::emulated(order), raw) == first_descent(raw));
        if (raw.nnz() == 0) continue;
        SplitMix64 rng(mix_seed(kSeed120, ~static_cast<uint64_t>(i)));
        HostCoo bad;
        const int k = break_one_entry(sorted, rng, bad);
        CAPTURE(k);
        REQUIRE(first_contract_violation(bad) == k);
        const CooToCsrResult result = sorted_coo_to_csr(Here::emulated(order), bad);
        REQUIRE_FALSE(result.converted());
        REQUIRE(result.verdict.first_bad == k);
        REQUIRE(result.verdict.refusal.rfind("entry " + std::to_string(k) + ": ", 0) == 0);
        REQUIRE(still_poisoned(result.csr));
    }
}

TEST_CASE("120: a hub with 10^5 entries in one row, and 10^5 rows of one entry",
          "[120][emulation][hub]") {
    const HostCoo star = make_star(100001, 0, 120);
    const CooToCsrResult hub = sorted_coo_to_csr(emulated(1), sorted_by_row(star));
    require_converted_exactly(hub, star);
    CHECK(hub.csr.row_offsets[1] == 100000);
    const HostCoo into_hub = transposed(star);
    const CooToCsrResult spread = sorted_coo_to_csr(emulated(2), sorted_by_row(into_hub));
    require_converted_exactly(spread, into_hub);
    CHECK(spread.csr.row_offsets[1] == 0);  // the hub's own row is empty
}

TEST_CASE("120: GPU validation names the first bad entry", "[120][gpu]") {
    for (const RefusalCase& c : refusal_cases()) {
        CAPTURE(c.what);
        CHECK(first_bad_of(Here::gpu(), c.coo) == c.first_bad);
    }
    for (const RefusalDemo& demo : refusal_demos()) {
        CAPTURE(demo.what);
        CHECK(first_bad_of(Here::gpu(), demo.coo) == demo.first_bad);
    }
    for (const HostCoo& coo : small_inputs())
        CHECK(first_bad_of(Here::gpu(), coo) == static_cast<int>(coo.nnz()));
    INFO("seed " << kSeed120);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        const HostCoo raw = edge_case_graph(i, kSeed120);
        CAPTURE(i, raw.num_rows, raw.nnz());
        REQUIRE(first_bad_of(Here::gpu(), raw) == first_descent(raw));
        REQUIRE(first_bad_of(Here::gpu(), sorted_by_row(raw)) == static_cast<int>(raw.nnz()));
        if (raw.nnz() == 0) continue;
        SplitMix64 rng(mix_seed(kSeed120, ~static_cast<uint64_t>(i)));
        HostCoo bad;
        const int k = break_one_entry(sorted_by_row(raw), rng, bad);
        REQUIRE(first_bad_of(Here::gpu(), bad) == k);
    }
    // Bad entries all over a large input: the smallest index must win the race of atomicMins.
    HostCoo star = sorted_by_row(make_star(100001, 0, 120));
    for (size_t k = 70000; k < star.nnz(); k += 3) star.cols[k] = -1;
    star.rows[54321] = star.num_rows;
    CHECK(first_bad_of(Here::gpu(), star) == 54321);
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("120: GPU refusals leave every output byte untouched", "[120][gpu]") {
    for (const RefusalCase& c : refusal_cases()) {
        CAPTURE(c.what);
        require_refused(sorted_coo_to_csr(Here::gpu(), c.coo), c.first_bad, c.message);
        require_refused(sorted_coo_to_csr_rle_scan(Here::gpu(), c.coo), c.first_bad, c.message);
    }
}
#endif

TEST_CASE(
    "120: GPU lower-bound route on the small inputs, the real files, 200 random graphs "
    "and the hubs",
    "[120][gpu]") {
    for_every_gpu_input([](const HostCoo& sorted, const HostCoo& original) {
        require_converted_exactly(sorted_coo_to_csr(Here::gpu(), sorted), original);
    });
}

#ifdef __CUDACC__  // the library routes, which a build without the CUDA Toolkit leaves out
TEST_CASE("120: GPU RLE + scan route on the same inputs", "[120][gpu]") {
    for_every_gpu_input([](const HostCoo& sorted, const HostCoo& original) {
        require_converted_exactly(sorted_coo_to_csr_rle_scan(Here::gpu(), sorted), original);
    });
}

TEST_CASE("120: cuSPARSE's coo2csr gives the stable-sort offsets on the same inputs",
          "[120][gpu]") {
    for_every_gpu_input([](const HostCoo& sorted, const HostCoo& original) {
        REQUIRE(offsets_by_cusparse(Here::gpu(), sorted) ==
                csr_from_coo_by_stable_sort(original).row_offsets);
    });
}
#endif
