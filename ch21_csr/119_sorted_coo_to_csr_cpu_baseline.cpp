// Sorted COO to CSR, CPU baseline: when the COO entries are already sorted by row, CSR needs
// no sort, no histogram and no scatter. The columns and values are already in CSR order and are
// copied as they are; only row_offsets must be found. Row r begins at the first entry whose row
// id is not below r, so row_offsets[r] is a lower-bound search for r in the sorted row ids, one
// independent search per boundary r = 0..num_rows (120 gives each search its own GPU thread).
// Empty rows show as repeated offsets by themselves; duplicate coordinates stay, as two entries.
//
// Build and run:  make 119_sorted_coo_to_csr_cpu_baseline
//                 build/119_sorted_coo_to_csr_cpu_baseline
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "sorted_coo_contract.h"

// The baseline: boundary r is the lower bound of r among the sorted row ids. Valid only on an
// input that keeps the contract below, since std::lower_bound assumes a sorted range;
// convert_sorted_coo checks the contract first.
std::vector<int> row_offsets_by_search(const HostCoo& coo) {
    std::vector<int> row_offsets(static_cast<size_t>(coo.num_rows) + 1);
    for (int r = 0; r <= coo.num_rows; ++r)
        row_offsets[r] = static_cast<int>(std::lower_bound(coo.rows.begin(), coo.rows.end(), r) -
                                          coo.rows.begin());
    return row_offsets;
}

// The conversion's contract: row ids never decrease from one entry to the next, every row id is
// in [0, num_rows) and every column id in [0, num_cols). Entry k breaks it if its own ids are out
// of range or its row is below the row of entry k - 1. The reasons are named in that order.
size_t first_contract_violation(const HostCoo& coo) {
    for (size_t k = 0; k < coo.nnz(); ++k) {
        const int row = coo.rows[k], col = coo.cols[k];
        if (row < 0 || row >= coo.num_rows || col < 0 || col >= coo.num_cols ||
            (k > 0 && coo.rows[k - 1] > row))
            return k;
    }
    return coo.nnz();
}

// The words in which entry k is refused, the same as 120's (sorted_coo_contract.h).
std::string contract_violation_message(const HostCoo& coo, size_t k) {
    return describe_bad_entry(static_cast<int>(k), k > 0 ? coo.rows[k - 1] : 0, coo.rows[k],
                              coo.cols[k], coo.num_rows, coo.num_cols);
}

struct ContractVerdict {
    size_t first_bad = 0;  // nnz when every entry keeps the contract
    std::string reason;    // empty when every entry keeps the contract
    bool holds() const { return reason.empty(); }
};

ContractVerdict check_contract(const HostCoo& coo) {
    ContractVerdict v;
    v.first_bad = first_contract_violation(coo);
    if (v.first_bad < coo.nnz()) v.reason = contract_violation_message(coo, v.first_bad);
    return v;
}

// The cross-check: count each row's entries, then an exclusive scan of the counts. It does not
// rely on the order of the entries at all, only on the ids being in range.
std::vector<int> row_entry_counts(const HostCoo& coo) {
    std::vector<int> count(coo.num_rows, 0);
    for (int r : coo.rows) ++count[r];
    return count;
}

std::vector<int> row_offsets_by_counting(const HostCoo& coo) {
    const std::vector<int> count = row_entry_counts(coo);
    std::vector<int> row_offsets(count.size() + 1, 0);
    for (size_t r = 0; r < count.size(); ++r) row_offsets[r + 1] = row_offsets[r] + count[r];
    return row_offsets;
}

// Checks the contract first and converts only if it holds: a refused input leaves `csr` exactly
// as the caller handed it over, so no half-built CSR can be mistaken for a result.
ContractVerdict convert_sorted_coo(const HostCoo& coo, HostCsr& csr) {
    const ContractVerdict verdict = check_contract(coo);
    if (!verdict.holds()) return verdict;
    csr.num_rows = coo.num_rows;
    csr.num_cols = coo.num_cols;
    csr.row_offsets = row_offsets_by_search(coo);
    csr.col_idx = coo.cols;
    csr.values = coo.values;
    return verdict;
}

inline void show_input(const std::string& name, const HostCoo& coo) {
    std::printf("--- %s ---\n", name.c_str());
    std::printf("%s, %s, %s, sorted by row:\n", counted(coo.num_rows, "row").c_str(),
                counted(coo.num_cols, "column").c_str(),
                counted(coo.nnz(), "entry", "entries").c_str());
    print_array("rows", coo.rows, 11);
    print_array("cols", coo.cols, 11);
    print_array("values", coo.values, 11);
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

inline std::vector<int> show_counting(const HostCoo& coo) {
    std::printf("route 2, count the entries of each row, then an exclusive scan of the counts:\n");
    print_array("count", row_entry_counts(coo), 11);
    const std::vector<int> by_counting = row_offsets_by_counting(coo);
    print_array("row_offsets", by_counting, 11);
    std::printf("\n");
    return by_counting;
}

// The arrays, then each row's slice of them.
inline void show_csr(const HostCsr& csr) {
    print_array("row_offsets", csr.row_offsets, 11);
    print_array("col_idx", csr.col_idx, 11);
    print_array("values", csr.values, 11);
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

// Converts one example by both routes, prints every step, and states the claims that hold for
// any input; returns the CSR for the example's own claims.
inline HostCsr check_conversion(const std::string& name, const HostCoo& coo, SelfCheck& check) {
    show_input(name, coo);
    HostCsr csr;
    const ContractVerdict verdict = convert_sorted_coo(coo, csr);
    std::printf("contract check: rows never decrease, rows in [0, %d), columns in [0, %d): %s\n\n",
                coo.num_rows, coo.num_cols, verdict.holds() ? "kept" : verdict.reason.c_str());
    if (!verdict.holds()) {
        check.claim(name + ": the contract check accepts it", false);
        return csr;
    }
    show_searches(coo, csr.row_offsets);
    const std::vector<int> by_counting = show_counting(coo);
    std::printf("CSR (col_idx and values are the input's cols and values, copied as they are):\n");
    show_csr(csr);
    check.claim(name + ": the contract check accepts it", true);
    check.claim(name + ": the search route and the count-and-scan route give the same row_offsets",
                csr.row_offsets == by_counting);
    check.claim(name + ": col_idx and values are the input's cols and values, unchanged",
                csr.col_idx == coo.cols && csr.values == coo.values);
    return csr;
}

inline void check_card_example(SelfCheck& check) {
    const HostCsr csr = check_conversion("the card's example", card_example(), check);
    check.claim("the card's example: row_offsets = [ 0 2 3 5 ], as on the card",
                csr.row_offsets == kCardRowOffsets);
}

inline void check_gaps_example(SelfCheck& check) {
    const HostCoo gaps = gaps_and_duplicate_example();
    const HostCsr csr =
        check_conversion("empty rows 0, 2, 3, 6 and a duplicate (4, 3)", gaps, check);
    check.claim(
        "the rows with no entries (0 at the start, 2 and 3 in the middle, 6 at the end) "
        "are exactly the rows whose offsets repeat",
        rows_without_entries(gaps) == kGapsEmptyRows &&
            rows_with_repeated_offsets(csr.row_offsets) == kGapsEmptyRows);
    check.claim("the duplicate (4, 3) is kept: nnz stays 6 and row 4 holds both copies, 40 and 50",
                csr.nnz() == gaps.nnz() && csr.nnz() == 6 &&
                    values_at(csr, 4, 3) == std::vector<float>{40, 50});
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
        const ContractVerdict verdict = convert_sorted_coo(demo.coo, csr);
        check.claim(demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                        ", the first bad one, with \"" + verdict.reason +
                        "\"; the output untouched",
                    !verdict.holds() && verdict.first_bad == demo.first_bad &&
                        csr.row_offsets == before.row_offsets && csr.col_idx == before.col_idx &&
                        csr.values == before.values);
    }
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    start_cpu_program(
        argc, argv,
        ProgramDescription(
            "119 CPU baseline: row-sorted COO -> CSR, one lower-bound search per "
            "row boundary",
            {"make 119_sorted_coo_to_csr_cpu_baseline", "build/119_sorted_coo_to_csr_cpu_baseline"})
            .with_book_input("the card's example, one with empty rows and a duplicate, three bad "
                             "inputs")
            .without_inputs());
    SelfCheck check;
    check_card_example(check);
    check_gaps_example(check);
    check_refusals(check);
    return check.finish();
}
#endif
