// The regularized formats of chapter 14, built from CSR on the host, and the way back to a plain
// list of entries that every conversion is checked with:
//   ELL  every row padded to the longest row's length and stored column-major, so that in step i
//        the threads of consecutive rows read consecutive slots.
//   HYB  ELL up to a width chosen from the row-length distribution; the entries past it, which
//        only the longer rows have, kept as COO.
//   JDS  rows sorted by length, longest first, and stored one "jagged diagonal" after another:
//        diagonal d holds the d-th entry of every row that has one, again consecutive across
//        threads, and with no padding at all.
//   DIA  one array per diagonal of the matrix (column - row constant) that holds an entry, one
//        slot per row, stored column-major: no column indices at all, and padding wherever a
//        diagonal is shorter than the matrix or has gaps.
// Host code only, with the byte count of each format. The kernels and their CPU baselines are in
// the lessons that teach them: ELL's in 144, HYB's, JDS's and DIA's in 145; device copies of the
// formats are in device_regular_formats.cuh. Each conversion shares its rows (or its diagonals)
// among the cores and writes what a loop over them in order would: at scale 22 a format holds
// 67 million entries.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "../common/host_threads.h"
#include "../common/memory_budget.h"
#include "../common/sparse_host.h"

// ---------------------------------------------------------------------------------------- ELL

// A padding slot's column. The kernels never read one (each row stops at its own length), and
// a stray read would index x[-1], which compute-sanitizer reports, instead of adding a quiet 0.
constexpr int kEllPadding = -1;

// Slot (row, i), the i-th entry of `row`, lives at i * num_rows + row: column-major, so that the
// slots of one step i are consecutive across rows. nnz_per_row tells each row where to stop and
// tells real entries (explicit zeros included) from padding.
struct HostEll {
    int num_rows = 0;
    int num_cols = 0;
    int width = 0;  // slots per row: the longest row's length (or HYB's chosen width)
    std::vector<int> nnz_per_row;
    std::vector<int> col_idx;  // num_rows * width
    std::vector<float> values;
    size_t slot(int row, int i) const { return static_cast<size_t>(i) * num_rows + row; }
    size_t num_slots() const { return col_idx.size(); }
};

// ELL with a given width: each row's first `width` entries (in CSR order); the rest are left
// out, which is how HYB's ELL part is made.
inline HostEll ell_from_csr(const HostCsr& a, int width) {
    HostEll e;
    e.num_rows = a.num_rows;
    e.num_cols = a.num_cols;
    e.width = width;
    e.nnz_per_row.resize(a.num_rows);
    const size_t slots = static_cast<size_t>(a.num_rows) * width;
    e.col_idx.assign(slots, kEllPadding);
    e.values.assign(slots, 0.0f);
#pragma omp parallel for schedule(dynamic, 4096) if (slots >= kParallelSize)
    for (int r = 0; r < a.num_rows; ++r) {
        const int kept = std::min(width, a.row_offsets[r + 1] - a.row_offsets[r]);
        e.nnz_per_row[r] = kept;
        for (int i = 0; i < kept; ++i) {
            e.col_idx[e.slot(r, i)] = a.col_idx[a.row_offsets[r] + i];
            e.values[e.slot(r, i)] = a.values[a.row_offsets[r] + i];
        }
    }
    return e;
}

inline HostEll ell_from_csr(const HostCsr& a) {
    return ell_from_csr(a, max_row_length(a));
}

// Bytes of each format's arrays (4-byte ints and floats).
inline size_t csr_bytes(const HostCsr& a) {
    return 8 * a.nnz() + 4 * (a.num_rows + size_t{1});
}
// The byte model of the chapter's timings, which they turn into GB/s: what any SpMV must move
// at least once, the matrix's arrays, x read once, and y read and written once. A gather that
// reads an x entry again is not counted again (a cache may serve it), so this is a floor.
inline double spmv_vector_bytes(int num_rows, int num_cols) {
    return 4.0 * num_cols + 8.0 * num_rows;
}
inline double csr_spmv_bytes(const HostCsr& a) {
    return static_cast<double>(csr_bytes(a)) + spmv_vector_bytes(a.num_rows, a.num_cols);
}
inline size_t ell_bytes(int num_rows, int width) {
    return 8 * static_cast<size_t>(num_rows) * width + 4 * static_cast<size_t>(num_rows);
}

// On a skewed matrix ELL pads a million rows to the length of one hub: terabytes. Past this
// many times the CSR's bytes a program does not build ELL, and says so; it never trims rows
// to make ELL fit, which would change the matrix.
constexpr double kEllPaddingLimit = 8.0;

inline double ell_to_csr_bytes(const HostCsr& a) {
    return static_cast<double>(ell_bytes(a.num_rows, max_row_length(a))) /
           static_cast<double>(csr_bytes(a));
}

inline bool ell_is_practical(const HostCsr& a) {
    return ell_to_csr_bytes(a) <= kEllPaddingLimit;
}

inline std::string readable_ratio(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, ratio < 100 ? "%.1f times" : "%.0f times", ratio);
    return text;
}

// ELL, where its padding is affordable; otherwise nothing, and ell_not_built says why.
inline std::optional<HostEll> ell_if_practical(const HostCsr& a) {
    if (!ell_is_practical(a)) return std::nullopt;
    return ell_from_csr(a);
}

inline std::string ell_not_built(const HostCsr& a) {
    return "ELL is not built: its padding would take " + readable_ratio(ell_to_csr_bytes(a)) +
           " the CSR's bytes";
}

// A COO of `kept[r]` entries from each row r, in row order, and room for `after` more entries
// behind them: write_row(r, k, coo) writes row r's entries from entry k on. The rows are shared
// among the cores, each written where the rows before it end.
template <class WriteRow>
HostCoo coo_of_rows(int num_rows, int num_cols, const std::vector<int>& kept, WriteRow write_row,
                    size_t after = 0) {
    std::vector<size_t> first(static_cast<size_t>(num_rows) + 1, 0);
    for (int r = 0; r < num_rows; ++r) first[r + 1] = first[r] + static_cast<size_t>(kept[r]);
    HostCoo c = coo_of_size(num_rows, num_cols, first.back() + after);
#pragma omp parallel for schedule(dynamic, 4096) if (first.back() >= kParallelSize)
    for (int r = 0; r < num_rows; ++r) write_row(r, first[r], c);
    return c;
}

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

// Sizes agree, every row fits its width, used slots hold columns in range, and every padding
// slot holds the padding marker and a zero.
inline bool is_well_formed(const HostEll& e) {
    const size_t slots = static_cast<size_t>(e.num_rows) * e.width;
    if (e.width < 0 || e.nnz_per_row.size() != static_cast<size_t>(e.num_rows) ||
        e.col_idx.size() != slots || e.values.size() != slots)
        return false;
    long long wrong = 0;
#pragma omp parallel for reduction(+ : wrong) schedule(dynamic, 4096) if (slots >= kParallelSize)
    for (int r = 0; r < e.num_rows; ++r) {
        if (e.nnz_per_row[r] < 0 || e.nnz_per_row[r] > e.width) {
            ++wrong;
            continue;
        }
        for (int i = 0; i < e.width; ++i) {
            const int c = e.col_idx[e.slot(r, i)];
            const bool used = i < e.nnz_per_row[r];
            wrong += used && (c < 0 || c >= e.num_cols);
            wrong += !used && (c != kEllPadding || e.values[e.slot(r, i)] != 0.0f);
        }
    }
    return wrong == 0;
}

// ---------------------------------------------------------------------------------------- HYB

// The ELL width of HYB, the rule of Bell and Garland's hybrid format (as CUSP applies it): the
// largest K such that at least a third of the rows have K or more entries. The rule takes ELL to
// process a slot about three times as fast as COO an entry, so a column pays for its padding
// while a third of the rows use it; past K the long rows' entries go to COO. CUSP also asks for
// at least 4096 such rows, a floor left out here so that a small matrix gets an ELL part too.
inline int hyb_ell_width(const std::vector<int>& lengths) {
    if (lengths.empty()) return 0;
    const size_t third = (lengths.size() + 2) / 3;  // ceil(rows / 3)
    std::vector<int> longest_first = lengths;
    std::nth_element(longest_first.begin(), longest_first.begin() + (third - 1),
                     longest_first.end(), std::greater<int>());
    return longest_first[third - 1];
}

struct HostHyb {
    HostEll ell;  // each row's first ell.width entries
    HostCoo coo;  // the rest, in row order
};

inline HostHyb hyb_from_csr(const HostCsr& a, int width) {
    HostHyb h;
    h.ell = ell_from_csr(a, width);
    std::vector<int> past_width(a.num_rows);
    for (int r = 0; r < a.num_rows; ++r)
        past_width[r] = std::max(0, a.row_offsets[r + 1] - a.row_offsets[r] - width);
    h.coo = coo_of_rows(a.num_rows, a.num_cols, past_width, [&](int r, size_t k, HostCoo& c) {
        for (int i = a.row_offsets[r] + width; i < a.row_offsets[r + 1]; ++i, ++k) {
            c.rows[k] = r;
            c.cols[k] = a.col_idx[i];
            c.values[k] = a.values[i];
        }
    });
    return h;
}

inline HostHyb hyb_from_csr(const HostCsr& a) {
    return hyb_from_csr(a, hyb_ell_width(row_lengths(a)));
}

inline size_t hyb_bytes(const HostHyb& h) {
    return ell_bytes(h.ell.num_rows, h.ell.width) + 12 * h.coo.nnz();
}

// The ELL part's entries, then the COO part's.
inline HostCoo coo_from_hyb(const HostHyb& h) {
    HostCoo c = coo_from_ell(h.ell, h.coo.nnz());
    const size_t in_ell = c.nnz() - h.coo.nnz();
    const long long in_coo = static_cast<long long>(h.coo.nnz());
#pragma omp parallel for if (h.coo.nnz() >= kParallelSize)
    for (long long k = 0; k < in_coo; ++k) {
        c.rows[in_ell + k] = h.coo.rows[k];
        c.cols[in_ell + k] = h.coo.cols[k];
        c.values[in_ell + k] = h.coo.values[k];
    }
    return c;
}

// ---------------------------------------------------------------------------------------- JDS

// Position t of the sorted order holds row row_perm[t]; the rows are sorted longest first (ties
// by row index). Jagged diagonal d occupies [diag_ptrs[d], diag_ptrs[d + 1]) of col_idx and
// values and holds the d-th entry of the rows at positions 0, 1, 2, ...: as the rows are sorted,
// the rows that have a d-th entry are exactly the first diag_ptrs[d + 1] - diag_ptrs[d].
struct HostJds {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<int> row_perm;
    // num_diagonals + 1 entries; there are as many diagonals as the longest row has entries.
    std::vector<int> diag_ptrs;
    std::vector<int> col_idx;
    std::vector<float> values;
    int num_diagonals() const { return static_cast<int>(diag_ptrs.size()) - 1; }
    int diagonal_size(int d) const { return diag_ptrs[d + 1] - diag_ptrs[d]; }
    size_t nnz() const { return col_idx.size(); }
};

// The rows are sorted by counting their lengths: rows of one length keep their order (ties by
// row index), and a row's place is after every longer row. Diagonal d holds one entry for each
// row longer than d, so its size is a count too; then each sorted position writes its row's
// entries into the diagonals, the positions shared among the cores.
inline HostJds jds_from_csr(const HostCsr& a) {
    const std::vector<int> lengths = row_lengths(a);
    HostJds j;
    j.num_rows = a.num_rows;
    j.num_cols = a.num_cols;
    const int num_diagonals = max_row_length(a);
    // longer[n]: the rows longer than n, which come before every row of length n.
    std::vector<int> longer(static_cast<size_t>(num_diagonals) + 1, 0);
    for (int n : lengths)
        if (n > 0) ++longer[n - 1];
    for (int n = num_diagonals - 1; n > 0; --n) longer[n - 1] += longer[n];
    std::vector<int> next_place = longer;
    j.row_perm.resize(a.num_rows);
    for (int r = 0; r < a.num_rows; ++r) j.row_perm[next_place[lengths[r]]++] = r;
    j.diag_ptrs.assign(static_cast<size_t>(num_diagonals) + 1, 0);
    for (int d = 0; d < num_diagonals; ++d) j.diag_ptrs[d + 1] = j.diag_ptrs[d] + longer[d];
    j.col_idx.resize(a.nnz());
    j.values.resize(a.nnz());
#pragma omp parallel for schedule(dynamic, 4096) if (a.nnz() >= kParallelSize)
    for (int t = 0; t < a.num_rows; ++t) {
        const int row = j.row_perm[t];
        for (int d = 0; d < lengths[row]; ++d) {
            j.col_idx[j.diag_ptrs[d] + t] = a.col_idx[a.row_offsets[row] + d];
            j.values[j.diag_ptrs[d] + t] = a.values[a.row_offsets[row] + d];
        }
    }
    return j;
}

inline size_t jds_bytes(const HostJds& j) {
    return 8 * j.nnz() + 4 * j.row_perm.size() + 4 * j.diag_ptrs.size();
}

// Entry k of the COO is slot k of the diagonals: the arrays are the same, and each diagonal's
// rows are read off row_perm, the diagonals shared among the cores.
inline HostCoo coo_from_jds(const HostJds& j) {
    HostCoo c;
    c.num_rows = j.num_rows;
    c.num_cols = j.num_cols;
    c.cols = j.col_idx;
    c.values = j.values;
    c.rows.resize(j.nnz());
#pragma omp parallel for schedule(dynamic, 1) if (j.nnz() >= kParallelSize)
    for (int d = 0; d < j.num_diagonals(); ++d)
        for (int t = 0; t < j.diagonal_size(d); ++t) c.rows[j.diag_ptrs[d] + t] = j.row_perm[t];
    return c;
}

// row_perm is a permutation, the diagonals start at 0, never grow (a row that lacks a d-th entry
// cannot have a (d+1)-th) and end at nnz, the last one is not empty, and the columns are in range.
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

// ---------------------------------------------------------------------------------------- DIA

// Diagonal d holds the matrix's (row, row + offsets[d]) for every row; the offsets are sorted
// and each is a diagonal that holds at least one entry. Slot (row, d) lives at d * num_rows + row,
// column-major, so that in step d consecutive rows read consecutive slots. A slot whose column
// falls outside the matrix, or that the diagonal skips, holds 0. A slot holds a value, not an
// entry: duplicates of one (row, column) are added into it, and an explicit zero looks like
// padding, so DIA keeps the input's matrix, not its list of entries.
struct HostDia {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<int> offsets;
    std::vector<float> data;  // num_rows * num_diagonals
    int num_diagonals() const { return static_cast<int>(offsets.size()); }
    size_t slot(int row, int d) const { return static_cast<size_t>(d) * num_rows + row; }
    size_t num_slots() const { return data.size(); }
    bool inside(int row, int d) const {
        const long long col = static_cast<long long>(row) + offsets[d];
        return col >= 0 && col < num_cols;
    }
};

// column - row runs from 1 - num_rows to num_cols - 1; diagonal_index numbers those diagonals
// from 0.
inline size_t num_possible_diagonals(const HostCsr& a) {
    return a.num_rows + a.num_cols > 0 ? static_cast<size_t>(a.num_rows) + a.num_cols - 1 : 0;
}
inline size_t diagonal_index(int num_rows, int row, int col) {
    return static_cast<size_t>(static_cast<long long>(col) - row + num_rows - 1);
}

// The rows are shared among the cores, each marking its rows' diagonals (places_marked).
inline std::vector<int> dia_offsets(const HostCsr& a) {
    const std::vector<uint64_t> used = places_marked(
        num_possible_diagonals(a), static_cast<size_t>(a.num_rows), [&](size_t r, auto set) {
            for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
                set(diagonal_index(a.num_rows, static_cast<int>(r), a.col_idx[k]));
        });
    std::vector<int> offsets;
    for (size_t w = 0; w < used.size(); ++w)
        for (uint64_t bits = used[w]; bits != 0; bits &= bits - 1) {
            const size_t i = 64 * w + static_cast<size_t>(__builtin_ctzll(bits));
            offsets.push_back(static_cast<int>(static_cast<long long>(i) - a.num_rows + 1));
        }
    return offsets;
}

// 4 bytes per slot of data, padding included, and one offset per diagonal.
inline size_t dia_bytes(int num_rows, int num_diagonals) {
    return 4 * (static_cast<size_t>(num_rows) + 1) * static_cast<size_t>(num_diagonals);
}

// DIA's kernel streams 4 bytes per slot and no column index; CSR's streams 8 bytes per entry (a
// column and a value) and the row offsets. So up to 2 slots per entry DIA moves fewer matrix bytes
// than CSR, and past that it pays in zeros for what it saves. Its other gain is x: a warp reads
// x[row + offset] for consecutive rows, coalesced, where CSR's x reads follow the column indices
// and cost about a 32-byte sector each (the notes' measured table). The limit is CUSP's, which
// refuses more than 3 slots per entry: 3 x 4 bytes against CSR's 8, 1.5 times the CSR's bytes.
// It also keeps a scattered matrix (an R-MAT one has nearly as many diagonals as rows) from
// asking for rows x diagonals slots, terabytes; like ELL, DIA is then not built, never trimmed.
constexpr double kDiaBytesLimit = 1.5;

// What DIA would take for a matrix, computed from its offsets before any slot is allocated.
struct DiaSize {
    int num_rows = 0;
    int num_diagonals = 0;
    size_t bytes = 0, csr_bytes = 0;
    double to_csr_bytes() const {
        return static_cast<double>(bytes) / static_cast<double>(csr_bytes);
    }
    bool practical() const { return to_csr_bytes() <= kDiaBytesLimit; }
};

inline DiaSize dia_size(const HostCsr& a) {
    const int diagonals = static_cast<int>(dia_offsets(a).size());
    return {a.num_rows, diagonals, dia_bytes(a.num_rows, diagonals), csr_bytes(a)};
}

inline bool dia_is_practical(const HostCsr& a) {
    return dia_size(a).practical();
}

inline HostDia dia_from_csr(const HostCsr& a) {
    HostDia d;
    d.num_rows = a.num_rows;
    d.num_cols = a.num_cols;
    d.offsets = dia_offsets(a);
    std::vector<int> diagonal_of(num_possible_diagonals(a), -1);
    for (int i = 0; i < d.num_diagonals(); ++i)
        diagonal_of[diagonal_index(a.num_rows, 0, d.offsets[i])] = i;
    d.data.assign(static_cast<size_t>(a.num_rows) * d.num_diagonals(), 0.0f);
#pragma omp parallel for schedule(dynamic, 4096) if (a.nnz() >= kParallelSize)
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            d.data[d.slot(r, diagonal_of[diagonal_index(a.num_rows, r, a.col_idx[k])])] +=
                a.values[k];
    return d;
}

// DIA, where its bytes stay within the limit; otherwise nothing, and dia_not_built says why.
inline std::optional<HostDia> dia_if_practical(const HostCsr& a) {
    if (!dia_is_practical(a)) return std::nullopt;
    return dia_from_csr(a);
}

inline std::string dia_not_built(const DiaSize& s) {
    return "DIA is not built: its " + counted(s.num_diagonals, "diagonal") + " of " +
           counted(s.num_rows, "slot") + " would take " +
           readable_bytes(static_cast<double>(s.bytes)) + " (" + with_separators(s.bytes) +
           " bytes), " + readable_ratio(s.to_csr_bytes()) + " the CSR's " +
           with_separators(s.csr_bytes) + " bytes; the limit is " + fixed_text(kDiaBytesLimit, 1) +
           " times";
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

// The matrix that a CSR stands for, as DIA can hold it: each (row, column)'s entries added, in
// the row's order, into one value, and the values that are 0 left out; sorted.
// The rows are shared among the cores: each row is summed once to count what it keeps, and once
// more to write that where the rows before it end.
inline std::vector<Entry> summed_entries(const HostCsr& a) {
    // Row r's (column, sum) pairs, in column order.
    auto sum_row = [&](int r, std::vector<std::pair<int, float>>& row) {
        row.clear();
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            row.emplace_back(a.col_idx[k], a.values[k]);
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        size_t kept = 0;
        for (size_t i = 0; i < row.size();) {
            float sum = 0.0f;
            size_t j = i;
            for (; j < row.size() && row[j].first == row[i].first; ++j) sum += row[j].second;
            if (sum != 0.0f) row[kept++] = {row[i].first, sum};
            i = j;
        }
        row.resize(kept);
    };
    std::vector<size_t> first(static_cast<size_t>(a.num_rows) + 1, 0);
#pragma omp parallel if (a.nnz() >= kParallelSize)
    {
        std::vector<std::pair<int, float>> row;
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < a.num_rows; ++r) {
            sum_row(r, row);
            first[r + 1] = row.size();
        }
    }
    for (int r = 0; r < a.num_rows; ++r) first[r + 1] += first[r];
    std::vector<Entry> e(first.back());
#pragma omp parallel if (a.nnz() >= kParallelSize)
    {
        std::vector<std::pair<int, float>> row;
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < a.num_rows; ++r) {
            sum_row(r, row);
            for (size_t i = 0; i < row.size(); ++i)
                e[first[r] + i] = {r, row[i].first, row[i].second};
        }
    }
    return e;
}

// Sizes agree, the offsets are distinct, sorted and name diagonals that meet the matrix, and every
// slot whose column is outside the matrix holds 0.
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
