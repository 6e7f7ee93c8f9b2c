// Each rank's share of a square CSR matrix for an SpMV across ranks: its block of rows (149 cuts
// them) with the column indices renumbered into the padded layout of x that an all-gather fills.
// An all-gather moves pieces of one size, so each rank's piece of y is as long as the largest
// block, and rank k's rows land at positions k * piece .. k * piece + rows(k) - 1 of every
// rank's x. Renumbering the columns once, when the blocks are made, lets each rank's SpMV read
// that x directly: no copy turns the gathered pieces back into row order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>
#include "../common/binary_search.h"
#include "../common/sparse_host.h"

// first_row[k] .. first_row[k + 1] - 1 are rank k's rows; first_row[0] = 0, first_row[P] = R.
struct RowSplit {
    std::vector<int> first_row;

    int ranks() const { return static_cast<int>(first_row.size()) - 1; }
    int rows(int rank) const { return first_row[rank + 1] - first_row[rank]; }
    int64_t nonzeros(int rank, const std::vector<int>& row_offsets) const {
        return int64_t{row_offsets[first_row[rank + 1]]} - row_offsets[first_row[rank]];
    }
};

struct PaddedLayout {
    RowSplit split;
    int piece = 0;  // rows of the largest block

    explicit PaddedLayout(RowSplit s) : split(std::move(s)) {
        for (int k = 0; k < split.ranks(); ++k) piece = std::max(piece, split.rows(k));
    }
    size_t length() const { return static_cast<size_t>(piece) * split.ranks(); }
    // The last rank whose first row is at or before `row`, the one just before the first rank
    // that starts after it (a rank without rows starts where the next one does).
    int rank_of(int row) const {
        return lower_bound_index(split.first_row.data(), static_cast<int>(split.first_row.size()),
                                 row + 1) -
               1;
    }
    size_t position(int row) const {
        const int k = rank_of(row);
        return static_cast<size_t>(k) * piece + (row - split.first_row[k]);
    }
    // A vector in row order, laid out as the all-gather leaves it (padding slots 0).
    std::vector<float> padded(const std::vector<float>& in_row_order) const {
        std::vector<float> out(length(), 0.0f);
        for (size_t row = 0; row < in_row_order.size(); ++row)
            out[position(static_cast<int>(row))] = in_row_order[row];
        return out;
    }
    std::vector<float> in_row_order(const std::vector<float>& padded_vector) const {
        const int rows = split.first_row.back();
        std::vector<float> out(rows);
        for (int row = 0; row < rows; ++row) out[row] = padded_vector[position(row)];
        return out;
    }
};

// Rank k's rows, their offsets rebased to 0, their columns renumbered into the padded layout.
inline HostCsr rank_block(const HostCsr& a, const PaddedLayout& layout, int rank) {
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument("an SpMV across ranks gathers y into x: A must be square");
    const int first = layout.split.first_row[rank], rows = layout.split.rows(rank);
    HostCsr block;
    block.num_rows = rows;
    block.num_cols = static_cast<int>(layout.length());
    const int begin = a.row_offsets[first], end = a.row_offsets[first + rows];
    for (int r = 0; r <= rows; ++r) block.row_offsets.push_back(a.row_offsets[first + r] - begin);
    for (int k = begin; k < end; ++k) {
        block.col_idx.push_back(static_cast<int>(layout.position(a.col_idx[k])));
        block.values.push_back(a.values[k]);
    }
    return block;
}
