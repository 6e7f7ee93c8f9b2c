// 14.4-14.6, kernel: the regularized formats, each converted from CSR and multiplied by its own
// kernel, one thread per row (or per sorted row), no atomics except where COO is used.
//   ELL  pads every row to the longest and stores the slots column-major: in step i the threads
//        of a warp read consecutive slots. On a skewed matrix the padding is unaffordable.
//   HYB  keeps ELL only as wide as most rows need (a width read off the row lengths) and puts
//        the long rows' remaining entries in COO, run after the ELL kernel with COO's atomics.
//   JDS  sorts the rows longest first and stores jagged diagonals: no padding, still contiguous
//        across threads, and the threads of a warp have rows of similar length.
// Every conversion is undone (back to a list of entries) to check that no entry was lost or
// made up; every y is checked against the CPU reference; at --scale on a GPU each kernel is
// timed beside cuSPARSE in the same run.
//
// Build and run:  make 145_regular_formats_kernel && build/145_regular_formats_kernel
//                 build/145_regular_formats_kernel --scale 20 --skew 0.3
//                 build/145_regular_formats_kernel --matrix data/1138_bus.mtx
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "regular_formats.h"
#include "spmv_bodies.cuh"

namespace regularized {

// Not zero, so that a kernel that stores into y instead of adding to it fails the check.
std::vector<float> starting_y(int n) {
    std::vector<float> y(n);
    for (int i = 0; i < n; ++i) y[i] = 0.5f * static_cast<float>(i % 3);
    return y;
}

// Fig. 14.1 in each format, worked out by hand from the figure (row lengths 2 3 2 1) and the
// formats' definitions.
constexpr int kFigEllWidth = 3;         // the longest row, row 1
constexpr int kFigEllPaddingSlots = 4;  // 4 rows x 3 slots - 8 entries
constexpr int kFigHybWidth = 2;         // 3 of the 4 rows have 2 or more entries, 1 has 3
const std::vector<Entry> kFigHybCooPart = {{1, 3, 9.0f}};  // row 1's third entry
const std::vector<int> kFigJdsRowPerm = {1, 0, 2, 3};      // lengths 3, 2, 2, 1; ties by row
// 4 rows have a first entry, 3 a second, 1 a third.
const std::vector<int> kFigJdsDiagPtrs = {0, 4, 7, 8};

// JDS, one thread per sorted position: thread t holds row row_perm[t] and reads, in step d,
// entry diag_ptrs[d] + t of the d-th diagonal. The threads of a warp read consecutive entries,
// and as the rows are sorted, neighbouring threads stop at nearly the same step. row_perm is a
// permutation, so each row has one thread and the += needs no atomic.
__host__ __device__ inline void spmv_jds_thread(int t, const int* row_perm, int num_diagonals,
                                                const int* diag_ptrs, const int* cols,
                                                const float* values, const float* x, float* y) {
    float sum = 0.0f;
    for (int d = 0; d < num_diagonals && t < diag_ptrs[d + 1] - diag_ptrs[d]; ++d) {
        const int k = diag_ptrs[d] + t;
        sum += values[k] * x[cols[k]];
    }
    y[row_perm[t]] += sum;
}

__global__ void spmv_jds_kernel(int num_rows, const int* row_perm, int num_diagonals,
                                const int* diag_ptrs, const int* cols, const float* values,
                                const float* x, float* y) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_rows) spmv_jds_thread(t, row_perm, num_diagonals, diag_ptrs, cols, values, x, y);
}

struct DeviceJds {
    explicit DeviceJds(const HostJds& j)
        : num_rows(j.num_rows), num_diagonals(j.num_diagonals()), row_perm(j.row_perm),
          diag_ptrs(j.diag_ptrs), col_idx(j.col_idx), values(j.values) {}
    void spmv(const float* x, float* y) {
        if (num_rows == 0) return;
        spmv_jds_kernel<<<blocks_for(num_rows), kThreadsPerBlock>>>(
            num_rows, row_perm.data(), num_diagonals, diag_ptrs.data(), col_idx.data(),
            values.data(), x, y);
        CUDA_CHECK_LAUNCH();
    }
    int num_rows, num_diagonals;
    DeviceBuffer<int> row_perm, diag_ptrs, col_idx;
    DeviceBuffer<float> values;
};

// HYB is two launches on one stream: the ELL part writes each row's partial sum with a plain
// +=, then the COO part adds the long rows' remaining entries with atomics (several of them
// may belong to one row). The stream orders the launches, so the two never overlap.
struct DeviceHyb {
    explicit DeviceHyb(const HostHyb& h) : ell(h.ell), coo(h.coo) {}
    void spmv(const float* x, float* y) {
        ell.spmv(x, y);
        coo.spmv(x, y);
    }
    DeviceEll ell;
    DeviceCooMatrix coo;
};

std::vector<float> spmv_hyb_gpu(const HostHyb& h, const std::vector<float>& x,
                                const std::vector<float>& y0) {
    DeviceHyb d(h);
    return spmv_on_gpu(x, y0, [&](const float* dx, float* dy) { d.spmv(dx, dy); });
}

std::vector<float> spmv_jds_gpu(const HostJds& j, const std::vector<float>& x,
                                const std::vector<float>& y0) {
    DeviceJds d(j);
    return spmv_on_gpu(x, y0, [&](const float* dx, float* dy) { d.spmv(dx, dy); });
}

// The per-thread bodies on the host: HYB's COO part starts after every ELL thread has finished,
// as the second launch does on the device.
std::vector<float> spmv_hyb_emulated(const HostHyb& h, const std::vector<float>& x,
                                     const std::vector<float>& y0, const ThreadOrder& order) {
    std::vector<float> y = spmv_ell_emulated(h.ell, x, y0, order);
    emulate_threads(h.coo.nnz(), order, [&](int k) {
        spmv_coo_thread(k, h.coo.rows.data(), h.coo.cols.data(), h.coo.values.data(), x.data(),
                        y.data());
    });
    return y;
}

std::vector<float> spmv_jds_emulated(const HostJds& j, const std::vector<float>& x,
                                     std::vector<float> y, const ThreadOrder& order) {
    emulate_threads(j.num_rows, order, [&](int t) {
        spmv_jds_thread(t, j.row_perm.data(), j.num_diagonals(), j.diag_ptrs.data(),
                        j.col_idx.data(), j.values.data(), x.data(), y.data());
    });
    return y;
}

// How many rows have at least `length` entries.
size_t rows_with_at_least(const std::vector<int>& lengths, int length) {
    return static_cast<size_t>(
        std::count_if(lengths.begin(), lengths.end(), [&](int n) { return n >= length; }));
}

// The rule of hyb_ell_width, checked by counting: at least a third of the rows reach the
// width, fewer than a third go past it. A matrix with no rows has width 0.
bool follows_hyb_rule(const std::vector<int>& lengths, int width) {
    if (lengths.empty()) return width == 0;
    return 3 * rows_with_at_least(lengths, width) >= lengths.size() &&
           3 * rows_with_at_least(lengths, width + 1) < lengths.size();
}

bool sorted_longest_first(const HostJds& j, const std::vector<int>& lengths) {
    for (size_t t = 1; t < j.row_perm.size(); ++t)
        if (lengths[j.row_perm[t - 1]] < lengths[j.row_perm[t]]) return false;
    return true;
}

// The input's entries, sorted once, for comparing each format's entries with, as multisets.
struct InputEntries {
    explicit InputEntries(const HostCoo& a)
        : num_rows(a.num_rows), num_cols(a.num_cols), sorted(sorted_entries(a)) {}
    bool held_by(const HostCoo& got) const {
        return got.num_rows == num_rows && got.num_cols == num_cols &&
               sorted_entries(got) == sorted;
    }
    int num_rows, num_cols;
    std::vector<Entry> sorted;
};

}  // namespace regularized

#ifndef LESSON_WITHOUT_MAIN
// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{128, 108, 1000e6};

int main(int argc, char** argv) {
    using namespace regularized;
    const KernelProgram p = start_kernel_program(
        argc, argv,
        "145 (14.4-14.6) kernel: ELL, HYB and JDS, converted from CSR, one kernel each");
    const HostCoo input = spmv_input(p.options, kMemory);
    const HostCsr csr = csr_from_coo_by_stable_sort(input);
    const std::vector<int> lengths = row_lengths(csr);
    const bool small = csr.num_rows <= 8 && csr.nnz() <= 40;
    const bool book = p.options.book_example();
    const bool timed = p.on_gpu() && p.options.scale > 0;
    const InputEntries input_entries(input);
    SelfCheck check;
    if (small) {
        std::printf("CSR:\n");
        print_array("row_ptrs", csr.row_offsets, 8);
        print_array("col_idx", csr.col_idx, 8);
        print_array("value", csr.values, 8);
    }
    std::printf("%d rows, %zu entries; CSR takes %zu bytes\n\n", csr.num_rows, csr.nnz(),
                csr_bytes(csr));

    // ELL ----------------------------------------------------------------------------------
    const bool ell_built = ell_is_practical(csr);
    const int longest = max_row_length(csr);
    HostEll ell;
    const std::string ell_skip_reason = "ELL is not built: its padding would take " +
                                        readable_ratio(ell_to_csr_bytes(csr)) + " the CSR's bytes";
    if (ell_built) {
        ell = ell_from_csr(csr);
        const size_t padding = ell.num_slots() - csr.nnz();
        std::printf(
            "ELL: every row padded to the longest, %d slots; slot (row, i) at i * %d + row\n",
            ell.width, ell.num_rows);
        if (small) {
            print_array("nnz_per_row", ell.nnz_per_row, 11);
            print_array("ell_col_idx", ell.col_idx, 11);
            print_array("ell_values", ell.values, 11);
            std::printf("  (padding: column %d, value 0; each thread stops at its nnz_per_row)\n",
                        kEllPadding);
        }
        std::printf(
            "  %zu slots, %zu of them padding (%.1f%%); %zu bytes, %.2f times the CSR's\n\n",
            ell.num_slots(), padding, ell.num_slots() ? 100.0 * padding / ell.num_slots() : 0.0,
            ell_bytes(ell.num_rows, ell.width), ell_to_csr_bytes(csr));
        check.claim("ELL converted back holds the input's entries (as a multiset), its padding "
                    "marked and zero",
                    is_well_formed(ell) && input_entries.held_by(coo_from_ell(ell)));
        if (book)
            check.claim("ELL of Fig. 14.1 has width 3 (row 1's length) and 4 padding slots",
                        ell.width == kFigEllWidth &&
                            static_cast<int>(padding) == kFigEllPaddingSlots);
    } else {
        std::printf("ELL: the longest row has %d entries; padding all %d rows to it would take\n"
                    "  %s, %s the CSR's bytes. Past %.0fx ELL is not built (the rows are never\n"
                    "  trimmed to make it fit): HYB below is the remedy.\n\n",
                    longest, csr.num_rows,
                    readable_bytes(static_cast<double>(ell_bytes(csr.num_rows, longest))).c_str(),
                    readable_ratio(ell_to_csr_bytes(csr)).c_str(), kEllPaddingLimit);
        check.skip("ELL converted back holds the input's entries", ell_skip_reason);
    }

    // HYB ----------------------------------------------------------------------------------
    const HostHyb hyb = hyb_from_csr(csr);
    const int width = hyb.ell.width;
    std::printf(
        "HYB: ELL width %d, the largest width that at least a third of the rows reach\n"
        "  (rows with %d or more entries: %zu of %d; with %d or more: %zu); the rest in COO\n",
        width, width, rows_with_at_least(lengths, width), csr.num_rows, width + 1,
        rows_with_at_least(lengths, width + 1));
    if (small) {
        print_array("nnz_per_row", hyb.ell.nnz_per_row, 11);
        print_array("ell_col_idx", hyb.ell.col_idx, 11);
        print_array("ell_values", hyb.ell.values, 11);
        print_array("coo_row", hyb.coo.rows, 11);
        print_array("coo_col", hyb.coo.cols, 11);
        print_array("coo_value", hyb.coo.values, 11);
    }
    std::printf("  ELL part: %zu entries in %zu slots; COO part: %zu entries (%.1f%% of all);\n"
                "  %zu bytes, %.2f times the CSR's\n\n",
                csr.nnz() - hyb.coo.nnz(), hyb.ell.num_slots(), hyb.coo.nnz(),
                csr.nnz() ? 100.0 * hyb.coo.nnz() / csr.nnz() : 0.0, hyb_bytes(hyb),
                static_cast<double>(hyb_bytes(hyb)) / csr_bytes(csr));
    if (width == 0 && csr.nnz() > 0)
        std::printf("  (width 0: fewer than a third of the rows have an entry at all, so on this\n"
                    "  matrix HYB is COO)\n\n");
    check.claim("HYB converted back holds the input's entries (ELL part + COO part, as a multiset)",
                is_well_formed(hyb.ell) && input_entries.held_by(coo_from_hyb(hyb)));
    check.claim(
        "HYB's width follows its rule (a third of the rows reach it, under a third pass it)",
        follows_hyb_rule(lengths, width));
    if (book)
        check.claim(
            "HYB of Fig. 14.1 has width 2 and moves one entry, row 1's 9 in column 3, to COO",
            width == kFigHybWidth && sorted_entries(hyb.coo) == kFigHybCooPart);

    // JDS ----------------------------------------------------------------------------------
    const HostJds jds = jds_from_csr(csr);
    std::printf("JDS: rows sorted longest first; diagonal d holds the d-th entry of each row that\n"
                "  has one, in sorted order, in [diag_ptrs[d], diag_ptrs[d + 1])\n");
    if (small) {
        print_array("row_perm", jds.row_perm, 11);
        print_array("diag_ptrs", jds.diag_ptrs, 11);
        print_array("jds_col_idx", jds.col_idx, 11);
        print_array("jds_values", jds.values, 11);
    }
    std::printf("  %d diagonals, no padding; %zu bytes, %.2f times the CSR's\n\n",
                jds.num_diagonals(), jds_bytes(jds),
                static_cast<double>(jds_bytes(jds)) / csr_bytes(csr));
    check.claim("JDS converted back holds the input's entries (as a multiset)",
                is_well_formed(jds) && input_entries.held_by(coo_from_jds(jds)));
    check.claim("JDS's rows are in order of length, longest first, and it has one diagonal per "
                "entry of the longest row",
                sorted_longest_first(jds, lengths) && jds.num_diagonals() == longest);
    if (book)
        check.claim("JDS of Fig. 14.1: row_perm = [ 1 0 2 3 ], diag_ptrs = [ 0 4 7 8 ]",
                    jds.row_perm == kFigJdsRowPerm && jds.diag_ptrs == kFigJdsDiagPtrs);

    // SpMV ---------------------------------------------------------------------------------
    const std::vector<float> x = lesson_x(csr.num_cols);
    const std::vector<float> y0 = starting_y(csr.num_rows);
    const SpmvReference reference = spmv_reference(input, x, y0);
    const std::string where = p.on_gpu() ? " (on the GPU)" : " (emulated)";
    const std::string ell_claim = "y from ELL" + where + " matches the CPU reference";
    if (!ell_built) check.skip(ell_claim, ell_skip_reason);
    if (p.on_gpu()) {
        if (ell_built) check.claim(ell_claim, spmv_matches(spmv_ell_gpu(ell, x, y0), reference));
        check.claim("y from HYB" + where + " matches the CPU reference",
                    spmv_matches(spmv_hyb_gpu(hyb, x, y0), reference));
        check.claim("y from JDS" + where + " matches the CPU reference",
                    spmv_matches(spmv_jds_gpu(jds, x, y0), reference));
    } else {
        if (ell_built)
            check.claim(ell_claim,
                        spmv_matches(spmv_ell_emulated(ell, x, y0, p.shuffled_order()), reference));
        check.claim("y from HYB" + where + " matches the CPU reference",
                    spmv_matches(spmv_hyb_emulated(hyb, x, y0, p.shuffled_order()), reference));
        check.claim("y from JDS" + where + " matches the CPU reference",
                    spmv_matches(spmv_jds_emulated(jds, x, y0, p.shuffled_order()), reference));
    }

    if (!timed) {
        std::printf("timings: %s\n", p.on_gpu() ? "at --scale only" : "need a GPU");
    } else {
        DeviceCsrMatrix d_csr(csr);
        std::unique_ptr<DeviceEll> d_ell = ell_built ? std::make_unique<DeviceEll>(ell) : nullptr;
        DeviceHyb d_hyb(hyb);
        DeviceJds d_jds(jds);
        DeviceBuffer<float> d_x(x), d_y(y0);
        // At --scale 1 to 3 the R-MAT matrix can hold more entries than places, which cuSPARSE
        // refuses; it is then neither checked nor timed.
        const std::unique_ptr<CusparseSpmv> library = cusparse_spmv_checked(
            check, "y from cuSPARSE's SpMV matches the CPU reference", d_csr.num_rows,
            d_csr.num_cols, d_csr.nnz(), d_csr.row_ptrs.data(), d_csr.col_idx.data(),
            d_csr.values.data(), d_x.data(), d_y.data(),
            [&] { return spmv_matches(d_y.download(), reference); });

        const double copy_gbs = measure_copy_gbs();
        // Bytes that any SpMV of this matrix must move at least once: the CSR arrays, x, and y
        // read and written. The same count for every format, so GB/s ranks them as time does;
        // a format's padding and permutation are its own overhead on top.
        const double bytes =
            static_cast<double>(csr_bytes(csr)) + 4.0 * csr.num_cols + 8.0 * csr.num_rows;
        auto median_ms_of = [&](auto&& format) {
            return median_gpu_ms([&] { format.spmv(d_x.data(), d_y.data()); });
        };
        const double csr_ms = median_gpu_ms([&] {
            spmv_csr_kernel<<<blocks_for(csr.num_rows), kThreadsPerBlock>>>(
                csr.num_rows, d_csr.row_ptrs.data(), d_csr.col_idx.data(), d_csr.values.data(),
                d_x.data(), d_y.data());
            CUDA_CHECK_LAUNCH();
        });
        const double ell_ms = ell_built ? median_ms_of(*d_ell) : 0.0;
        const double hyb_ms = median_ms_of(d_hyb);
        const double jds_ms = median_ms_of(d_jds);
        const double library_ms = library ? median_gpu_ms([&] { library->run(); }) : 0.0;
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s; each\n"
                    "counts %.1f MB: the CSR arrays, x, and y read and written):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs, bytes / 1e6);
        auto row = [&](const char* name, double ms) {
            std::printf("  %-26s %9.3f ms %7.0f GB/s (%5.1f%% of copy)", name, ms,
                        gb_per_s(bytes, ms), 100 * gb_per_s(bytes, ms) / copy_gbs);
            if (library) std::printf("  cuSPARSE / this %.2f", library_ms / ms);
            std::printf("\n");
        };
        row("CSR, thread per row", csr_ms);
        if (ell_built)
            row("ELL", ell_ms);
        else
            std::printf("  %-26s not built (padding: %s the CSR's bytes)\n", "ELL",
                        readable_ratio(ell_to_csr_bytes(csr)).c_str());
        row("HYB (ELL, then COO)", hyb_ms);
        row("JDS", jds_ms);
        if (library) row("cuSPARSE SpMV (CSR)", library_ms);
    }
    std::printf("\n");

    if (!p.options.matrix.empty()) {
        const std::vector<float> ones(csr.num_cols, 1.0f), zeros(csr.num_rows, 0.0f);
        const std::vector<float> y_ones =
            p.on_gpu() ? spmv_jds_gpu(jds, ones, zeros)
                       : spmv_jds_emulated(jds, ones, zeros, p.shuffled_order());
        check.end_with(spmv_result_line(input, y_ones));
    }
    return check.finish();
}
#endif
