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
#ifndef REGULAR_FORMATS_KERNEL_145  // 146 takes its baselines
#define REGULAR_FORMATS_KERNEL_145
// 144's lesson: ELL's kernel and baseline, and with them 142's COO and 143's CSR lessons
#include "144_coalescing_kernel.cu"

// HYB's CPU baseline, in the shape of its two launches: the ELL part's rows, then the COO part's
// entries, added into the same y.
inline void spmv_hyb_cpu(const HostHyb& a, const std::vector<float>& x, std::vector<float>& y) {
    spmv_ell_cpu(a.ell, x, y);
    spmv_coo_cpu(a.coo, x, y);
}

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

#ifdef __CUDACC__  // the kernel; 146, compiled as plain C++, takes the baselines alone

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
    show_format_ys(in, runs);
    check_runs(p, in, runs, check);
    compare_with_library(p, in, ell, hyb, jds, dia, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(in.coo, spmv_on_device(p.here, launch_spmv_jds, jds,
                                                               ones(in.csr.num_cols),
                                                               zeros(in.csr.num_rows))));
    return check.finish();
}
#endif
#endif  // __CUDACC__
#endif  // REGULAR_FORMATS_KERNEL_145
