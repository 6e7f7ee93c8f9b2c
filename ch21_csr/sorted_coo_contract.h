// What 119 and 120 share about row-sorted COO: the contract's words of refusal, the example
// inputs (the card's, one with empty rows and a duplicate, and inputs that break the contract),
// and the small questions that their printouts ask of a conversion.
#pragma once
#include <string>
#include <vector>
#include "../common/sparse_host.h"

// The account of a refused entry k, from the values that the check looked at (previous_row is
// not read for entry 0), in the order the reasons are checked.
inline std::string describe_bad_entry(int k, int previous_row, int row, int col, int num_rows,
                                      int num_cols) {
    const std::string entry = "entry " + std::to_string(k) + ": ";
    if (row < 0 || row >= num_rows)
        return entry + "row " + std::to_string(row) + " is not in [0, " + std::to_string(num_rows) +
               ")";
    if (col < 0 || col >= num_cols)
        return entry + "column " + std::to_string(col) + " is not in [0, " +
               std::to_string(num_cols) + ")";
    return entry + "row " + std::to_string(row) + " comes after row " +
           std::to_string(previous_row) + " (rows must be non-decreasing)";
}

// The card's example: rows 0 0 1 2 2. The card gives only the rows and the offsets; the columns
// and values are the suite's own.
inline HostCoo card_example() {
    return coo_of(3, 3, {0, 0, 1, 2, 2}, {0, 2, 1, 0, 2}, {1, 2, 3, 4, 5});
}
const std::vector<int> kCardRowOffsets = {0, 2, 3, 5};

// Empty rows at the start (0), in the middle (2 and 3) and at the end (6), and the coordinate
// (4, 3) stored twice with different values.
inline HostCoo gaps_and_duplicate_example() {
    return coo_of(7, 5, {1, 1, 4, 4, 4, 5}, {0, 3, 1, 3, 3, 2}, {10, 20, 30, 40, 50, 60});
}
const std::vector<int> kGapsEmptyRows = {0, 2, 3, 6};

// Inputs that break the contract, each refused at a known first entry.
struct RefusalDemo {
    std::string what;
    HostCoo coo;
    size_t first_bad;
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

// Read off the input itself, not off any offsets.
inline std::vector<int> rows_without_entries(const HostCoo& coo) {
    std::vector<char> has_entry(coo.num_rows, 0);
    for (int r : coo.rows) has_entry[r] = 1;
    std::vector<int> rows;
    for (int r = 0; r < coo.num_rows; ++r)
        if (!has_entry[r]) rows.push_back(r);
    return rows;
}

// Read off the offsets: the rows whose slice [row_offsets[r], row_offsets[r + 1]) is empty.
inline std::vector<int> rows_with_repeated_offsets(const std::vector<int>& row_offsets) {
    std::vector<int> rows;
    for (size_t r = 0; r + 1 < row_offsets.size(); ++r)
        if (row_offsets[r] == row_offsets[r + 1]) rows.push_back(static_cast<int>(r));
    return rows;
}

// The values that row `row` holds at column `col`, in CSR order.
inline std::vector<float> values_at(const HostCsr& csr, int row, int col) {
    std::vector<float> found;
    for (int k = csr.row_offsets[row]; k < csr.row_offsets[row + 1]; ++k)
        if (csr.col_idx[k] == col) found.push_back(csr.values[k]);
    return found;
}
