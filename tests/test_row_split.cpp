// Tests of row_split.h, the cut of a CSR matrix's rows into one contiguous block per rank. The
// properties: the blocks cover every row exactly once, in order; by rows, their sizes differ by
// at most one; by nonzeros, each block holds its share of the entries to within the longest row
// (a row is never cut), on random matrices, R-MAT's skews and hand-made extremes.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>
#include "../ch14_spmv/rank_blocks.h"
#include "../common/graph_generators.h"
#include "../common/sparse_host.h"

namespace {

bool covers_every_row_once(const RowSplit& split, int num_rows, int ranks) {
    if (split.ranks() != ranks || split.first_row.front() != 0 ||
        split.first_row.back() != num_rows)
        return false;
    for (int k = 0; k < ranks; ++k)
        if (split.first_row[k] > split.first_row[k + 1]) return false;
    return true;
}

int longest_row(const std::vector<int>& row_offsets) {
    int longest = 0;
    for (size_t r = 0; r + 1 < row_offsets.size(); ++r)
        longest = std::max(longest, row_offsets[r + 1] - row_offsets[r]);
    return longest;
}

void require_balanced_by_nonzeros(const std::vector<int>& row_offsets, int ranks) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    const RowSplit split = split_by_nonzeros(row_offsets, ranks);
    REQUIRE(covers_every_row_once(split, num_rows, ranks));
    const double share = double(row_offsets.back()) / ranks;
    for (int k = 0; k < ranks; ++k) {
        CAPTURE(k, split.nonzeros(k, row_offsets), share);
        REQUIRE(std::abs(split.nonzeros(k, row_offsets) - share) <= longest_row(row_offsets) + 1);
    }
}

}  // namespace

TEST_CASE("row split: by rows, blocks differ by at most one row", "[149][split]") {
    for (int rows : {0, 1, 2, 7, 1000, 1 << 20})
        for (int ranks : {1, 2, 3, 4, 8}) {
            CAPTURE(rows, ranks);
            const RowSplit split = split_by_rows(rows, ranks);
            REQUIRE(covers_every_row_once(split, rows, ranks));
            for (int k = 0; k < ranks; ++k) CHECK(std::abs(split.rows(k) - rows / ranks) <= 1);
        }
}

TEST_CASE("row split: by nonzeros, each block within the longest row of its share",
          "[149][split][random]") {
    for (double skew : {0.25, 0.57, 0.8}) {
        const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(14, 16, skew, 149));
        for (int ranks : {1, 2, 3, 4, 8}) {
            CAPTURE(skew, ranks);
            require_balanced_by_nonzeros(a.row_offsets, ranks);
        }
    }
    SplitMix64 rng(149);
    for (int trial = 0; trial < 500; ++trial) {
        const int rows = static_cast<int>(rng.below(60));
        std::vector<int> offsets = {0};
        for (int r = 0; r < rows; ++r)
            offsets.push_back(offsets.back() + static_cast<int>(rng.below(4) == 0 ? rng.below(50) : 0));
        CAPTURE(trial, rows, offsets.back());
        require_balanced_by_nonzeros(offsets, 1 + static_cast<int>(rng.below(6)));
    }
}

TEST_CASE("row split: one hub row, no entries, and more ranks than rows", "[149][split]") {
    require_balanced_by_nonzeros({0, 0, 100000, 100001, 100002}, 2);
    const RowSplit hub = split_by_nonzeros({0, 0, 100000, 100001, 100002}, 2);
    CHECK(hub.first_row == std::vector<int>{0, 2, 4});
    CHECK(split_by_nonzeros({0, 0, 0, 0}, 2).first_row == std::vector<int>{0, 0, 3});
    CHECK(covers_every_row_once(split_by_nonzeros({0, 1, 2}, 4), 2, 4));
    CHECK(split_by_rows(2, 4).first_row == std::vector<int>{0, 0, 1, 1, 2});
}

TEST_CASE("padded layout: every row has its own position, and blocks keep their entries",
          "[149][split]") {
    const HostCsr a = csr_from_coo_by_stable_sort(make_rmat(10, 16, 0.57, 7));
    for (int ranks : {1, 2, 3, 5}) {
        const PaddedLayout layout(split_by_nonzeros(a.row_offsets, ranks));
        std::vector<char> used(layout.length(), 0);
        for (int row = 0; row < a.num_rows; ++row) {
            REQUIRE(layout.position(row) < layout.length());
            REQUIRE(!used[layout.position(row)]);
            used[layout.position(row)] = 1;
        }
        std::vector<float> v(a.num_rows);
        for (int row = 0; row < a.num_rows; ++row) v[row] = static_cast<float>(row);
        CHECK(layout.in_row_order(layout.padded(v)) == v);
        size_t entries = 0;
        for (int k = 0; k < ranks; ++k) {
            const HostCsr block = rank_block(a, layout, k);
            entries += block.nnz();
            for (int r = 0; r < block.num_rows; ++r)
                for (int e = block.row_offsets[r]; e < block.row_offsets[r + 1]; ++e) {
                    const int global = a.row_offsets[layout.split.first_row[k] + r] +
                                       (e - block.row_offsets[r]);
                    REQUIRE(block.col_idx[e] == static_cast<int>(layout.position(a.col_idx[global])));
                    REQUIRE(block.values[e] == a.values[global]);
                }
        }
        CHECK(entries == a.nnz());
    }
}
