// What 119 to 122 share about row-sorted COO: the contract, the wording of a refusal, and the
// example inputs, good and bad.
#pragma once
#include <string>
#include <vector>
#include "../common/binary_search.h"  // also the CUDA qualifiers, for plain C++
#include "../common/sparse_host.h"

// The contract, which every check asks of each entry: row and column in range, and the row not
// below previous_row (null for the first entry). The first entry that breaks it is refused.
__host__ __device__ inline bool breaks_contract(int row, int col, const int* previous_row,
                                                int num_rows, int num_cols) {
    return row < 0 || row >= num_rows || col < 0 || col >= num_cols ||
           (previous_row != nullptr && *previous_row > row);
}

// The first entry that breaks the contract (nnz when none does) and the reason.
struct ContractVerdict {
    int first_bad = 0;
    std::string refusal;  // empty when every entry keeps the contract
    bool holds() const { return refusal.empty(); }
};

// Why entry k is refused, in the order the reasons are checked; for chunked storage, `place`
// says where k lies and `previous_place` where the entry before it lies, if elsewhere.
inline std::string describe_bad_entry(int k, int previous_row, int row, int col, int num_rows,
                                      int num_cols, const std::string& place = "",
                                      const std::string& previous_place = "") {
    const std::string entry = "entry " + std::to_string(k) + place + ": ";
    const auto out_of_range = [&](const std::string& id, int value, int bound) {
        return entry + id + " " + std::to_string(value) + " is not in [0, " +
               std::to_string(bound) + ")";
    };
    if (row < 0 || row >= num_rows) return out_of_range("row", row, num_rows);
    if (col < 0 || col >= num_cols) return out_of_range("column", col, num_cols);
    return entry + "row " + std::to_string(row) + " comes after row " +
           std::to_string(previous_row) + previous_place + " (rows must be non-decreasing)";
}

// The verdict on an input whose first bad entry is `first_bad` (nnz for none).
inline ContractVerdict contract_verdict(const HostCoo& coo, int first_bad) {
    ContractVerdict verdict{first_bad, ""};
    if (static_cast<size_t>(first_bad) < coo.nnz())
        verdict.refusal = describe_bad_entry(first_bad, first_bad > 0 ? coo.rows[first_bad - 1] : 0,
                                             coo.rows[first_bad], coo.cols[first_bad], coo.num_rows,
                                             coo.num_cols);
    return verdict;
}

// The card's rows 0 0 1 2 2 and offsets; the columns and weights are the suite's own.
inline HostCoo card_example() {
    return coo_of(3, 3, {0, 0, 1, 2, 2}, {0, 2, 1, 0, 2}, {1, 2, 3, 4, 5});
}
const std::vector<int> kCardRowOffsets = {0, 2, 3, 5};

// Empty rows at the start, middle and end, and (4, 3) stored twice with different weights.
inline HostCoo gaps_and_duplicate_example() {
    return coo_of(7, 5, {1, 1, 4, 4, 4, 5}, {0, 3, 1, 3, 3, 2}, {10, 20, 30, 40, 50, 60});
}
const std::vector<int> kGapsEmptyRows = {0, 2, 3, 6};

// An input, named as its claims name it; the examples make claims of their own.
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

// Each has two bad entries (two descents; rows 3 and 5; columns 7 and -1): the first is refused.
inline std::vector<RefusalDemo> refusal_demos() {
    const HostCoo c = card_example();
    return {{"unsorted rows [ 0 2 1 2 0 ]", coo_of(3, 3, {0, 2, 1, 2, 0}, c.cols, c.values), 2},
            {"rows [ 0 0 1 3 5 ] with 3 rows", coo_of(3, 3, {0, 0, 1, 3, 5}, c.cols, c.values), 3},
            {"cols [ 0 7 1 0 -1 ] with 3 columns", coo_of(3, 3, c.rows, {0, 7, 1, 0, -1}, c.values),
             1}};
}
