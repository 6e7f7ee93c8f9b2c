// 145 (14.4) kernel: the regularized formats, each converted from CSR, converted back to check
// that no entry was lost or made up, and multiplied by its own kernel, one thread per row:
//   ELL  (144's kernel) rows padded to the longest, column-major; unaffordable when skewed.
//   HYB  ELL only as wide as a third of the rows reach; the rest in COO (142's kernel, atomics).
//   JDS  rows sorted longest first, stored as jagged diagonals: contiguous, and no padding.
//   DIA  each diagonal that holds an entry, a slot per row: no column indices; not built past
//        1.5 times the CSR's bytes, where its padding would cost more than it saves.
// Build and run:  make 145_regular_formats_kernel && build/145_regular_formats_kernel
//                 build/145_regular_formats_kernel --scale 20 --skew 0.3
//                 build/145_regular_formats_kernel --matrix data/1138_bus.mtx
#ifndef REGULAR_FORMATS_KERNEL_145  // 146 takes its formats and baselines
#define REGULAR_FORMATS_KERNEL_145
#include <functional>
// 144's lesson: ELL, its kernel and baseline, and with them 142's COO and 143's CSR lessons
#include "144_coalescing_kernel.cu"

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

// HYB: ELL up to a width chosen from the row lengths; the entries past it, which only the longer
// rows have, kept as COO.

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

// HYB's CPU baseline, in the shape of its two launches: the ELL part's rows, then the COO part's
// entries, added into the same y.
inline void spmv_hyb_cpu(const HostHyb& a, const std::vector<float>& x, std::vector<float>& y) {
    spmv_ell_cpu(a.ell, x, y);
    spmv_coo_cpu(a.coo, x, y);
}

// JDS: rows sorted by length, longest first, and stored one "jagged diagonal" after another:
// diagonal d holds the d-th entry of every row that has one, consecutive across threads, and
// with no padding at all.

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

// JDS, one thread per sorted position: thread t reads diag_ptrs[d] + t in step d, while
// diagonal d is longer than t.
class JdsThreadPerPosition {
public:
    JdsThreadPerPosition(const std::vector<int>& diag_ptrs, int num_rows)
        : diag_ptrs_(diag_ptrs), lengths_(num_rows, 0) {
        for (size_t d = 0; d + 1 < diag_ptrs.size(); ++d)
            for (int t = 0; t < diag_ptrs[d + 1] - diag_ptrs[d]; ++t) ++lengths_[t];
    }
    size_t num_threads() const { return lengths_.size(); }
    int length(size_t t) const { return lengths_[t]; }
    long long element(size_t t, int i) const { return diag_ptrs_[i] + static_cast<long long>(t); }

private:
    const std::vector<int>& diag_ptrs_;
    std::vector<int> lengths_;
};

// JDS's CPU baseline, in the kernel's shape: sorted position after sorted position, each taking
// its row's entries one diagonal after the next, as far as the diagonals reach its position.
inline void spmv_jds_cpu(const HostJds& a, const std::vector<float>& x, std::vector<float>& y) {
    for (int t = 0; t < a.num_rows; ++t) {
        float sum = 0.0f;
        for (int d = 0; d < a.num_diagonals() && t < a.diagonal_size(d); ++d) {
            const int k = a.diag_ptrs[d] + t;
            sum += a.values[k] * x[a.col_idx[k]];
        }
        y[a.row_perm[t]] += sum;
    }
}

// DIA: one array per diagonal of the matrix (column - row constant) that holds an entry, one
// slot per row, stored column-major: no column indices at all, and padding wherever a diagonal
// is shorter than the matrix or has gaps.

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

// DIA's CPU baseline, in the kernel's shape: row after row, each taking the diagonals in order,
// those whose column falls inside the matrix.
inline void spmv_dia_cpu(const HostDia& a, const std::vector<float>& x, std::vector<float>& y) {
    for (int row = 0; row < a.num_rows; ++row) {
        float sum = 0.0f;
        for (int d = 0; d < a.num_diagonals(); ++d)
            if (a.inside(row, d)) sum += a.data[a.slot(row, d)] * x[row + a.offsets[d]];
        y[row] += sum;
    }
}

// The kernel; 146, compiled as plain C++, takes the baselines alone
#if defined(__CUDACC__) || defined(SUITE_EMULATOR_ONLY)

// HYB, JDS and DIA where the kernels run (see common/here.cuh).
// The ELL part, then the COO part.
struct DeviceHyb {
    DeviceHyb(const Here& here, const HostHyb& h) : ell(here, h.ell), coo(here, h.coo) {}
    DeviceEll ell;
    DeviceCoo coo;
};

struct DeviceJds {
    DeviceJds(const Here& here, const HostJds& j)
        : num_rows(j.num_rows),
          num_diagonals(j.num_diagonals()),
          row_perm(here, j.row_perm),
          diag_ptrs(here, j.diag_ptrs),
          col_idx(here, j.col_idx),
          values(here, j.values) {}
    int num_rows, num_diagonals;
    DeviceArray<int> row_perm, diag_ptrs, col_idx;
    DeviceArray<float> values;
};

// The offsets, one per diagonal, and the slots column-major.
struct DeviceDia {
    DeviceDia(const Here& here, const HostDia& d)
        : num_rows(d.num_rows),
          num_cols(d.num_cols),
          num_diagonals(d.num_diagonals()),
          offsets(here, d.offsets),
          data(here, d.data) {}
    int num_rows, num_cols, num_diagonals;
    DeviceArray<int> offsets;
    DeviceArray<float> data;
};

// JDS, one thread per sorted position: thread t holds row row_perm[t] and reads, in step d,
// entry diag_ptrs[d] + t of the d-th diagonal. The threads of a warp read consecutive entries,
// and as the rows are sorted, neighbouring threads stop at nearly the same step. row_perm is a
// permutation, so each row has one thread and the += needs no atomic.
__host__ __device__ inline void spmv_jds_thread(int t, const int* row_perm, int num_diagonals,
                                                const int* diag_ptrs, const int* col_idx,
                                                const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int d = 0; d < num_diagonals && t < diag_ptrs[d + 1] - diag_ptrs[d]; ++d) {
        const int k = diag_ptrs[d] + t;
        sum += values[k] * x[col_idx[k]];
    }
    y[row_perm[t]] += sum;
}

__global__ void spmv_jds_kernel(int num_rows, const int* row_perm, int num_diagonals,
                                const int* diag_ptrs, const int* col_idx, const float* values,
                                const float* x, float* y) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_rows) spmv_jds_thread(t, row_perm, num_diagonals, diag_ptrs, col_idx, values, x, y);
}

// One thread per row, in blocks of 256 threads, as many blocks as cover the rows.
inline void launch_spmv_jds(const Here& here, DeviceJds& a, const float* x, float* y) {
    const unsigned threads = 256;
    const unsigned blocks = (a.num_rows + threads - 1) / threads;
    here.launch(blocks, threads, spmv_jds_kernel, spmv_jds_thread, a.num_rows, a.row_perm.data(),
                a.num_diagonals, a.diag_ptrs.data(), a.col_idx.data(), a.values.data(), x, y);
}

// DIA, one thread per row: in step d, thread `row` reads slot d * num_rows + row and
// x[row + offsets[d]], so a warp's threads read consecutive addresses of both, coalesced by
// construction; the offset is one number for the whole warp, and there is no column index to
// load. The price is the padding: every thread steps through every diagonal, and the zeros
// inside the matrix are read and multiplied like entries. One thread per row: no atomic.
__host__ __device__ inline float dia_product(int row, int d, int num_rows, int num_cols,
                                             const int* offsets, const float* data,
                                             const float* x) {
    const int col = row + offsets[d];
    return col >= 0 && col < num_cols ? data[static_cast<size_t>(d) * num_rows + row] * x[col]
                                      : 0.0f;
}

// A loop whose count the compiler knows. A stencil's rows take only 5 or 7 steps, too
// few for a loop that reads its count at run time to keep loads in flight: each step's loads
// wait for the step before. With kDiagonals fixed, the loop is unrolled, every step's loads are
// issued before the first product is added. On an H200 the 5-point matrix's kernel fell from
// 0.051 to 0.039 ms and the 7-point one's from 0.066 to 0.045 (notes/ch14_spmv.md, "DIA at
// scale"). kDiagonals = 0: the count is num_diagonals, read at run time, for matrices with more
// diagonals than kMostUnrolledDiagonals.
constexpr int kMostUnrolledDiagonals = 8;

template <int kDiagonals>
__host__ __device__ inline void spmv_dia_thread(int row, int num_rows, int num_cols,
                                                int num_diagonals, const int* offsets,
                                                const float* data, const float* x, float* y) {
    float sum = 0.0f;
    if constexpr (kDiagonals > 0) {
        UNROLL_ON_DEVICE
        for (int d = 0; d < kDiagonals; ++d)
            sum += dia_product(row, d, num_rows, num_cols, offsets, data, x);
    } else {
        for (int d = 0; d < num_diagonals; ++d)
            sum += dia_product(row, d, num_rows, num_cols, offsets, data, x);
    }
    y[row] += sum;
}

template <int kDiagonals>
__global__ void spmv_dia_kernel(int num_threads, int num_rows, int num_cols, int num_diagonals,
                                const int* offsets, const float* data, const float* x, float* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_threads)
        spmv_dia_thread<kDiagonals>(row, num_rows, num_cols, num_diagonals, offsets, data, x, y);
}

// The kernel of the matrix's own count of diagonals, up to kMostUnrolledDiagonals; past it, the
// loop that reads the count.
template <int kDiagonals = 1>
inline void launch_spmv_dia(const Here& here, DeviceDia& a, const float* x, float* y) {
    if constexpr (kDiagonals <= kMostUnrolledDiagonals) {
        if (a.num_diagonals != kDiagonals) return launch_spmv_dia<kDiagonals + 1>(here, a, x, y);
    }
    constexpr int kCount = kDiagonals <= kMostUnrolledDiagonals ? kDiagonals : 0;
    const unsigned threads = 256;
    const unsigned blocks = (a.num_rows + threads - 1) / threads;
    here.launch(blocks, threads, spmv_dia_kernel<kCount>, spmv_dia_thread<kCount>, a.num_rows,
                a.num_rows, a.num_cols, a.num_diagonals, a.offsets.data(), a.data.data(), x, y);
}

// Two launches, in order: the ELL part adds each row's first entries with a plain +=, then the
// COO part adds the long rows' remaining entries with atomics (several may share a row). On the
// GPU one stream orders the launches; the emulator finishes every ELL thread before the first
// COO thread, as the second launch would.
inline void launch_spmv_hyb(const Here& here, DeviceHyb& a, const float* x, float* y) {
    launch_spmv_ell(here, a.ell, x, y);
    launch_spmv_coo(here, a.coo, x, y);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/145_regular_formats_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, regular_formats_program());
    const SpmvLessonInput in = spmv_lesson_input(p.options);
    const InputEntries entries(in.coo);
    show_csr_bytes(in.csr);

    SelfCheck check;
    const std::optional<HostEll> ell = ell_if_practical(in.csr);
    show_and_check_ell(p, in.csr, ell, entries, check);
    const HostHyb hyb = hyb_from_csr(in.csr);
    show_and_check_hyb(p, in.csr, hyb, entries, check);
    const HostJds jds = jds_from_csr(in.csr);
    show_and_check_jds(p, in.csr, jds, entries, check);
    const std::optional<HostDia> dia = dia_if_practical(in.csr);
    show_and_check_dia(p, in.csr, dia, check);

    if (in.csr.nnz() >= kAnnouncedSize) announce("multiplying in each format");
    const std::vector<SpmvRun> runs = {
        ell ? spmv_run(p.here, "ELL kernel", launch_spmv_ell, spmv_ell_cpu, *ell, in.x, in.y0)
            : SpmvRun{"ELL kernel", {}, {}, ell_not_built(in.csr)},
        spmv_run(p.here, "HYB kernel pair", launch_spmv_hyb, spmv_hyb_cpu, hyb, in.x, in.y0),
        spmv_run(p.here, "JDS kernel", launch_spmv_jds, spmv_jds_cpu, jds, in.x, in.y0),
        dia ? spmv_run(p.here, "DIA kernel", launch_spmv_dia<>, spmv_dia_cpu, *dia, in.x, in.y0)
            : SpmvRun{"DIA kernel", {}, {}, dia_not_built(dia_size(in.csr))}};
    check_runs(p, in, runs, check);
    compare_with_library(p, in, ell, hyb, jds, dia, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(in.coo, spmv_on_device(p.here, launch_spmv_jds, jds,
                                                               ones(in.csr.num_cols),
                                                               zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__ || SUITE_EMULATOR_ONLY
#endif  // REGULAR_FORMATS_KERNEL_145
