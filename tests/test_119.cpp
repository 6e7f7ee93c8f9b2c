// Tests of 119: sorted COO to CSR on the CPU by one lower-bound search per row boundary, with
// count-and-scan as its cross-check, against the stable-sort CSR of common/ and against the card.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>
#include "../ch21_csr/119_sorted_coo_to_csr_cpu_baseline.cpp"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "sorted_coo_refusals.h"

namespace {

constexpr uint64_t kSeed119 = 119119;

// Converts a row-sorted input that keeps the contract and checks it against the stable-sort
// CSR of `original` (the same entries, in any order): the conversion keeps the order of the
// entries, so the arrays must be equal exactly, not only as row multisets.
void require_exact_csr(const HostCoo& sorted, const HostCoo& original) {
    HostCsr csr;
    const ContractVerdict verdict = sorted_coo_to_csr_cpu(sorted, csr);
    INFO(verdict.refusal);
    REQUIRE(verdict.holds());
    REQUIRE(verdict.first_bad == static_cast<int>(sorted.nnz()));
    const HostCsr expected = csr_from_coo_by_stable_sort(original);
    REQUIRE(csr.num_rows == expected.num_rows);
    REQUIRE(csr.num_cols == expected.num_cols);
    REQUIRE(csr.row_offsets == expected.row_offsets);
    REQUIRE(csr.col_idx == expected.col_idx);
    REQUIRE(csr.values == expected.values);
    REQUIRE(scan_degrees(count_degrees(sorted)) == expected.row_offsets);
}

// An output filled with -1, which no conversion would write, so that any write shows.
HostCsr sentinel_csr(const HostCoo& coo) {
    HostCsr c;
    c.num_rows = c.num_cols = -1;
    c.row_offsets.assign(static_cast<size_t>(std::max(coo.num_rows, 0)) + 1, -1);
    c.col_idx.assign(coo.nnz(), -1);
    c.values.assign(coo.nnz(), -1.0f);
    return c;
}

bool same_csr(const HostCsr& a, const HostCsr& b) {
    return a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.row_offsets == b.row_offsets &&
           a.col_idx == b.col_idx && a.values == b.values;
}

}  // namespace

TEST_CASE("119: the card's example gives the card's offsets by both routes", "[119]") {
    const HostCoo card = card_example();
    HostCsr csr;
    REQUIRE(sorted_coo_to_csr_cpu(card, csr).holds());
    CHECK(csr.row_offsets == std::vector<int>{0, 2, 3, 5});
    CHECK(scan_degrees(count_degrees(card)) == std::vector<int>{0, 2, 3, 5});
    CHECK(csr.col_idx == card.cols);
    CHECK(csr.values == card.values);
    require_exact_csr(card, card);
}

TEST_CASE("119: empty rows at the start, middle and end repeat their offsets", "[119]") {
    const HostCoo gaps = gaps_and_duplicate_example();
    HostCsr csr;
    REQUIRE(sorted_coo_to_csr_cpu(gaps, csr).holds());
    CHECK(csr.row_offsets == std::vector<int>{0, 0, 2, 2, 2, 5, 6, 6});
    CHECK(row_lengths(csr) == std::vector<int>{0, 2, 0, 0, 3, 1, 0});
    require_exact_csr(gaps, gaps);

    HostCoo only_middle;  // 5 rows, entries only in row 2
    only_middle.num_rows = only_middle.num_cols = 5;
    only_middle.rows = {2, 2};
    only_middle.cols = {4, 0};
    only_middle.values = {1, 2};
    HostCsr middle;
    REQUIRE(sorted_coo_to_csr_cpu(only_middle, middle).holds());
    CHECK(middle.row_offsets == std::vector<int>{0, 0, 0, 2, 2, 2});
    require_exact_csr(only_middle, only_middle);
}

TEST_CASE("119: duplicate coordinates are kept, in their order", "[119]") {
    HostCoo dup = coo_of(2, 2, {0, 0, 0, 1, 1}, {1, 1, 1, 0, 0}, {7, 7, 8, 3, 4});
    HostCsr csr;
    REQUIRE(sorted_coo_to_csr_cpu(dup, csr).holds());
    CHECK(csr.nnz() == 5);
    CHECK(csr.row_offsets == std::vector<int>{0, 3, 5});
    CHECK(csr.col_idx == dup.cols);
    CHECK(csr.values == dup.values);
    require_exact_csr(dup, dup);
}

TEST_CASE("119: no entries, and no rows", "[119]") {
    HostCoo empty;
    empty.num_rows = 4;
    empty.num_cols = 3;
    HostCsr csr;
    REQUIRE(sorted_coo_to_csr_cpu(empty, csr).holds());
    CHECK(csr.row_offsets == std::vector<int>{0, 0, 0, 0, 0});
    CHECK(csr.col_idx.empty());
    CHECK(scan_degrees(count_degrees(empty)) == csr.row_offsets);

    const HostCoo nothing = make_uniform_random(0, 0, 1);
    HostCsr none;
    REQUIRE(sorted_coo_to_csr_cpu(nothing, none).holds());
    CHECK(none.row_offsets == std::vector<int>{0});
    CHECK(scan_degrees(count_degrees(nothing)) == std::vector<int>{0});
}

TEST_CASE(
    "119: every way to break the contract is refused at the first bad entry, output "
    "untouched",
    "[119]") {
    for (const RefusalCase& c : refusal_cases()) {
        CAPTURE(c.what);
        CHECK(first_contract_violation(c.coo) == c.first_bad);
        CHECK(contract_verdict(c.coo, c.first_bad).refusal == c.message);
        HostCsr csr = sentinel_csr(c.coo);
        const HostCsr before = csr;
        const ContractVerdict verdict = sorted_coo_to_csr_cpu(c.coo, csr);
        CHECK_FALSE(verdict.holds());
        CHECK(verdict.first_bad == c.first_bad);
        CHECK(verdict.refusal == c.message);
        CHECK(same_csr(csr, before));
    }
}

TEST_CASE("119: the program's refusal demos are refused where they say", "[119]") {
    for (const RefusalDemo& demo : refusal_demos()) {
        CAPTURE(demo.what);
        CHECK(first_contract_violation(demo.coo) == demo.first_bad);
    }
}

TEST_CASE("119: the real matrices, row-sorted, give the stable-sort CSR exactly", "[119][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo raw = read_data_file(name);
        require_exact_csr(sorted_by_row(raw), raw);
    }
}

TEST_CASE("119: the data folder's facts show in the offsets", "[119][data]") {
    auto lengths_of = [](const std::string& name) {
        HostCsr csr;
        REQUIRE(sorted_coo_to_csr_cpu(sorted_by_row(read_data_file(name)), csr).holds());
        return row_lengths(csr);
    };
    const std::vector<int> netscience = lengths_of("netscience.mtx");
    CHECK(std::count(netscience.begin(), netscience.end(), 0) == 128);  // its isolated vertices
    const std::vector<int> email = lengths_of("email-Eu-core.csv");
    CHECK(*std::max_element(email.begin(), email.end()) == 334);
    CHECK(std::count(email.begin(), email.end(), 0) == 137);
    const std::vector<int> jagmesh = lengths_of("jagmesh7.mtx");
    CHECK(*std::min_element(jagmesh.begin(), jagmesh.end()) == 4);
    CHECK(*std::max_element(jagmesh.begin(), jagmesh.end()) == 7);
}

TEST_CASE("119: 1,200 random graphs, row-sorted, give the stable-sort CSR exactly", "[119]") {
    INFO("seed " << kSeed119);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo raw = edge_case_graph(i, kSeed119);
        CAPTURE(i, raw.num_rows, raw.nnz());
        require_exact_csr(sorted_by_row(raw), raw);
    }
}

TEST_CASE("119: on 1,200 random graphs the check names the first bad entry", "[119]") {
    INFO("seed " << kSeed119);
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo raw = edge_case_graph(i, kSeed119);
        CAPTURE(i, raw.num_rows, raw.nnz());
        // In arrival order, the first entry whose row is below the one before it.
        const int first_descent = static_cast<int>(
            std::is_sorted_until(raw.rows.begin(), raw.rows.end()) - raw.rows.begin());
        REQUIRE(first_contract_violation(raw) == first_descent);
        if (raw.nnz() == 0) continue;

        // One id pushed out of range at a random entry of the sorted input: that entry, and no
        // earlier one, is to blame.
        SplitMix64 rng(mix_seed(kSeed119, static_cast<uint64_t>(i)));
        HostCoo bad = sorted_by_row(raw);
        const int k = static_cast<int>(rng.below(static_cast<uint32_t>(bad.nnz())));
        const int kind = static_cast<int>(rng.below(4));
        if (kind == 0) bad.rows[k] = -1;
        if (kind == 1) bad.rows[k] = bad.num_rows;
        if (kind == 2) bad.cols[k] = -1;
        if (kind == 3) bad.cols[k] = bad.num_cols;
        CAPTURE(k, kind);
        HostCsr csr = sentinel_csr(bad);
        const HostCsr before = csr;
        const ContractVerdict verdict = sorted_coo_to_csr_cpu(bad, csr);
        REQUIRE(verdict.first_bad == k);
        REQUIRE(verdict.refusal.rfind(
                    "entry " + std::to_string(k) + ": " + (kind < 2 ? "row " : "column "), 0) == 0);
        REQUIRE(same_csr(csr, before));
    }
}

TEST_CASE("119: a hub with 10^5 entries in one row, and 10^5 rows of one entry", "[119][hub]") {
    const HostCoo star = make_star(100001, 0, 119);
    require_exact_csr(sorted_by_row(star), star);
    HostCsr csr;
    REQUIRE(sorted_coo_to_csr_cpu(sorted_by_row(star), csr).holds());
    CHECK(csr.row_offsets[1] == 100000);
    CHECK(csr.row_offsets.back() == 100000);

    const HostCoo into_hub = transposed(star);
    require_exact_csr(sorted_by_row(into_hub), into_hub);
    REQUIRE(sorted_coo_to_csr_cpu(sorted_by_row(into_hub), csr).holds());
    CHECK(csr.row_offsets[0] == 0);
    CHECK(csr.row_offsets[1] == 0);  // the hub's own row is empty
    for (int r = 1; r <= 100000; ++r) REQUIRE(csr.row_offsets[r + 1] == r);
}
