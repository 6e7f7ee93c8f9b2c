// Host-side COO and CSR containers, the book-style printing of their arrays, and the checks
// that every program uses to compare a result with its baseline.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
// libstdc++'s parallel mode, where there is OpenMP; libc++ (clang on a Mac) has none.
#if defined(_OPENMP) && defined(__GLIBCXX__)
#include <parallel/algorithm>
#endif
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "host_threads.h"
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

// What a printed CSR's values are: a graph's edge weights (chapter 21), a matrix's values with
// the book's names beside the arrays (chapter 14), or none (a CSR of the structure alone).
enum class CsrValues { weights, book_values, none };

// A small CSR under its title (none if empty): row_offsets, col_idx, then its values, each under
// the code's name and aligned at `name_width` (0: the longest name), and a blank line. Nothing for
// a CSR too large to print. Every program shows a CSR this way.
inline void print_csr(const std::string& title, const HostCsr& csr,
                      CsrValues values = CsrValues::weights, int name_width = 0) {
    if (!printable(csr)) return;
    if (!title.empty()) print_wrapped(title);
    const bool book = values == CsrValues::book_values;
    const std::string offsets = book ? "row_offsets (the book's rowPtrs)" : "row_offsets";
    const std::string columns = book ? "col_idx (the book's colIdx)" : "col_idx";
    const std::string entries = book ? "values (the book's value)" : "weights";
    if (name_width == 0) name_width = static_cast<int>(offsets.size());
    print_array(offsets, csr.row_offsets, name_width);
    print_array(columns, csr.col_idx, name_width);
    if (values != CsrValues::none) print_array(entries, csr.values, name_width);
    std::printf("\n");
}

using Entry = std::tuple<int, int, float>;  // (row, col, value)

// The sorts that prepare inputs and check results use every core (libstdc++'s parallel mode,
// OpenMP): at R-MAT scale 22 a sequential sort of 67 million entries takes seconds. The race
// check is built without OpenMP, whose runtime ThreadSanitizer cannot see into, and sorts on one,
// as libc++ does, which has no parallel mode.
template <class Iterator, class Less = std::less<>>
void sort_on_all_cores(Iterator first, Iterator last, Less less = {}) {
#if defined(_OPENMP) && defined(__GLIBCXX__)
    __gnu_parallel::sort(first, last, less);
#else
    std::sort(first, last, less);
#endif
}

inline std::vector<Entry> sorted_entries(const HostCoo& a) {
    std::vector<Entry> e(a.nnz());
    const long long n = static_cast<long long>(a.nnz());
#pragma omp parallel for if (a.nnz() >= kParallelSize)
    for (long long k = 0; k < n; ++k) e[k] = {a.rows[k], a.cols[k], a.values[k]};
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
    long long wrong = 0;
#pragma omp parallel for reduction(+ : wrong) if (a.num_rows >= static_cast<int>(kParallelSize))
    for (int r = 0; r < a.num_rows; ++r) wrong += a.row_offsets[r] > a.row_offsets[r + 1];
    const long long n = static_cast<long long>(a.nnz());
#pragma omp parallel for reduction(+ : wrong) if (a.nnz() >= kParallelSize)
    for (long long k = 0; k < n; ++k) wrong += a.col_idx[k] < 0 || a.col_idx[k] >= a.num_cols;
    return wrong == 0;
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
    return HostCoo{a.num_cols, a.num_rows, a.cols, a.rows, a.values};
}

// How many entries each row holds, counted on every core: each thread counts its own share of the
// entries in counts of its own, then adds up one band of the rows over every thread's counts. The
// threads' counts take at most an int for each entry; where there are far more rows than that,
// fewer threads count.
inline std::vector<int> entries_per_row(const HostCoo& a) {
    std::vector<int> length(a.num_rows, 0);
    std::vector<std::vector<int>> counts;
    const size_t rows = static_cast<size_t>(a.num_rows);
#pragma omp parallel num_threads(threads_within(4 * rows, 4 * a.nnz())) \
    if (a.nnz() >= kParallelSize)
    {
        const int threads = threads_in_region();
#pragma omp single
        counts.resize(threads);
        std::vector<int>& mine = counts[thread_in_region()];
        mine.assign(rows, 0);
        const Share share = this_threads_share(a.nnz());
        for (size_t k = share.begin; k < share.end; ++k) ++mine[a.rows[k]];
#pragma omp barrier
        const RowBand band = this_threads_band(a.num_rows);
        for (int t = 0; t < threads; ++t)
            for (int r = band.begin; r < band.end; ++r) length[r] += counts[t][r];
    }
    return length;
}

// A bitmap of `places` bits, bit p set where mark(item, set) calls set(p) for some item: each
// thread marks its share of the items in a bitmap of its own, and the bitmaps are or-ed together
// a band of words at a time. The threads' bitmaps take at most 8 bytes for each item; where
// there are far more places than that, fewer threads mark.
template <class Mark>
std::vector<uint64_t> places_marked(size_t places, size_t items, Mark mark) {
    const size_t words = (places + 63) / 64;
    std::vector<uint64_t> marked(words, 0);
    std::vector<std::vector<uint64_t>> bitmaps;
#pragma omp parallel num_threads(threads_within(8 * words, 8 * items)) if (items >= kParallelSize)
    {
        const int threads = threads_in_region();
#pragma omp single
        bitmaps.resize(threads);
        std::vector<uint64_t>& mine = bitmaps[thread_in_region()];
        mine.assign(words, 0);
        auto set = [&](size_t place) { mine[place / 64] |= uint64_t{1} << (place % 64); };
        const Share share = this_threads_share(items);
        for (size_t item = share.begin; item < share.end; ++item) mark(item, set);
#pragma omp barrier
        const Share band = this_threads_share(words);
        for (int t = 0; t < threads; ++t)
            for (size_t w = band.begin; w < band.end; ++w) marked[w] |= bitmaps[t][w];
    }
    return marked;
}

// A COO of the given shape, its arrays not yet filled in: the three are zeroed at once, each by
// a thread of its own, where one thread would zero and map them one after another.
inline HostCoo coo_of_size(int num_rows, int num_cols, size_t nnz) {
    HostCoo a;
    a.num_rows = num_rows;
    a.num_cols = num_cols;
#pragma omp parallel sections if (nnz >= kParallelSize)
    {
#pragma omp section
        a.rows.resize(nnz);
#pragma omp section
        a.cols.resize(nnz);
#pragma omp section
        a.values.resize(nnz);
    }
    return a;
}

// The high bits of a row that the first pass of the row sort deals the entries out by: 2,048
// buckets, few enough that each thread's cursors stay in its cache.
constexpr int kRowSortHighBits = 11;

// An entry dealt out to a bucket, its three fields together so that dealing writes one stream a
// bucket.
struct DealtEntry {
    int row, col;
    float value;
};

// A's entries dealt out to buckets: bucket b holds its entries in entry order, in
// entries[begin[b], begin[b + 1]).
struct DealtEntries {
    std::unique_ptr<DealtEntry[]> entries;
    std::vector<size_t> begin;
};

// Deals a's entries out to `buckets` buckets by bucket_of(row), on every core: each thread deals
// its own contiguous share of the entries, and each bucket holds thread 0's entries, then thread
// 1's, and so on, so that it keeps entry order. The row sort's first pass, and the way that
// spmv_reference gives each thread the entries of its own rows.
template <class BucketOf>
DealtEntries deal_stably(const HostCoo& a, size_t buckets, BucketOf bucket_of) {
    const size_t n = a.nnz();
    // Left uninitialized: dealing writes every slot.
    DealtEntries dealt{std::unique_ptr<DealtEntry[]>(new DealtEntry[n]),
                       std::vector<size_t>(buckets + 1)};
    std::vector<size_t> cursor;
#pragma omp parallel if (n >= kParallelSize)
    {
        const size_t threads = static_cast<size_t>(threads_in_region());
        const size_t thread = static_cast<size_t>(thread_in_region());
#pragma omp single
        cursor.assign(threads * buckets, 0);
        size_t* mine = cursor.data() + thread * buckets;
        const Share share = this_threads_share(n);
        for (size_t k = share.begin; k < share.end; ++k) ++mine[bucket_of(a.rows[k])];
#pragma omp barrier
#pragma omp single
        {
            size_t next = 0;
            for (size_t b = 0; b < buckets; ++b) {
                dealt.begin[b] = next;
                for (size_t t = 0; t < threads; ++t) {
                    const size_t count = cursor[t * buckets + b];
                    cursor[t * buckets + b] = next;
                    next += count;
                }
            }
            dealt.begin[buckets] = next;
        }
        for (size_t k = share.begin; k < share.end; ++k)
            dealt.entries[mine[bucket_of(a.rows[k])]++] = {a.rows[k], a.cols[k], a.values[k]};
    }
    return dealt;
}

// The bits that the keys 0 to count - 1 take: the least b with 2^b >= count (0 for a count of
// 0 or 1), as many as a radix sort of those keys must look at.
inline int bits_for(uint64_t count) {
    int bits = 0;
    while ((uint64_t{1} << bits) < count) ++bits;
    return bits;
}

// A stable sort of a's entries by row: put(k, entry) places the entry that comes k-th, and
// row_start(r, k) says that row r starts at k (k entries have smaller rows), for each row r in
// [first_row, last_row]. A radix sort in two passes on every core, linear in the entries, that
// moves the entries themselves, so that nothing is read from a random place of the input. The
// first pass deals them out to buckets by their row's high bits (deal_stably); the second sorts
// each bucket on the low bits by counting, a bucket to a thread (a bucket with few entries for
// its rows by a comparison sort). Both passes keep equal rows in the order they found them, so
// each row's entries stay in entry order. Rows are taken relative to the smallest, so any ints
// sort.
template <class Put, class RowStart>
void sort_by_row_stably(const HostCoo& a, Put put, int first_row, int last_row,
                        RowStart row_start) {
    const size_t n = a.nnz();
    if (n == 0) return;
    const long long entries = static_cast<long long>(n);
    int lowest = a.rows[0], highest = a.rows[0];
#pragma omp parallel for reduction(min : lowest) reduction(max : highest) if (n >= kParallelSize)
    for (long long k = 0; k < entries; ++k) {
        lowest = std::min(lowest, a.rows[k]);
        highest = std::max(highest, a.rows[k]);
    }
    // Keys from 0 to span - 1: below 2^32 however the rows lie.
    const uint64_t span = static_cast<uint64_t>(int64_t{highest} - lowest) + 1;
    auto key_of = [&](int row) { return static_cast<uint32_t>(int64_t{row} - lowest); };
    const int key_bits = bits_for(span);
    const int low_bits = std::max(0, key_bits - kRowSortHighBits);
    const uint32_t low_mask = static_cast<uint32_t>((uint64_t{1} << low_bits) - 1);
    const size_t buckets = static_cast<size_t>((span - 1) >> low_bits) + 1;
    // The rows asked for outside the entries' rows start before or after all of them.
    for (int64_t r = first_row; r <= std::min<int64_t>(last_row, int64_t{lowest} - 1); ++r)
        row_start(static_cast<int>(r), 0);
    for (int64_t r = std::max<int64_t>(first_row, int64_t{highest} + 1); r <= last_row; ++r)
        row_start(static_cast<int>(r), n);
    // Those inside, as keys: [first_key, last_key), maybe none.
    const int64_t first_key = std::max<int64_t>(0, int64_t{first_row} - lowest);
    const int64_t last_key = std::min<int64_t>(static_cast<int64_t>(span),
                                               int64_t{last_row} - lowest + 1);

    const DealtEntries dealt_out = deal_stably(
        a, buckets, [&](int row) { return static_cast<size_t>(key_of(row) >> low_bits); });
    const DealtEntry* dealt = dealt_out.entries.get();
    const std::vector<size_t>& bucket_begin = dealt_out.begin;
#pragma omp parallel if (n >= kParallelSize)
    {
        std::vector<size_t> first;  // per low key: where its next entry goes
        std::vector<size_t> position;
#pragma omp for schedule(dynamic, 8)
        for (long long b = 0; b < static_cast<long long>(buckets); ++b) {
            const size_t begin = bucket_begin[b], end = bucket_begin[b + 1];
            const int64_t bucket_key = static_cast<int64_t>(b) << low_bits;
            const size_t keys = static_cast<size_t>(
                std::min<uint64_t>(uint64_t{low_mask} + 1, span - static_cast<uint64_t>(bucket_key)));
            const int64_t wanted_begin = std::max(first_key, bucket_key);
            const int64_t wanted_end = std::min<int64_t>(last_key, bucket_key + keys);
            if ((end - begin) * 8 < keys) {
                position.resize(end - begin);
                for (size_t i = 0; i < position.size(); ++i) position[i] = begin + i;
                std::stable_sort(position.begin(), position.end(), [&](size_t x, size_t y) {
                    return dealt[x].row < dealt[y].row;
                });
                for (size_t i = 0; i < position.size(); ++i) put(begin + i, dealt[position[i]]);
                size_t before = 0;  // the bucket's entries of smaller keys
                for (int64_t key = wanted_begin; key < wanted_end; ++key) {
                    while (before < position.size() && key_of(dealt[position[before]].row) < key)
                        ++before;
                    row_start(static_cast<int>(lowest + key), begin + before);
                }
                continue;
            }
            first.assign(keys + 1, 0);
            for (size_t i = begin; i < end; ++i) ++first[(key_of(dealt[i].row) & low_mask) + 1];
            for (size_t j = 0; j < keys; ++j) first[j + 1] += first[j];
            for (int64_t key = wanted_begin; key < wanted_end; ++key)
                row_start(static_cast<int>(lowest + key), begin + first[key - bucket_key]);
            for (size_t i = begin; i < end; ++i)
                put(begin + first[key_of(dealt[i].row) & low_mask]++, dealt[i]);
        }
    }
}

// Row r's entries as (column, value) pairs in column order, the entries of one column in the
// order in which the row stores them: the one way in which a row is put in column order.
inline void row_by_column(const HostCsr& a, int r, std::vector<std::pair<int, float>>& row) {
    row.clear();
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
        row.emplace_back(a.col_idx[k], a.values[k]);
    std::stable_sort(row.begin(), row.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
}

// The same entries, stably sorted by row: the input that sorted-COO-to-CSR conversion expects.
inline HostCoo sorted_by_row(const HostCoo& a) {
    HostCoo s = coo_of_size(a.num_rows, a.num_cols, a.nnz());
    sort_by_row_stably(
        a,
        [&](size_t k, const DealtEntry& e) {
            s.rows[k] = e.row;
            s.cols[k] = e.col;
            s.values[k] = e.value;
        },
        0, -1, [](int, size_t) {});
    return s;
}

// Input preparation, not a lesson: a CSR whose rows keep the COO's entry order, made by a
// stable sort of the entries on the row. The chapter builds CSR by count, scan and scatter
// (114, 115); this independent route is what the programs that start from CSR use, and what
// tests compare those lessons with. Row r starts after every entry of a smaller row.
inline HostCsr csr_from_coo_by_stable_sort(const HostCoo& a) {
    HostCsr c;
    c.num_rows = a.num_rows;
    c.num_cols = a.num_cols;
    c.row_offsets.assign(static_cast<size_t>(a.num_rows) + 1, 0);
#pragma omp parallel sections if (a.nnz() >= kParallelSize)
    {
#pragma omp section
        c.col_idx.resize(a.nnz());
#pragma omp section
        c.values.resize(a.nnz());
    }
    sort_by_row_stably(
        a,
        [&](size_t k, const DealtEntry& e) {
            c.col_idx[k] = e.col;
            c.values[k] = e.value;
        },
        0, a.num_rows, [&](int r, size_t k) { c.row_offsets[r] = static_cast<int>(k); });
    return c;
}

// A lesson's CSR of its input, rows in the input's order (csr_from_coo_by_stable_sort),
// announced when the input is large enough for the sort to take a while.
inline HostCsr csr_for_lesson(const HostCoo& a) {
    if (a.nnz() >= kAnnouncedSize)
        announce("building the CSR of " + counted(a.nnz(), "entry", "entries") +
                 " (a stable sort by row)");
    return csr_from_coo_by_stable_sort(a);
}

// Row r of a and of b hold the same multiset of (column, value) pairs, for every row of the
// offsets, which both must share. A row whose slices agree entry by entry needs no sort; any
// other row is sorted on both sides and compared. The rows are shared among the cores: the check
// grows with the entries (and the sorts of the rows that differ), where one sort of all the
// entries took seconds at scale 22.
inline bool rows_hold_same_entries(const std::vector<int>& row_offsets, const HostCsr& a,
                                   const HostCsr& b) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    long long differing = 0;
#pragma omp parallel reduction(+ : differing) if (a.nnz() >= kParallelSize)
    {
        std::vector<std::pair<int, float>> row_a, row_b;
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < num_rows; ++r) {
            const int begin = row_offsets[r], end = row_offsets[r + 1];
            bool same = true;
            for (int k = begin; k < end && same; ++k)
                same = a.col_idx[k] == b.col_idx[k] && a.values[k] == b.values[k];
            if (same) continue;
            row_a.clear();
            row_b.clear();
            for (int k = begin; k < end; ++k) {
                row_a.emplace_back(a.col_idx[k], a.values[k]);
                row_b.emplace_back(b.col_idx[k], b.values[k]);
            }
            std::sort(row_a.begin(), row_a.end());
            std::sort(row_b.begin(), row_b.end());
            differing += row_a != row_b;
        }
    }
    return differing == 0;
}

inline bool same_slots(const HostCsr& a, const HostCsr& b) {
    return a.row_offsets == b.row_offsets && a.col_idx == b.col_idx && a.values == b.values;
}

// A COO holds a well-formed CSR's entries, as a multiset in every row, when its entries grouped
// by row (csr_from_coo_by_stable_sort) have the CSR's offsets and each row the CSR's multiset.
inline bool holds_rows_of(const HostCoo& got, const HostCsr& expected) {
    if (got.num_rows != expected.num_rows || got.num_cols != expected.num_cols ||
        !is_well_formed(expected))
        return false;
    const HostCsr grouped = csr_from_coo_by_stable_sort(got);
    return grouped.row_offsets == expected.row_offsets &&
           rows_hold_same_entries(expected.row_offsets, grouped, expected);
}
