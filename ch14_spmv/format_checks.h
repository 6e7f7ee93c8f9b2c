// Each regular format of 144's and 145's lessons back to a list of entries, and its invariants:
// what 145's and 146's proofs check each conversion with. Included after the lessons.
#pragma once
#include <algorithm>
#include <vector>
#include "../common/host_threads.h"
#include "../common/sparse_host.h"

// ELL's entries in row order, and room for `after` more behind them.
inline HostCoo coo_from_ell(const HostEll& e, size_t after = 0) {
    return coo_of_rows(
        e.num_rows, e.num_cols, e.nnz_per_row,
        [&](int r, size_t k, HostCoo& c) {
            for (int i = 0; i < e.nnz_per_row[r]; ++i, ++k) {
                c.rows[k] = r;
                c.cols[k] = e.col_idx[e.slot(r, i)];
                c.values[k] = e.values[e.slot(r, i)];
            }
        },
        after);
}

// Every row fits the width, used slots hold columns in range, padding slots the marker and 0.
inline bool is_well_formed(const HostEll& e) {
    const size_t slots = static_cast<size_t>(e.num_rows) * e.width;
    if (e.width < 0 || e.nnz_per_row.size() != static_cast<size_t>(e.num_rows) ||
        e.col_idx.size() != slots || e.values.size() != slots)
        return false;
    long long wrong = 0;
#pragma omp parallel for reduction(+ : wrong) schedule(dynamic, 4096) if (slots >= kParallelSize)
    for (int r = 0; r < e.num_rows; ++r)
        for (int i = 0; i < e.width; ++i) {
            const int c = e.col_idx[e.slot(r, i)];
            const bool used = i < e.nnz_per_row[r];
            wrong += used && (c < 0 || c >= e.num_cols);
            wrong += !used && (c != kEllPadding || e.values[e.slot(r, i)] != 0.0f);
        }
    const auto fits = [&](int n) { return n >= 0 && n <= e.width; };
    return wrong == 0 && std::all_of(e.nnz_per_row.begin(), e.nnz_per_row.end(), fits);
}

// The ELL part's entries, then the COO part's.
inline HostCoo coo_from_hyb(const HostHyb& h) {
    HostCoo c = coo_from_ell(h.ell, h.coo.nnz());
    const size_t in_ell = c.nnz() - h.coo.nnz();
    std::copy(h.coo.rows.begin(), h.coo.rows.end(), c.rows.begin() + in_ell);
    std::copy(h.coo.cols.begin(), h.coo.cols.end(), c.cols.begin() + in_ell);
    std::copy(h.coo.values.begin(), h.coo.values.end(), c.values.begin() + in_ell);
    return c;
}

// Entry k is slot k of the diagonals; each diagonal's rows are read off row_perm.
inline HostCoo coo_from_jds(const HostJds& j) {
    HostCoo c{j.num_rows, j.num_cols, std::vector<int>(j.nnz()), j.col_idx, j.values};
#pragma omp parallel for schedule(dynamic, 1) if (j.nnz() >= kParallelSize)
    for (int d = 0; d < j.num_diagonals(); ++d)
        for (int t = 0; t < j.diagonal_size(d); ++t) c.rows[j.diag_ptrs[d] + t] = j.row_perm[t];
    return c;
}

// row_perm is a permutation; the diagonals run from 0 to nnz, none empty and none longer than
// the one before (a row without a d-th entry has no (d+1)-th); the columns are in range.
inline bool is_well_formed(const HostJds& j) {
    if (j.row_perm.size() != static_cast<size_t>(j.num_rows) || j.diag_ptrs.empty() ||
        j.diag_ptrs.front() != 0 || static_cast<size_t>(j.diag_ptrs.back()) != j.nnz() ||
        j.values.size() != j.col_idx.size())
        return false;
    std::vector<char> seen(j.num_rows, 0);
    for (int r : j.row_perm) {
        if (r < 0 || r >= j.num_rows || seen[r]) return false;
        seen[r] = 1;
    }
    for (int d = 0; d < j.num_diagonals(); ++d) {
        if (j.diagonal_size(d) <= 0 || j.diagonal_size(d) > j.num_rows) return false;
        if (d > 0 && j.diagonal_size(d) > j.diagonal_size(d - 1)) return false;
    }
    long long outside = 0;
    const long long n = static_cast<long long>(j.nnz());
#pragma omp parallel for reduction(+ : outside) if (j.nnz() >= kParallelSize)
    for (long long k = 0; k < n; ++k) outside += j.col_idx[k] < 0 || j.col_idx[k] >= j.num_cols;
    return outside == 0;
}

// The slots that hold a value, as entries (row, row + offsets[d], value).
inline HostCoo coo_from_dia(const HostDia& d) {
    auto holds = [&](int r, int i) { return d.inside(r, i) && d.data[d.slot(r, i)] != 0.0f; };
    std::vector<int> held(d.num_rows, 0);
#pragma omp parallel for if (d.num_slots() >= kParallelSize)
    for (int r = 0; r < d.num_rows; ++r)
        for (int i = 0; i < d.num_diagonals(); ++i) held[r] += holds(r, i);
    return coo_of_rows(d.num_rows, d.num_cols, held, [&](int r, size_t k, HostCoo& c) {
        for (int i = 0; i < d.num_diagonals(); ++i)
            if (holds(r, i)) {
                c.rows[k] = r;
                c.cols[k] = r + d.offsets[i];
                c.values[k++] = d.data[d.slot(r, i)];
            }
    });
}

// The matrix as DIA holds it: each place's entries added in the row's order, zero sums left out;
// sorted. Each row is summed twice, to count what it keeps and to write it after the rows before.
inline std::vector<Entry> summed_entries(const HostCsr& a) {
    // Row r's (column, sum) pairs, in column order.
    auto sum_row = [&](int r, std::vector<std::pair<int, float>>& row) {
        row_by_column(a, r, row);
        size_t kept = 0;
        for (size_t i = 0, j = 0; i < row.size(); i = j) {
            float sum = 0.0f;
            for (; j < row.size() && row[j].first == row[i].first; ++j) sum += row[j].second;
            if (sum != 0.0f) row[kept++] = {row[i].first, sum};
        }
        row.resize(kept);
    };
    std::vector<size_t> first(static_cast<size_t>(a.num_rows) + 1, 0);
    std::vector<Entry> e;
#pragma omp parallel if (a.nnz() >= kParallelSize)
    {
        std::vector<std::pair<int, float>> row;
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < a.num_rows; ++r) {
            sum_row(r, row);
            first[r + 1] = row.size();
        }
#pragma omp single
        {
            for (int r = 0; r < a.num_rows; ++r) first[r + 1] += first[r];
            e.resize(first.back());
        }
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < a.num_rows; ++r) {
            sum_row(r, row);
            for (size_t i = 0; i < row.size(); ++i)
                e[first[r] + i] = {r, row[i].first, row[i].second};
        }
    }
    return e;
}

// The offsets are sorted, distinct and meet the matrix; slots outside the matrix hold 0.
inline bool is_well_formed(const HostDia& d) {
    if (d.num_rows < 0 || d.num_cols < 0 ||
        d.data.size() != static_cast<size_t>(d.num_rows) * d.offsets.size())
        return false;
    for (int i = 0; i < d.num_diagonals(); ++i) {
        if (i > 0 && d.offsets[i] <= d.offsets[i - 1]) return false;
        if (d.offsets[i] <= -d.num_rows || d.offsets[i] >= d.num_cols) return false;
    }
    long long outside = 0;
#pragma omp parallel for reduction(+ : outside) if (d.num_slots() >= kParallelSize)
    for (int r = 0; r < d.num_rows; ++r)
        for (int i = 0; i < d.num_diagonals(); ++i)
            outside += !d.inside(r, i) && d.data[d.slot(r, i)] != 0.0f;
    return outside == 0;
}
