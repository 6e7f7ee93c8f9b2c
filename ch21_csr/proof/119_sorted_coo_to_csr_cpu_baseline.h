// What 119 prints and checks around its lesson (119_sorted_coo_to_csr_cpu_baseline.cpp): where
// each boundary's search lands, the count-and-scan cross-check, the CSR, and the refusals.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../sorted_coo_contract.h"

inline ProgramDescription sorted_coo_to_csr_program() {
    return ProgramDescription(
               "119 (21.3) CPU baseline: row-sorted COO -> CSR, one lower-bound search per row "
               "boundary",
               {"make 119_sorted_coo_to_csr_cpu_baseline",
                "build/119_sorted_coo_to_csr_cpu_baseline"})
        .with_book_input(
            "the card's example, one with empty rows and a duplicate, three bad inputs")
        .without_inputs();
}

// The contract check's verdict, printed and claimed; the rest of the conversion is shown only
// for an input that keeps the contract.
inline bool check_contract_kept(const SortedCooInput& input, const ContractVerdict& verdict,
                                SelfCheck& check) {
    std::printf("contract check: rows never decrease, rows in [0, %d), columns in [0, %d): %s\n",
                input.coo.num_rows, input.coo.num_cols,
                verdict.holds() ? "kept" : verdict.refusal.c_str());
    const bool kept = check.claim(input.name + ": the contract check accepts it", verdict.holds());
    std::printf("\n");
    return kept;
}

// Where each boundary's search stops, and what a repeated offset says about the row before it.
inline void show_searches(const HostCoo& coo, const std::vector<int>& row_offsets) {
    std::printf(
        "route 1, one lower-bound search per boundary r = 0..%d (the first entry whose "
        "row is not below r):\n",
        coo.num_rows);
    for (int r = 0; r <= coo.num_rows; ++r) {
        const int k = row_offsets[r];
        const std::string landing = static_cast<size_t>(k) == coo.nnz()
                                        ? "runs off the end (no row >= " + std::to_string(r) + ")"
                                        : "lands on entry " + std::to_string(k) + " (row " +
                                              std::to_string(coo.rows[k]) + ")";
        const std::string empty_row = r > 0 && row_offsets[r - 1] == k
                                          ? ", as for r = " + std::to_string(r - 1) + ": row " +
                                                std::to_string(r - 1) + " is empty"
                                          : "";
        std::printf("  r = %d: %s -> row_offsets[%d] = %d%s\n", r, landing.c_str(), r, k,
                    empty_row.c_str());
    }
}

inline void show_counting(const HostCoo& coo, const std::vector<int>& by_counting) {
    std::printf("route 2, count the entries of each row, then an exclusive scan of the counts:\n");
    print_array("count", row_entry_counts(coo), 11);
    print_array("row_offsets", by_counting, 11);
    std::printf("\n");
}

// The arrays, then each row's slice of them.
inline void show_csr_with_rows(const HostCsr& csr) {
    print_csr("CSR (col_idx and weights are the input's cols and weights, copied as they are):", csr);
    std::printf("row r owns the entries [row_offsets[r], row_offsets[r + 1]):\n");
    for (int r = 0; r < csr.num_rows; ++r) {
        const int begin = csr.row_offsets[r], end = csr.row_offsets[r + 1];
        std::string entries = begin == end ? "empty" : "";
        for (int k = begin; k < end; ++k) {
            char entry[48];
            std::snprintf(entry, sizeof entry, "%s(col %d, %g)", k == begin ? "" : " ",
                          csr.col_idx[k], static_cast<double>(csr.values[k]));
            entries += entry;
        }
        std::printf("  row %d: [%d,%d) %s\n", r, begin, end, entries.c_str());
    }
    std::printf("\n");
}

// The claims that hold for any input that keeps the contract, then the example's own.
inline void check_conversion(const SortedCooInput& input, const HostCsr& csr,
                             const std::vector<int>& by_counting, SelfCheck& check) {
    check.claim(
        input.name + ": the search route and the count-and-scan route give the same row_offsets",
        csr.row_offsets == by_counting);
    check.claim(input.name + ": col_idx and weights are the input's cols and weights, unchanged",
                csr.col_idx == input.coo.cols && csr.values == input.coo.values);
    check_example_facts(input, csr, check);
}

inline void check_refusals(SelfCheck& check) {
    std::printf("--- inputs that break the contract are refused, and nothing is written ---\n");
    std::printf("(each output array is filled with -1 first, so that any write would show)\n\n");
    for (const RefusalDemo& demo : refusal_demos()) {
        HostCsr csr;
        csr.row_offsets.assign(static_cast<size_t>(demo.coo.num_rows) + 1, -1);
        csr.col_idx.assign(demo.coo.nnz(), -1);
        csr.values.assign(demo.coo.nnz(), -1.0f);
        const HostCsr before = csr;
        const ContractVerdict verdict = sorted_coo_to_csr_cpu(demo.coo, csr);
        check.claim(demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                        ", the first bad one, with \"" + verdict.refusal +
                        "\"; the output untouched",
                    !verdict.holds() && verdict.first_bad == demo.first_bad &&
                        csr.row_offsets == before.row_offsets && csr.col_idx == before.col_idx &&
                        csr.values == before.values);
    }
}
