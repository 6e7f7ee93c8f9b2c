// How a CSR matrix's rows are cut into P contiguous blocks, one block per rank (GPU). By rows,
// each rank gets R / P rows, whatever they hold; by nonzeros, the cuts are placed so that each
// rank's rows hold about nnz / P entries, which is the work of an SpMV. On a skewed matrix the
// two differ by the rows' lengths: a block of the first rows, where R-MAT's hubs live, can hold
// many times its share. A row is never cut, so one row longer than nnz / P still lands whole on
// one rank: the nonzero split is balanced to within the longest row.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

// first_row[k] .. first_row[k + 1] - 1 are rank k's rows; first_row[0] = 0, first_row[P] = R.
struct RowSplit {
    std::vector<int> first_row;

    int ranks() const { return static_cast<int>(first_row.size()) - 1; }
    int rows(int rank) const { return first_row[rank + 1] - first_row[rank]; }
    int64_t nonzeros(int rank, const std::vector<int>& row_offsets) const {
        return int64_t{row_offsets[first_row[rank + 1]]} - row_offsets[first_row[rank]];
    }
};

inline RowSplit split_by_rows(int num_rows, int ranks) {
    RowSplit split;
    for (int k = 0; k <= ranks; ++k)
        split.first_row.push_back(static_cast<int>(int64_t{num_rows} * k / ranks));
    return split;
}

// Cut k sits at the first row whose start is at or past k * nnz / P nonzeros, or one row
// earlier when that row's start is nearer to the target: the nearer cut keeps each block's
// nonzeros within half a row of its share, wherever a row allows.
inline RowSplit split_by_nonzeros(const std::vector<int>& row_offsets, int ranks) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    const int64_t nnz = row_offsets.back();
    RowSplit split;
    split.first_row.push_back(0);
    for (int k = 1; k < ranks; ++k) {
        const int64_t target = nnz * k / ranks;
        int cut = static_cast<int>(
            std::lower_bound(row_offsets.begin(), row_offsets.end(), target) - row_offsets.begin());
        if (cut > 0 && target - row_offsets[cut - 1] < row_offsets[cut] - target)
            --cut;
        split.first_row.push_back(std::clamp(cut, split.first_row.back(), num_rows));
    }
    split.first_row.push_back(num_rows);
    return split;
}
