// 146 (14.1) CPU baseline: the five design considerations, measured on one matrix for COO,
// CSR, ELL, HYB, JDS and DIA instead of asserted: space (bytes and padding of each format's
// arrays), flexibility (the work of adding one entry to the middle row), accessibility (the reads
// that reach row i and element (i, j)), memory access (how contiguous the SpMV kernel's warp
// requests are, in request_model.h) and load balance (entries per thread of the SpMV
// kernel). Each format's y comes from its lesson's CPU loop (142 to 145), checked against the
// reference. Then which format: DIA where the entries lie on at most 1.5 x (2 nnz / (rows + 1) + 1)
// diagonals, about three per entry of the mean row, and CSR by merge path (148) everywhere else.
// Build and run:  make 146_design_considerations_cpu_baseline
//                 build/146_design_considerations_cpu_baseline
//                 build/146_design_considerations_cpu_baseline --scale 16
//                 build/146_design_considerations_cpu_baseline --matrix data/west2021.mtx
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include "../common/binary_search.h"
#include "../common/matrix_facts.h"
#include "request_model.h"
// 145's lesson, with 144's, 143's and 142's: the SpMV loop of each format, COO to JDS
#include "145_regular_formats_kernel.cu"

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

// The entry goes to its diagonal's slot in the row: a padding zero, or a value already there,
// which it is added to (DIA keeps one value per place). A place on no diagonal yet makes a new
// diagonal of num_rows slots, put in offset order: every diagonal after it moves num_rows slots
// along, with its values, and the offsets after it move one place.
inline InsertCost insert_into_dia(HostDia& a, int row, int col, float value) {
    InsertCost cost;
    const int offset = col - row;
    const int d = lower_bound_index(a.offsets.data(), a.num_diagonals(), offset);
    if (d == a.num_diagonals() || a.offsets[d] != offset) {
        for (size_t k = a.slot(0, d); k < a.num_slots(); ++k) cost.moved += a.data[k] != 0.0f;
        a.data.insert(a.data.begin() + static_cast<long>(a.slot(0, d)), a.num_rows, 0.0f);
        a.offsets.insert(a.offsets.begin() + d, offset);
        cost.written = static_cast<size_t>(a.num_rows) - 1;  // the new diagonal's padding
        cost.index_updates = static_cast<size_t>(a.num_diagonals() - d);
        cost.how = "new diagonal of " + std::to_string(a.num_rows) + " slots, later ones shift";
    } else {
        cost.how = a.data[a.slot(row, d)] == 0.0f ? "a padding slot on its diagonal"
                                                  : "added to the value in its slot";
    }
    a.data[a.slot(row, d)] += value;
    cost.written += 1;
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

// Sorted by row, COO's row i is found by two binary searches on the row indices, each probe of
// a row index one read.
inline Lookup find_in_row_sorted_coo(const HostCoo& a, int row, int col) {
    Lookup l;
    size_t reads = 0;
    const int nnz = static_cast<int>(a.nnz());
    const int first =
        partition_point_index(0, nnz, [&](int k) { return ++reads, a.rows[k] < row; });
    const int last =
        partition_point_index(0, nnz, [&](int k) { return ++reads, a.rows[k] <= row; });
    l.reads_to_row = l.reads_to_element = reads;
    for (int k = first; k < last && !l.found; ++k) {
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

// The row's slots are at d * num_rows + row, for the diagonals whose column falls inside the
// matrix: two binary searches of the offsets find them, and only their values tell an entry from
// a padding zero. The entry (i, j) is on diagonal j - i: one binary search, then its one slot.
inline Lookup find_in_dia(const HostDia& a, int row, int col) {
    Lookup l;
    const int n = a.num_diagonals();
    size_t reads = 0;
    auto first_at_least = [&](int key) {
        return partition_point_index(0, n, [&](int i) { return ++reads, a.offsets[i] < key; });
    };
    const int first = first_at_least(-row), last = first_at_least(a.num_cols - row);
    l.reads_to_row = reads + static_cast<size_t>(last - first);
    reads = 0;
    const int d = first_at_least(col - row);
    l.reads_to_element = reads;
    if (d < n && a.offsets[d] == col - row) {
        ++l.reads_to_element;
        l.found = a.data[a.slot(row, d)] != 0.0f;
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
    bool dia_built = false;
    HostDia dia;
};

inline Formats build_formats(const HostCoo& input) {
    if (input.nnz() >= kAnnouncedSize)
        announce("building CSR, ELL, HYB, JDS and DIA from " +
                 counted(input.nnz(), "entry", "entries"));
    Formats f;
    f.coo = input;
    f.csr = csr_from_coo_by_stable_sort(input);
    f.ell_built = ell_is_practical(f.csr);
    if (f.ell_built) f.ell = ell_from_csr(f.csr);
    f.hyb = hyb_from_csr(f.csr);
    f.jds = jds_from_csr(f.csr);
    f.dia_built = dia_is_practical(f.csr);
    if (f.dia_built) f.dia = dia_from_csr(f.csr);
    return f;
}

// Bytes of the arrays as built, to set beside the formulas of 145's lesson.
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
inline size_t built_bytes(const HostDia& d) {
    return array_bytes(d.offsets, d.data);
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

// Which format when, for any matrix: the rule that chapter 14's table ("Which format when" in
// notes/ch14_spmv.md, written from the sweep's CSV) points to, decided by the mean row length and
// the number of diagonals. DIA's slots cost 4 bytes for each row on each diagonal, CSR's 8 for
// each entry: DIA takes at most kDiaBytesLimit times CSR's bytes where the diagonals number at
// most about three per entry of the mean row. There every diagonal is read coalesced and no
// column index is moved, as on a stencil's 5 or 7 diagonals. Elsewhere CSR by merge path: it
// gives every thread the same share of rows and entries, whatever the rows' lengths, and it was
// the fastest of the suite's kernels on every R-MAT class of the table. The bandwidth does not
// decide: it bounds the diagonals (at most 2 x bandwidth + 1), yet a 2D stencil's is the grid's
// side, with 5 diagonals.
constexpr const char* kFormatRule =
    "DIA where the entries lie on at most 1.5 x (2 nnz / (rows + 1) + 1) diagonals, about three "
    "per entry of the mean row, so that DIA's slots take at most 1.5 times CSR's bytes; CSR by "
    "merge path (148) everywhere else";

inline double dia_diagonal_limit(double mean_row, int num_rows) {
    return kDiaBytesLimit * (2 * mean_row * num_rows / (num_rows + 1.0) + 1);
}

struct Recommendation {
    std::string format, reason;
};

inline Recommendation recommend_format(const StructureFacts& facts, int num_rows) {
    const double limit = dia_diagonal_limit(facts.mean_row, num_rows);
    const std::string diagonals = counted(static_cast<size_t>(facts.diagonals), "diagonal") +
                                  ", the limit " + fixed_text(limit, 1) + " for a mean row of " +
                                  fixed_text(facts.mean_row, 2);
    if (facts.diagonals <= limit)
        return {"DIA (145)", diagonals +
                                 ": every diagonal is read coalesced and no column index "
                                 "is moved, as on the stencils"};
    return {"CSR by merge path (148)",
            diagonals +
                ": the merge path gives every thread the same work whatever the rows' "
                "lengths, as on every R-MAT class of the sweep"};
}

enum Kernel { kCoo, kCsr, kEll, kHyb, kJds, kDia, kNumKernels };
const char* const kKernelNames[kNumKernels][2] = {
    {"COO", "thread per entry"},      {"CSR", "thread per row"},
    {"ELL", "thread per row"},        {"HYB", "ELL part, then COO part"},
    {"JDS", "thread per sorted row"}, {"DIA", "thread per row"}};

// DIA, one thread per row: in step d thread t reads slot d * num_rows + t, if its column is
// inside the matrix. A thread that sits out a step and takes the next fits none of
// 144's and 145's mappings (each thread busy in its first steps), so each step is a mapping of
// its own, with one read for each thread whose column is inside.
class DiaStep {
public:
    DiaStep(const HostDia& a, int d) : a_(a), d_(d) {}
    size_t num_threads() const { return static_cast<size_t>(a_.num_rows); }
    int length(size_t t) const { return a_.inside(static_cast<int>(t), d_) ? 1 : 0; }
    long long element(size_t t, int) const {
        return static_cast<long long>(a_.slot(static_cast<int>(t), d_));
    }

private:
    const HostDia& a_;
    int d_;
};

// The steps one after the other, and a thread's work its count of slots inside the matrix.
inline AccessStats dia_access_stats(const HostDia& a) {
    AccessStats s;
    for (int d = 0; d < a.num_diagonals(); ++d) s = combined(s, access_stats(DiaStep(a, d)));
    s.threads = static_cast<size_t>(a.num_rows);
    s.max_work = 0;
    s.work_squares = 0;
    for (int r = 0; r < a.num_rows; ++r) {
        size_t work = 0;
        for (int d = 0; d < a.num_diagonals(); ++d) work += a.inside(r, d);
        s.max_work = std::max(s.max_work, work);
        s.work_squares += static_cast<double>(work) * static_cast<double>(work);
    }
    return s;
}

// Each SpMV kernel in request_model.h, summed up, and whether each reads every stored
// entry once and no padding. ELL's pattern needs only the row lengths: it is modelled built or not.
// DIA's needs its slots, so it is modelled where DIA is built.
struct KernelModels {
    std::vector<AccessStats> stats;  // indexed by Kernel
    bool reads_each_entry_once = false;
    bool dia_modelled = false;
};

inline KernelModels model_kernels(const Formats& f) {
    const std::vector<int> lengths = row_lengths(f.csr);
    const CooThreadPerEntry coo(f.csr.nnz()), hyb_coo(f.hyb.coo.nnz());
    const CsrThreadPerRow csr(f.csr.row_offsets);
    const EllThreadPerRow ell(lengths), hyb_ell(f.hyb.ell.nnz_per_row);
    const JdsThreadPerPosition jds(f.jds.diag_ptrs, f.csr.num_rows);
    KernelModels m;
    m.stats = {access_stats(coo), access_stats(csr),
               access_stats(ell), combined(access_stats(hyb_ell), access_stats(hyb_coo)),
               access_stats(jds), f.dia_built ? dia_access_stats(f.dia) : AccessStats()};
    m.dia_modelled = f.dia_built;
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

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/146_design_considerations_cpu_baseline.h"

int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(argc, argv, design_considerations_program());
    SelfCheck check;
    const HostCoo input = spmv_input(options);
    const Formats f = build_formats(input);
    const Balance rows = row_length_balance(row_lengths(f.csr));
    show_matrix_summary(f, rows);
    if (input.nnz() >= kAnnouncedSize) announce("sorting the input's entries, to compare with");
    const std::vector<Entry> input_entries = sorted_entries(input);

    show_and_check_space(f, input_entries, check);
    if (check_room_for_an_entry(f, check)) {
        const int middle = f.csr.num_rows / 2;  // the row that takes an entry and the lookups
        check_flexibility(show_flexibility(f, middle), middle, input_entries, check);
        check_accessibility(f, middle, check);
    }
    if (input.nnz() >= kAnnouncedSize) announce("modelling each SpMV kernel's warp requests");
    const KernelModels models = model_kernels(f);
    show_memory_access_and_load_balance(models);
    check_access(f, models, check);

    const std::vector<float> x = lesson_x(f.csr.num_cols), y0 = lesson_y0(f.csr.num_rows);
    std::vector<float> y_coo = y0, y_csr = y0, y_ell = y0, y_hyb = y0, y_jds = y0, y_dia = y0;
    spmv_coo_cpu(f.coo, x, y_coo);
    spmv_csr_cpu(f.csr, x, y_csr);
    if (f.ell_built) spmv_ell_cpu(f.ell, x, y_ell);
    spmv_hyb_cpu(f.hyb, x, y_hyb);
    spmv_jds_cpu(f.jds, x, y_jds);
    if (f.dia_built) spmv_dia_cpu(f.dia, x, y_dia);
    check_products(f, spmv_reference(input, x, y0), {y_coo, y_csr, y_ell, y_hyb, y_jds, y_dia},
                   check);
    show_and_check_recommendation(structure_facts(input), f, check);
    if (!options.book_example()) {
        std::vector<float> y_of_ones = zeros(f.csr.num_rows);
        spmv_csr_cpu(f.csr, ones(f.csr.num_cols), y_of_ones);
        check.end_with(spmv_result_line(input, y_of_ones));
    }
    return check.finish();
}
#endif
