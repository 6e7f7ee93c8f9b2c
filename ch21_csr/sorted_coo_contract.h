// What 119 to 122 share about row-sorted COO: the contract and the one wording in which an entry
// that breaks it is refused, and the example inputs (the card's, one with empty rows and a
// duplicate, and inputs that break the contract).
#pragma once
#include <string>
#include <vector>
#include "../common/binary_search.h"  // also the CUDA qualifiers, for plain C++
#include "../common/sparse_host.h"

// The contract, entry by entry: a row in [0, num_rows), a column in [0, num_cols), and a row not
// below the row of the entry before it (previous_row; null for the first entry of all). Every
// check of the contract, the CPU's and the kernels', asks this of each entry; the entry that
// breaks it first is the one refused.
__host__ __device__ inline bool breaks_contract(int row, int col, const int* previous_row,
                                                int num_rows, int num_cols) {
    return row < 0 || row >= num_rows || col < 0 || col >= num_cols ||
           (previous_row != nullptr && *previous_row > row);
}

// What a check of the contract found: the first entry that breaks it (nnz when none does) and,
// for a refusal, the reason.
struct ContractVerdict {
    int first_bad = 0;
    std::string refusal;  // empty when every entry keeps the contract
    bool holds() const { return refusal.empty(); }
};

// The account of a refused entry k, from the values that the check looked at (previous_row is
// not read for entry 0), in the order the reasons are checked. Where the entries are stored in
// pieces, `place` says where entry k lies, and `previous_place` where the entry before it lies
// when that is another piece; both are empty for an input in one piece.
inline std::string describe_bad_entry(int k, int previous_row, int row, int col, int num_rows,
                                      int num_cols, const std::string& place = "",
                                      const std::string& previous_place = "") {
    const std::string entry = "entry " + std::to_string(k) + place + ": ";
    if (row < 0 || row >= num_rows)
        return entry + "row " + std::to_string(row) + " is not in [0, " + std::to_string(num_rows) +
               ")";
    if (col < 0 || col >= num_cols)
        return entry + "column " + std::to_string(col) + " is not in [0, " +
               std::to_string(num_cols) + ")";
    return entry + "row " + std::to_string(row) + " comes after row " +
           std::to_string(previous_row) + previous_place + " (rows must be non-decreasing)";
}

// The verdict on an input whose first bad entry is `first_bad` (nnz when there is none), worded
// from the input itself.
inline ContractVerdict contract_verdict(const HostCoo& coo, int first_bad) {
    ContractVerdict verdict;
    verdict.first_bad = first_bad;
    if (static_cast<size_t>(first_bad) < coo.nnz())
        verdict.refusal = describe_bad_entry(first_bad, first_bad > 0 ? coo.rows[first_bad - 1] : 0,
                                             coo.rows[first_bad], coo.cols[first_bad], coo.num_rows,
                                             coo.num_cols);
    return verdict;
}

// The card's example: rows 0 0 1 2 2. The card gives only the rows and the offsets; the columns
// and weights are the suite's own.
inline HostCoo card_example() {
    return coo_of(3, 3, {0, 0, 1, 2, 2}, {0, 2, 1, 0, 2}, {1, 2, 3, 4, 5});
}
const std::vector<int> kCardRowOffsets = {0, 2, 3, 5};

// Empty rows at the start (0), in the middle (2 and 3) and at the end (6), and the coordinate
// (4, 3) stored twice with different weights.
inline HostCoo gaps_and_duplicate_example() {
    return coo_of(7, 5, {1, 1, 4, 4, 4, 5}, {0, 3, 1, 3, 3, 2}, {10, 20, 30, 40, 50, 60});
}
const std::vector<int> kGapsEmptyRows = {0, 2, 3, 6};

// An input to convert, named as the claims about it name it. The examples that 119, 120 and 122
// convert when they are given no input make claims of their own (check_entries_and_examples).
struct SortedCooInput {
    enum Example { card, gaps, none };
    std::string name;
    HostCoo coo;
    Example example = none;
};

inline std::vector<SortedCooInput> sorted_coo_examples() {
    return {{"the card's example", card_example(), SortedCooInput::card},
            {"empty rows 0, 2, 3, 6 and a duplicate (4, 3)", gaps_and_duplicate_example(),
             SortedCooInput::gaps}};
}

// Inputs that break the contract, each refused at a known first entry.
struct RefusalDemo {
    std::string what;
    HostCoo coo;
    int first_bad;
};

inline std::vector<RefusalDemo> refusal_demos() {
    std::vector<RefusalDemo> demos;
    HostCoo unsorted = card_example();
    unsorted.rows = {0, 2, 1, 2, 0};  // two descents, at entries 2 and 4
    demos.push_back({"unsorted rows [ 0 2 1 2 0 ]", unsorted, 2});
    HostCoo row_out = card_example();
    row_out.rows = {0, 0, 1, 3, 5};  // 3 and 5 are both past the last row
    demos.push_back({"rows [ 0 0 1 3 5 ] with 3 rows", row_out, 3});
    HostCoo col_out = card_example();
    col_out.cols = {0, 7, 1, 0, -1};  // 7 too large, -1 negative
    demos.push_back({"cols [ 0 7 1 0 -1 ] with 3 columns", col_out, 1});
    return demos;
}
