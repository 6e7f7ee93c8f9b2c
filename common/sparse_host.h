// Host-side COO and CSR containers, the book-style printing of their arrays, and the checks
// that every program uses to compare a result with its baseline.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#ifdef _OPENMP
#include <omp.h>
#include <parallel/algorithm>
#endif
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "input_cache.h"
#include "text.h"

// Coordinate format: entry k is (rows[k], cols[k], values[k]). For a graph, rows are edge
// sources, cols are destinations, values are weights.
struct HostCoo {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<int> rows;
    std::vector<int> cols;
    std::vector<float> values;
    size_t nnz() const { return rows.size(); }
};

// A COO written out in full, as examples and tests spell their matrices.
inline HostCoo coo_of(int num_rows, int num_cols, std::vector<int> rows, std::vector<int> cols,
                      std::vector<float> values) {
    HostCoo a;
    a.num_rows = num_rows;
    a.num_cols = num_cols;
    a.rows = std::move(rows);
    a.cols = std::move(cols);
    a.values = std::move(values);
    return a;
}

// Compressed sparse row: row r owns the entries [row_offsets[r], row_offsets[r + 1]).
struct HostCsr {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<int> row_offsets;
    std::vector<int> col_idx;
    std::vector<float> values;
    size_t nnz() const { return col_idx.size(); }
};

// Entry counts of each row, read off the offsets.
inline std::vector<int> row_lengths(const HostCsr& a) {
    std::vector<int> lengths(a.num_rows);
    for (int r = 0; r < a.num_rows; ++r) lengths[r] = a.row_offsets[r + 1] - a.row_offsets[r];
    return lengths;
}

// The longest row's entry count, 0 for a matrix without rows: the work of the slowest thread
// wherever a thread owns a row.
inline int max_row_length(const HostCsr& a) {
    int longest = 0;
    for (int r = 0; r < a.num_rows; ++r)
        longest = std::max(longest, a.row_offsets[r + 1] - a.row_offsets[r]);
    return longest;
}

// Arrays longer than this are summarized instead of printed in full.
constexpr size_t kPrintLimit = 40;

// A matrix small enough that the lesson prints its arrays and its threads one by one.
inline bool printable(const HostCoo& a) {
    return static_cast<size_t>(a.num_rows) <= kPrintLimit && a.nnz() <= kPrintLimit;
}
inline bool printable(const HostCsr& a) {
    return static_cast<size_t>(a.num_rows) <= kPrintLimit && a.nnz() <= kPrintLimit;
}

// One element as the arrays print it: integers whole, floats in the shortest form.
template <class T>
std::string element_text(const T& v) {
    char text[32];
    if constexpr (std::is_floating_point_v<T>)
        std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
    else
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
    return text;
}

// "[ 0 2 4 6 ]", on one line.
template <class T>
std::string bracketed(const std::vector<T>& a) {
    std::string s = "[ ";
    for (const T& v : a) s += element_text(v) + " ";
    return s + "]";
}

// `  name = [ 0 2 4 6 ]`, wrapped at kOutputColumns: continuation lines start under the first
// element, so a long array stays readable.
template <class T>
void print_array(const std::string& name, const std::vector<T>& a, int name_width = 0) {
    if (a.size() > kPrintLimit) {
        std::printf("  %-*s = (%s, too many to print)\n", name_width, name.c_str(),
                    counted(a.size(), "entry", "entries").c_str());
        return;
    }
    char head[128];
    std::snprintf(head, sizeof head, "  %-*s = [", name_width, name.c_str());
    std::string line = head;
    const size_t indent = line.size();
    for (const T& v : a) {
        const std::string item = element_text(v);
        if (line.size() + 1 + item.size() + 2 > kOutputColumns) {
            std::printf("%s\n", line.c_str());
            line = std::string(indent, ' ');
        }
        line += " " + item;
    }
    std::printf("%s ]\n", line.c_str());
}

using Entry = std::tuple<int, int, float>;  // (row, col, value)

// The sorts that prepare inputs and check results use every core (libstdc++'s parallel mode,
// OpenMP): at R-MAT scale 22 a sequential sort of 67 million entries takes seconds. The race
// check is built without OpenMP, whose runtime ThreadSanitizer cannot see into, and sorts on one.
template <class Iterator, class Less = std::less<>>
void sort_on_all_cores(Iterator first, Iterator last, Less less = {}) {
#ifdef _OPENMP
    __gnu_parallel::sort(first, last, less);
#else
    std::sort(first, last, less);
#endif
}

// The rows that the calling thread of an OpenMP parallel region owns: an equal share of
// [0, num_rows), in thread order; all of them outside a parallel region or without OpenMP.
struct RowBand {
    int begin, end;
};

inline RowBand this_threads_band(int num_rows) {
#ifdef _OPENMP
    const long long threads = omp_get_num_threads(), thread = omp_get_thread_num();
    return {static_cast<int>(num_rows * thread / threads),
            static_cast<int>(num_rows * (thread + 1) / threads)};
#else
    return {0, num_rows};
#endif
}

template <class Iterator, class Less>
void stable_sort_on_all_cores(Iterator first, Iterator last, Less less) {
#ifdef _OPENMP
    __gnu_parallel::stable_sort(first, last, less);
#else
    std::stable_sort(first, last, less);
#endif
}

inline std::vector<Entry> sorted_entries(const HostCoo& a) {
    std::vector<Entry> e(a.nnz());
    for (size_t k = 0; k < a.nnz(); ++k) e[k] = {a.rows[k], a.cols[k], a.values[k]};
    sort_on_all_cores(e.begin(), e.end());
    return e;
}

// The row of each entry is read off row_offsets, so a wrong offset shows up as a wrong row.
inline std::vector<Entry> sorted_entries(const HostCsr& a) {
    std::vector<Entry> e;
    e.reserve(a.nnz());
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            e.emplace_back(r, a.col_idx[k], a.values[k]);
    sort_on_all_cores(e.begin(), e.end());
    return e;
}

// Structural sanity: offsets start at 0, never decrease, end at nnz; every column in range.
inline bool is_well_formed(const HostCsr& a) {
    if (a.row_offsets.size() != static_cast<size_t>(a.num_rows) + 1) return false;
    if (a.values.size() != a.col_idx.size() || a.row_offsets.front() != 0) return false;
    if (static_cast<size_t>(a.row_offsets.back()) != a.nnz()) return false;
    for (int r = 0; r < a.num_rows; ++r)
        if (a.row_offsets[r] > a.row_offsets[r + 1]) return false;
    for (int c : a.col_idx)
        if (c < 0 || c >= a.num_cols) return false;
    return true;
}

// Order within a row is not part of CSR's contract: two CSRs (or a CSR and the COO it came
// from) agree when every row holds the same multiset of (column, value) pairs.
inline bool same_row_multisets(const HostCsr& got, const HostCoo& expected) {
    return is_well_formed(got) && got.num_rows == expected.num_rows &&
           got.num_cols == expected.num_cols && sorted_entries(got) == sorted_entries(expected);
}

inline bool same_row_multisets(const HostCsr& got, const HostCsr& expected) {
    return is_well_formed(got) && got.num_rows == expected.num_rows &&
           got.num_cols == expected.num_cols && got.row_offsets == expected.row_offsets &&
           sorted_entries(got) == sorted_entries(expected);
}

// The same entries, with the roles of rows and columns swapped: a graph's reverse edges.
inline HostCoo transposed(const HostCoo& a) {
    HostCoo t;
    t.num_rows = a.num_cols;
    t.num_cols = a.num_rows;
    t.rows = a.cols;
    t.cols = a.rows;
    t.values = a.values;
    return t;
}

template <class Index = size_t>
std::vector<Index> row_order_by_stable_sort(const HostCoo& a) {
    std::vector<Index> order(a.nnz());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<Index>(k);
    stable_sort_on_all_cores(order.begin(), order.end(),
                             [&](Index x, Index y) { return a.rows[x] < a.rows[y]; });
    return order;
}

// "" when `order` is the one order that a stable sort by row gives: every index in range, and
// (row, index) strictly increasing along it, which also makes every index appear once.
template <class Index>
std::string why_not_stable_row_order(const HostCoo& a, const std::vector<Index>& order) {
    if (order.size() != a.nnz()) return "holds " + std::to_string(order.size()) + " indices";
    const long long n = static_cast<long long>(a.nnz());
    long long out_of_place = 0;
#pragma omp parallel for reduction(+ : out_of_place)
    for (long long k = 0; k < n; ++k) {
        if (order[k] >= a.nnz()) {
            ++out_of_place;
        } else if (k + 1 < n && order[k + 1] < a.nnz()) {
            const int row = a.rows[order[k]], next_row = a.rows[order[k + 1]];
            out_of_place += row > next_row || (row == next_row && order[k] >= order[k + 1]);
        }
    }
    return out_of_place == 0 ? ""
                             : "is not the rows' stable order (" +
                                   std::to_string(out_of_place) + " entries out of place)";
}

// The entries' indices, stably sorted by row. Where SUITE_RMAT_CACHE names a folder, the order
// of a large input is kept there (as 32-bit indices) under its rows' checksum; one read back
// is used only when why_not_stable_row_order finds nothing, so another input's order never is.
inline std::vector<size_t> stable_row_order(const HostCoo& a) {
    const std::string folder = input_cache_folder();
    if (folder.empty() || a.nnz() < kAnnouncedSize || a.nnz() > UINT32_MAX)
        return row_order_by_stable_sort(a);
    const InputKey key("row order", {a.nnz(), checksum_of({cached_array(a.rows)})});
    const std::vector<uint32_t> order = read_or_make(
        cache_entry(folder, "row-order-nnz" + std::to_string(a.nnz()), key,
                    "the rows' stable order", a.nnz()),
        [&] { return std::vector<uint32_t>(a.nnz()); },
        [](std::vector<uint32_t>& o) { return std::vector<CachedArray>{cached_array(o)}; },
        [&](const std::vector<uint32_t>& o) { return why_not_stable_row_order(a, o); },
        [&] { return row_order_by_stable_sort<uint32_t>(a); });
    return std::vector<size_t>(order.begin(), order.end());
}

// The same entries, stably sorted by row: the input that sorted-COO-to-CSR conversion expects.
inline HostCoo sorted_by_row(const HostCoo& a) {
    const std::vector<size_t> order = stable_row_order(a);
    HostCoo s;
    s.num_rows = a.num_rows;
    s.num_cols = a.num_cols;
    s.rows.resize(a.nnz());
    s.cols.resize(a.nnz());
    s.values.resize(a.nnz());
#pragma omp parallel for
    for (size_t k = 0; k < order.size(); ++k) {
        s.rows[k] = a.rows[order[k]];
        s.cols[k] = a.cols[order[k]];
        s.values[k] = a.values[order[k]];
    }
    return s;
}

// Input preparation, not a lesson: a CSR whose rows keep the COO's entry order, made by a
// stable sort of entry indices on the row. The chapter builds CSR by count, scan and scatter
// (114, 115); this independent route is what the programs that start from CSR use, and what
// tests compare those lessons with.
inline HostCsr csr_from_coo_by_stable_sort(const HostCoo& a) {
    HostCoo s = sorted_by_row(a);
    HostCsr c;
    c.num_rows = s.num_rows;
    c.num_cols = s.num_cols;
    c.row_offsets.assign(static_cast<size_t>(s.num_rows) + 1, 0);
    // Row r starts after every entry of a smaller row: one pass over the sorted rows.
    size_t k = 0;
    for (int r = 0; r <= s.num_rows; ++r) {
        while (k < s.nnz() && s.rows[k] < r) ++k;
        c.row_offsets[r] = static_cast<int>(k);
    }
    c.col_idx = std::move(s.cols);
    c.values = std::move(s.values);
    return c;
}
