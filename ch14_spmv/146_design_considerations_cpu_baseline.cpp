// 14.1-14.6, CPU baseline: the five design considerations, measured on one matrix for COO, CSR,
// ELL, HYB and JDS instead of asserted: space (bytes and padding of each format's arrays),
// flexibility (the work of adding one entry to the middle row), accessibility (the reads that
// reach row i and element (i, j)), memory access (how contiguous the SpMV kernel's warp requests
// are, in access_table.h's model) and load balance (entries per thread of the SpMV kernel).
//
// Build and run:  make 146_design_considerations_cpu_baseline
//                 build/146_design_considerations_cpu_baseline
//                 build/146_design_considerations_cpu_baseline --scale 16
//                 build/146_design_considerations_cpu_baseline --matrix data/west2021.mtx
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>
#include "../common/options.h"
#include "../common/self_check.h"
#include "../common/text.h"
#include "access_table.h"
#include "chapter_inputs.h"
#include "regular_formats.h"

// The CPU baseline: y = A * x + y0, one row after another, each row summed on its own.
inline std::vector<float> spmv_cpu(const HostCsr& a, const std::vector<float>& x,
                                   std::vector<float> y) {
    for (int r = 0; r < a.num_rows; ++r) {
        float sum = 0.0f;
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            sum += a.values[k] * x[a.col_idx[k]];
        y[r] += sum;
    }
    return y;
}

// ----------------------------------------------------------------------------- flexibility
// What adding one entry cost: entries moved to another index, slots written (the entry and any
// padding that came with it), and index entries (offsets, lengths, permutation...) changed.
struct InsertCost {
    size_t moved = 0, written = 0, index_updates = 0;
    std::string how;
};

// COO keeps no order, so a new entry goes at the end.
inline InsertCost insert_into_coo(HostCoo& a, int row, int col, float value) {
    a.rows.push_back(row);
    a.cols.push_back(col);
    a.values.push_back(value);
    return {0, 1, 0, "appended at the end"};
}

// CSR's rows are back to back: every entry of the later rows shifts one place to make room at
// the end of `row`, and every later row's offset grows by one.
inline InsertCost insert_into_csr(HostCsr& a, int row, int col, float value) {
    InsertCost cost;
    const int at = a.row_offsets[row + 1];
    cost.moved = a.nnz() - static_cast<size_t>(at);
    a.col_idx.insert(a.col_idx.begin() + at, col);
    a.values.insert(a.values.begin() + at, value);
    cost.written = 1;
    for (int r = row + 1; r <= a.num_rows; ++r) ++a.row_offsets[r];
    cost.index_updates = static_cast<size_t>(a.num_rows - row);
    cost.how = "the later rows' entries shift one place";
    return cost;
}

// A free slot in the row takes the entry. A full row makes the matrix one slot wider: in
// column-major order that is a new column of num_rows slots after the old ones, and slot
// (r, i) = i * num_rows + r keeps its index, which the copy below counts.
inline InsertCost insert_into_ell(HostEll& a, int row, int col, float value) {
    InsertCost cost;
    if (a.nnz_per_row[row] == a.width) {
        HostEll wider = a;
        wider.width = a.width + 1;
        const size_t slots = static_cast<size_t>(a.num_rows) * wider.width;
        wider.col_idx.assign(slots, kEllPadding);
        wider.values.assign(slots, 0.0f);
        for (int r = 0; r < a.num_rows; ++r)
            for (int i = 0; i < a.nnz_per_row[r]; ++i) {
                wider.col_idx[wider.slot(r, i)] = a.col_idx[a.slot(r, i)];
                wider.values[wider.slot(r, i)] = a.values[a.slot(r, i)];
                cost.moved += wider.slot(r, i) != a.slot(r, i);
            }
        cost.written = static_cast<size_t>(a.num_rows) - 1;  // the new column's padding
        cost.how = "row full: one more column of " + std::to_string(a.num_rows) + " slots";
        a = std::move(wider);
    } else {
        cost.how = "a free padding slot in the row";
    }
    const int i = a.nnz_per_row[row]++;
    a.col_idx[a.slot(row, i)] = col;
    a.values[a.slot(row, i)] = value;
    cost.written += 1;
    cost.index_updates = 1;
    return cost;
}

// The ELL part takes the entry if the row has a free slot; otherwise the COO part does.
inline InsertCost insert_into_hyb(HostHyb& h, int row, int col, float value) {
    if (h.ell.nnz_per_row[row] < h.ell.width) {
        InsertCost cost = insert_into_ell(h.ell, row, col, value);
        cost.how = "a free slot in the ELL part";
        return cost;
    }
    InsertCost cost = insert_into_coo(h.coo, row, col, value);
    cost.how = "ELL part full: appended to the COO part";
    return cost;
}

// The row grows from length L to L + 1. To keep the rows sorted it first trades places with the
// first row of length L (position q, the size of diagonal L): their L entries each change
// places. Its new entry then ends diagonal L (which holds positions 0 .. q - 1), or starts a new
// diagonal, and every entry after it shifts one place.
inline InsertCost insert_into_jds(HostJds& j, int row, int col, float value) {
    InsertCost cost;
    const int p =
        static_cast<int>(std::find(j.row_perm.begin(), j.row_perm.end(), row) - j.row_perm.begin());
    int length = 0;  // of the row: the diagonals that reach its position
    while (length < j.num_diagonals() && p < j.diagonal_size(length)) ++length;
    const int q = length < j.num_diagonals() ? j.diagonal_size(length) : 0;
    if (p != q) {
        for (int d = 0; d < length; ++d) {
            std::swap(j.col_idx[j.diag_ptrs[d] + p], j.col_idx[j.diag_ptrs[d] + q]);
            std::swap(j.values[j.diag_ptrs[d] + p], j.values[j.diag_ptrs[d] + q]);
        }
        std::swap(j.row_perm[p], j.row_perm[q]);
        cost.moved += 2 * static_cast<size_t>(length);
        cost.index_updates += 2;
    }
    if (length == j.num_diagonals()) {
        j.diag_ptrs.push_back(j.diag_ptrs.back());
        cost.index_updates += 1;
    }
    const int at = j.diag_ptrs[length + 1];
    cost.moved += j.nnz() - static_cast<size_t>(at);
    j.col_idx.insert(j.col_idx.begin() + at, col);
    j.values.insert(j.values.begin() + at, value);
    cost.written = 1;
    for (int d = length + 1; d <= j.num_diagonals(); ++d) ++j.diag_ptrs[d];
    cost.index_updates += static_cast<size_t>(j.num_diagonals() - length);
    cost.how =
        p != q ? "row swapped forward, then later entries shift" : "later entries shift one place";
    return cost;
}

// --------------------------------------------------------------------------- accessibility
// Reads of a format's arrays, counted as a lookup makes them: to know where all of row i's
// entries are, and to find the entry (i, j) (the first one, if duplicates exist).
struct Lookup {
    size_t reads_to_row = 0, reads_to_element = 0;
    bool found = false;
};

// As stored, COO's entries are in no order: only a pass over every entry's row index finds all
// of row i, and (i, j) is found by scanning until it turns up.
inline Lookup find_in_coo(const HostCoo& a, int row, int col) {
    Lookup l;
    l.reads_to_row = a.nnz();
    for (size_t k = 0; k < a.nnz() && !l.found; ++k) {
        ++l.reads_to_element;
        if (a.rows[k] != row) continue;
        ++l.reads_to_element;
        l.found = a.cols[k] == col;
    }
    return l;
}

// Sorted by row, COO's row i is found by two binary searches on the row indices.
inline Lookup find_in_row_sorted_coo(const HostCoo& a, int row, int col) {
    Lookup l;
    size_t reads = 0;
    auto bound = [&](bool upper) {
        size_t lo = 0, hi = a.nnz();
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            ++reads;
            if (upper ? a.rows[mid] <= row : a.rows[mid] < row)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    const size_t first = bound(false), last = bound(true);
    l.reads_to_row = l.reads_to_element = reads;
    for (size_t k = first; k < last && !l.found; ++k) {
        ++l.reads_to_element;
        l.found = a.cols[k] == col;
    }
    return l;
}

inline Lookup find_in_csr(const HostCsr& a, int row, int col) {
    Lookup l{2, 2, false};  // row_offsets[row] and row_offsets[row + 1]
    for (int k = a.row_offsets[row]; k < a.row_offsets[row + 1] && !l.found; ++k) {
        ++l.reads_to_element;
        l.found = a.col_idx[k] == col;
    }
    return l;
}

// The row's slots are at known indices; only its length must be read.
inline Lookup find_in_ell(const HostEll& a, int row, int col) {
    Lookup l{1, 1, false};
    for (int i = 0; i < a.nnz_per_row[row] && !l.found; ++i) {
        ++l.reads_to_element;
        l.found = a.col_idx[a.slot(row, i)] == col;
    }
    return l;
}

// A row that fills its ELL part may go on in the COO part, which is kept in no order (entries
// are appended to it), so the COO part is scanned.
inline Lookup find_in_hyb(const HostHyb& h, int row, int col) {
    Lookup l = find_in_ell(h.ell, row, col);
    if (h.ell.nnz_per_row[row] < h.ell.width) return l;
    const Lookup rest = find_in_coo(h.coo, row, col);
    l.reads_to_row += rest.reads_to_row;
    if (!l.found) {
        l.reads_to_element += rest.reads_to_element;
        l.found = rest.found;
    }
    return l;
}

// JDS stores where each sorted position's row came from, not where each row went: finding the
// row's position is a scan of row_perm. Its entries are then one per diagonal, in every
// diagonal that reaches that position; each diagonal's end is read to see whether it does.
inline Lookup find_in_jds(const HostJds& j, int row, int col) {
    Lookup l;
    size_t reads = 1;  // row_perm[0]
    int position = 0;
    while (j.row_perm[position] != row) ++position, ++reads;
    reads += 1;  // diag_ptrs[0]
    l.reads_to_row = l.reads_to_element = reads;
    for (int d = 0; d < j.num_diagonals(); ++d) {
        ++l.reads_to_row;  // diag_ptrs[d + 1]
        if (!l.found) ++l.reads_to_element;
        if (position >= j.diagonal_size(d)) break;
        if (l.found) continue;
        ++l.reads_to_element;
        l.found = j.col_idx[j.diag_ptrs[d] + position] == col;
    }
    return l;
}

// ---------------------------------------------------------------------------- the formats
struct Formats {
    HostCoo coo;
    HostCsr csr;
    bool ell_built = false;
    HostEll ell;
    HostHyb hyb;
    HostJds jds;
};

inline Formats build_formats(const HostCoo& input) {
    if (input.nnz() >= kAnnouncedSize)
        announce("building CSR, ELL, HYB and JDS from " + counted(input.nnz(), "entry", "entries"));
    Formats f;
    f.coo = input;
    f.csr = csr_from_coo_by_stable_sort(input);
    f.ell_built = ell_is_practical(f.csr);
    if (f.ell_built) f.ell = ell_from_csr(f.csr);
    f.hyb = hyb_from_csr(f.csr);
    f.jds = jds_from_csr(f.csr);
    return f;
}

// Bytes of the arrays as built, to set beside the formulas of regular_formats.h.
template <class... Arrays>
size_t array_bytes(const Arrays&... arrays) {
    return (size_t{0} + ... + (arrays.size() * sizeof(arrays[0])));
}
inline size_t built_bytes(const HostCoo& a) {
    return array_bytes(a.rows, a.cols, a.values);
}
inline size_t built_bytes(const HostCsr& a) {
    return array_bytes(a.row_offsets, a.col_idx, a.values);
}
inline size_t built_bytes(const HostEll& a) {
    return array_bytes(a.nnz_per_row, a.col_idx, a.values);
}
inline size_t built_bytes(const HostHyb& h) {
    return built_bytes(h.ell) + built_bytes(h.coo);
}
inline size_t built_bytes(const HostJds& j) {
    return array_bytes(j.row_perm, j.diag_ptrs, j.col_idx, j.values);
}

struct Balance {
    double max = 0, mean = 0, cv = 0;
};

inline Balance row_length_balance(const std::vector<int>& lengths) {
    Balance b;
    if (lengths.empty()) return b;
    double sum = 0, squares = 0;
    for (int n : lengths) {
        b.max = std::max<double>(b.max, n);
        sum += n;
        squares += static_cast<double>(n) * n;
    }
    b.mean = sum / lengths.size();
    if (b.mean > 0)
        b.cv = std::sqrt(std::max(0.0, squares / lengths.size() - b.mean * b.mean)) / b.mean;
    return b;
}

// Bytes of each format's arrays, beside regular_formats.h's formulas, and each format's entries
// against the input's.
inline void show_space(const Formats& f, const std::vector<Entry>& input_entries,
                       SelfCheck& check) {
    const HostCsr& csr = f.csr;
    const size_t nnz = csr.nnz();
    const int longest = max_row_length(csr);
    const size_t ell_formula = ell_bytes(csr.num_rows, longest);
    std::printf("space: bytes of the arrays (4-byte indices and values)\n");
    std::printf("  %-6s %15s %7s %14s   %s\n", "format", "bytes", "x CSR", "padding slots",
                "arrays");
    auto space_row = [&](const char* name, size_t bytes, size_t padding, const char* arrays) {
        std::printf("  %-6s %15s %7.2f %14s   %s\n", name, with_separators(bytes).c_str(),
                    static_cast<double>(bytes) / csr_bytes(csr), with_separators(padding).c_str(),
                    arrays);
    };
    space_row("COO", 12 * nnz, 0, "row, col, value: 3 x nnz");
    space_row("CSR", csr_bytes(csr), 0, "row_offsets: rows + 1; col_idx, value: nnz");
    space_row("ELL", ell_formula, static_cast<size_t>(csr.num_rows) * longest - nnz,
              f.ell_built ? "nnz_per_row: rows; col_idx, value: rows x width"
                          : "computed, not built: its padding passes 8x CSR");
    space_row("HYB", hyb_bytes(f.hyb), f.hyb.ell.num_slots() - (nnz - f.hyb.coo.nnz()),
              "ELL part: rows x its width; COO part");
    space_row("JDS", jds_bytes(f.jds), 0, "row_perm: rows; diag_ptrs; col_idx, value: nnz");
    std::printf("\n");

    const std::vector<int> lengths = row_lengths(csr);
    check.claim("the row lengths add up to nnz (" + with_separators(nnz) + ")",
                std::accumulate(lengths.begin(), lengths.end(), size_t{0}) == nnz);
    check.claim("COO's arrays take 12 x nnz bytes and CSR's 8 x nnz + 4 x (rows + 1)",
                built_bytes(f.coo) == 12 * nnz && built_bytes(csr) == csr_bytes(csr) &&
                    csr_bytes(csr) == 8 * nnz + 4 * (csr.num_rows + size_t{1}));
    const size_t ell_slots = static_cast<size_t>(csr.num_rows) * f.ell.width;
    if (f.ell_built)
        check.claim(
            "ELL's arrays take rows x width x 8 + rows x 4 bytes, and rows x width - nnz "
            "of its slots are padding",
            built_bytes(f.ell) == 8 * ell_slots + 4 * csr.num_rows &&
                built_bytes(f.ell) == ell_formula &&
                std::count(f.ell.col_idx.begin(), f.ell.col_idx.end(), kEllPadding) ==
                    static_cast<long>(ell_slots - nnz));
    else
        check.skip("ELL's arrays take rows x width x 8 + rows x 4 bytes",
                   "ELL is not built: " + readable_bytes(static_cast<double>(ell_formula)) + ", " +
                       readable_ratio(ell_to_csr_bytes(csr)) + " the CSR's bytes");
    check.claim("HYB's arrays take what its formula says, and its two parts hold nnz entries",
                built_bytes(f.hyb) == hyb_bytes(f.hyb) &&
                    coo_from_ell(f.hyb.ell).nnz() + f.hyb.coo.nnz() == nnz);
    check.claim(
        "JDS's arrays take 8 x nnz + 4 x rows + 4 x (diagonals + 1) bytes; it has one "
        "diagonal per entry of the longest row",
        built_bytes(f.jds) == jds_bytes(f.jds) &&
            jds_bytes(f.jds) == 8 * nnz + 4 * static_cast<size_t>(csr.num_rows) +
                                    4 * (f.jds.num_diagonals() + size_t{1}) &&
            f.jds.num_diagonals() == longest);
    if (nnz >= kAnnouncedSize) announce("comparing each format's entries with the input's");
    check.claim(
        "each format, converted back to a list of entries, holds the input's (as a multiset)",
        sorted_entries(csr) == input_entries &&
            (!f.ell_built || sorted_entries(coo_from_ell(f.ell)) == input_entries) &&
            sorted_entries(coo_from_hyb(f.hyb)) == input_entries &&
            sorted_entries(coo_from_jds(f.jds)) == input_entries);
}

// Adds the entry (row, 0) = 1 to a copy of each format, counting the work, and checks that each
// then holds the input's entries and the new one.
inline void show_flexibility(const Formats& f, int row, const std::vector<Entry>& input_entries,
                             SelfCheck& check) {
    const int new_col = 0;
    const float new_value = 1.0f;
    if (f.csr.nnz() >= kAnnouncedSize) announce("adding an entry to a copy of each format");
    std::printf(
        "flexibility: add the entry (%d, %d) = %g to row %d, the middle row, in each "
        "format; counted\n",
        row, new_col, static_cast<double>(new_value), row);
    std::printf("  %-6s %13s %13s %13s   %s\n", "format", "entries moved", "slots written",
                "index updates", "how");
    auto flex_row = [&](const char* name, const InsertCost& c) {
        std::printf("  %-6s %13s %13s %13s   %s\n", name, with_separators(c.moved).c_str(),
                    with_separators(c.written).c_str(), with_separators(c.index_updates).c_str(),
                    c.how.c_str());
    };
    std::vector<Entry> grown_entries = input_entries;
    grown_entries.emplace_back(row, new_col, new_value);
    std::sort(grown_entries.begin(), grown_entries.end());
    Formats grown = f;
    flex_row("COO", insert_into_coo(grown.coo, row, new_col, new_value));
    flex_row("CSR", insert_into_csr(grown.csr, row, new_col, new_value));
    if (f.ell_built)
        flex_row("ELL", insert_into_ell(grown.ell, row, new_col, new_value));
    else
        std::printf("  %-6s %13s %13s %13s   not built\n", "ELL", "-", "-", "-");
    flex_row("HYB", insert_into_hyb(grown.hyb, row, new_col, new_value));
    flex_row("JDS", insert_into_jds(grown.jds, row, new_col, new_value));
    std::printf("\n");
    if (f.csr.nnz() >= kAnnouncedSize) announce("comparing their entries with the input's");
    check.claim(
        "after adding the entry, every format holds the input's entries and the new "
        "one (as a multiset), and is still well formed",
        sorted_entries(grown.coo) == grown_entries && is_well_formed(grown.csr) &&
            sorted_entries(grown.csr) == grown_entries &&
            (!f.ell_built || (is_well_formed(grown.ell) &&
                              sorted_entries(coo_from_ell(grown.ell)) == grown_entries)) &&
            is_well_formed(grown.hyb.ell) &&
            sorted_entries(coo_from_hyb(grown.hyb)) == grown_entries && is_well_formed(grown.jds) &&
            sorted_entries(coo_from_jds(grown.jds)) == grown_entries);
}

// Looks up the last entry of the row, so that a scan of the row goes all the way; an empty
// row's lookup finds nothing, after the same reads.
inline void show_accessibility(const Formats& f, int row, SelfCheck& check) {
    const HostCsr& csr = f.csr;
    const bool row_empty = csr.row_offsets[row] == csr.row_offsets[row + 1];
    const int col = row_empty ? 0 : csr.col_idx[csr.row_offsets[row + 1] - 1];
    std::printf(
        "accessibility: reads of the format's arrays to know where all of row %d's entries "
        "are,\n  and to find (%d, %d)%s; counted\n",
        row, row, col, row_empty ? " (not there: the row is empty)" : "");
    std::printf("  %-19s %13s %13s\n", "format", "to row", "to entry");
    if (f.coo.nnz() >= kAnnouncedSize) announce("sorting a copy of the COO by row");
    bool all_found = true;
    auto access_row = [&](const char* name, const Lookup& l) {
        std::printf("  %-19s %13s %13s\n", name, with_separators(l.reads_to_row).c_str(),
                    with_separators(l.reads_to_element).c_str());
        all_found = all_found && l.found == !row_empty;
    };
    access_row("COO, as stored", find_in_coo(f.coo, row, col));
    access_row("COO, sorted by row", find_in_row_sorted_coo(sorted_by_row(f.coo), row, col));
    access_row("CSR", find_in_csr(csr, row, col));
    if (f.ell_built)
        access_row("ELL", find_in_ell(f.ell, row, col));
    else
        std::printf("  %-19s %13s %13s   not built\n", "ELL", "-", "-");
    access_row("HYB", find_in_hyb(f.hyb, row, col));
    access_row("JDS", find_in_jds(f.jds, row, col));
    std::printf("\n");
    check.claim(row_empty ? "no format finds an entry in the empty row"
                          : "every format finds the entry (" + std::to_string(row) + ", " +
                                std::to_string(col) + ")",
                all_found);
}

enum Kernel { kCoo, kCsr, kEll, kHyb, kJds, kNumKernels };
const char* const kKernelNames[kNumKernels][2] = {{"COO", "thread per entry"},
                                                  {"CSR", "thread per row"},
                                                  {"ELL", "thread per row"},
                                                  {"HYB", "ELL part, then COO part"},
                                                  {"JDS", "thread per sorted row"}};

// Each SpMV kernel in access_table.h's model, summed up, and whether each reads every stored
// entry once and no padding. ELL's pattern needs only the row lengths: it is modelled built or not.
struct KernelModels {
    std::vector<AccessStats> stats;  // indexed by Kernel
    bool reads_each_entry_once = false;
};

inline KernelModels model_kernels(const Formats& f) {
    const std::vector<int> lengths = row_lengths(f.csr);
    const CooThreadPerEntry coo(f.csr.nnz()), hyb_coo(f.hyb.coo.nnz());
    const CsrThreadPerRow csr(f.csr.row_offsets);
    const EllThreadPerRow ell(lengths), hyb_ell(f.hyb.ell.nnz_per_row);
    const JdsThreadPerPosition jds(f.jds.diag_ptrs, f.csr.num_rows);
    KernelModels m;
    m.stats = {access_stats(coo), access_stats(csr), access_stats(ell),
               combined(access_stats(hyb_ell), access_stats(hyb_coo)), access_stats(jds)};
    const std::vector<char> every_entry(f.csr.nnz(), 1), every_overflow_entry(f.hyb.coo.nnz(), 1);
    auto slots_in_use = [](const HostEll& e) {
        std::vector<char> used(e.num_slots(), 0);
        for (int r = 0; r < e.num_rows; ++r)
            for (int i = 0; i < e.nnz_per_row[r]; ++i) used[e.slot(r, i)] = 1;
        return used;
    };
    m.reads_each_entry_once = reads_each_entry_once(coo, every_entry) &&
                              reads_each_entry_once(csr, every_entry) &&
                              (f.ell_built ? reads_each_entry_once(ell, slots_in_use(f.ell))
                                           : m.stats[kEll].reads == f.csr.nnz()) &&
                              reads_each_entry_once(hyb_ell, slots_in_use(f.hyb.ell)) &&
                              reads_each_entry_once(hyb_coo, every_overflow_entry) &&
                              reads_each_entry_once(jds, every_entry);
    return m;
}

inline void show_memory_access(const std::vector<AccessStats>& stats) {
    std::printf(
        "memory access: the SpMV kernel's reads of the values, per warp request, in the\n"
        "  model of access_table.h (4-byte values, 32-byte sectors; ELL's from its row lengths)\n");
    std::printf("  %-6s %-24s %13s %11s %12s %10s %10s\n", "format", "kernel", "requests",
                "sectors/req", "fetched/used", "contiguous", "lanes busy");
    for (int k = 0; k < kNumKernels; ++k)
        std::printf("  %-6s %-24s %13s %11.2f %12.2f %9.1f%% %9.1f%%\n", kKernelNames[k][0],
                    kKernelNames[k][1], with_separators(stats[k].requests).c_str(),
                    stats[k].sectors_per_request(), stats[k].fetched_per_used(),
                    100 * stats[k].contiguous_fraction(), 100 * stats[k].lanes_busy());
    std::printf("\n");
}

inline void show_load_balance(const std::vector<AccessStats>& stats, const Balance& rows) {
    std::printf(
        "load balance: entries per thread of the SpMV kernel (row lengths: max %s, mean %.2f, CV "
        "%.2f)\n",
        with_separators(static_cast<size_t>(rows.max)).c_str(), rows.mean, rows.cv);
    std::printf("  %-6s %-24s %13s %13s %10s %8s\n", "format", "kernel", "threads", "max", "mean",
                "CV");
    for (int k = 0; k < kNumKernels; ++k)
        std::printf("  %-6s %-24s %13s %13s %10.2f %8.2f\n", kKernelNames[k][0], kKernelNames[k][1],
                    with_separators(stats[k].threads).c_str(),
                    with_separators(stats[k].max_work).c_str(), stats[k].mean_work(),
                    stats[k].work_cv());
    std::printf("\n");
}

inline void check_access(const Formats& f, const KernelModels& m, SelfCheck& check) {
    const std::vector<AccessStats>& stats = m.stats;
    check.claim("every format's kernel reads each stored entry exactly once, and no padding",
                m.reads_each_entry_once);
    check.claim(
        "every COO, ELL, HYB and JDS request is contiguous in the model",
        stats[kCoo].contiguous_fraction() == 1.0 && stats[kEll].contiguous_fraction() == 1.0 &&
            stats[kHyb].contiguous_fraction() == 1.0 && stats[kJds].contiguous_fraction() == 1.0);
    const size_t longest = static_cast<size_t>(max_row_length(f.csr)), nnz = f.csr.nnz();
    size_t hyb_ell_longest = 0;
    for (int n : f.hyb.ell.nnz_per_row) hyb_ell_longest = std::max(hyb_ell_longest, size_t(n));
    check.claim(
        "a thread's most work is the longest row for CSR, ELL and JDS, 1 entry for COO, "
        "and for HYB the ELL part's longest row (or 1)",
        stats[kCsr].max_work == longest && stats[kEll].max_work == longest &&
            stats[kJds].max_work == longest && stats[kCoo].max_work == (nnz > 0 ? 1u : 0u) &&
            stats[kHyb].max_work == std::max(hyb_ell_longest, f.hyb.coo.nnz() > 0 ? size_t{1} : 0));
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(
        argc, argv,
        ProgramDescription("146 (14.1-14.6) CPU baseline: the five design considerations, measured",
                           {"make 146_design_considerations_cpu_baseline",
                            "build/146_design_considerations_cpu_baseline",
                            "build/146_design_considerations_cpu_baseline --scale 16",
                            "build/146_design_considerations_cpu_baseline --matrix "
                            "data/west2021.mtx"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_memory({200, 76, 200e6}));
    const HostCoo input = spmv_input(options);
    const Formats f = build_formats(input);
    const HostCsr& csr = f.csr;
    const Balance rows = row_length_balance(row_lengths(csr));
    print_wrapped(with_separators(csr.num_rows) + " x " + with_separators(csr.num_cols) + ", " +
                  counted(csr.nnz(), "entry", "entries") + "; row lengths: max " +
                  with_separators(static_cast<size_t>(rows.max)) + ", mean " +
                  fixed_text(rows.mean, 2) + ", coefficient of variation " +
                  fixed_text(rows.cv, 2));
    print_wrapped("ELL width " + with_separators(max_row_length(csr)) + " (the longest row)" +
                  (f.ell_built ? "" : ", not built: see space") + "; HYB width " +
                  with_separators(f.hyb.ell.width) + " (a third of the rows reach it); JDS " +
                  counted(f.jds.num_diagonals(), "diagonal") + "\n");
    if (input.nnz() >= kAnnouncedSize) announce("sorting the input's entries, to compare with");
    const std::vector<Entry> input_entries = sorted_entries(input);

    SelfCheck check;
    show_space(f, input_entries, check);
    if (csr.num_rows == 0 || csr.num_cols == 0) {
        const std::string missing = csr.num_rows == 0 ? "rows" : "columns";
        print_wrapped("flexibility, accessibility: the matrix has no " + missing +
                      ", so there is no place to add an entry to or look one up\n");
        check.skip("after adding one entry, every format holds the input's entries and the new one",
                   "the matrix has no " + missing);
    } else {
        show_flexibility(f, csr.num_rows / 2, input_entries, check);
        show_accessibility(f, csr.num_rows / 2, check);
    }
    if (input.nnz() >= kAnnouncedSize) announce("modelling each SpMV kernel's warp requests");
    const KernelModels models = model_kernels(f);
    show_memory_access(models.stats);
    show_load_balance(models.stats, rows);
    check_access(f, models, check);

    const std::vector<float> x = lesson_x(csr.num_cols), y0 = lesson_y0(csr.num_rows);
    check.claim("the CPU SpMV y = A * x + y0 matches the reference",
                spmv_matches(spmv_cpu(csr, x, y0), spmv_reference(input, x, y0)));
    if (!options.book_example())
        check.end_with(
            spmv_result_line(input, spmv_cpu(csr, ones(csr.num_cols), zeros(csr.num_rows))));
    return check.finish();
}
#endif
