// 120 (21.3) kernel: row-sorted COO to CSR, one thread per row boundary, each a lower-bound search.
// Row r starts at the first entry whose row is not below r, so the num_rows + 1 offsets are that
// many independent binary searches (119 runs them in a loop): no atomics, no scan, no waiting.
// Columns and weights are already in CSR order and are copied. First the input is checked, one
// thread per entry; atomicMin keeps the first offender, and a refused input is never written.
// On a GPU, CUB's run-length encoding (then a scatter and a scan) and cusparseXcoo2csr run too.
//
// Build and run:  make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel
//                 build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G
//                 build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx
#ifndef SORTED_COO_TO_CSR_KERNEL_120  // 121 and 122 take this lesson's check and its copies
#define SORTED_COO_TO_CSR_KERNEL_120
#include "../common/binary_search.h"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "chapter_inputs.h"
#include "sorted_coo_contract.h"

// The CPU baseline of the check, in the kernel's shape: every entry looked at, the smallest bad
// index kept. Entry k breaks the contract (rows never decrease, rows in [0, num_rows), columns in
// [0, num_cols)) if its own ids are out of range or its row is below entry k - 1's.
inline int validate_sorted_coo_cpu(const HostCoo& coo) {
    const int nnz = static_cast<int>(coo.nnz());
    int first_bad = nnz;
    for (int k = 0; k < nnz; ++k)
        if (breaks_contract(coo.rows[k], coo.cols[k], k > 0 ? &coo.rows[k - 1] : nullptr,
                            coo.num_rows, coo.num_cols))
            first_bad = std::min(first_bad, k);
    return first_bad;
}

// A thread reads only its own entry and the one before. Any number of threads may find a bad
// entry, in any order; the minimum does not depend on the order in which they arrive, so the
// report always names the first offender, as the sequential baseline does.
__host__ __device__ inline void validate_sorted_coo_thread(int k, const int* rows, const int* cols,
                                                           int num_rows, int num_cols,
                                                           int* first_bad) {
    if (breaks_contract(rows[k], cols[k], k > 0 ? &rows[k - 1] : nullptr, num_rows, num_cols))
        atomic_min_shim(first_bad, k);
}

__global__ void validate_sorted_coo_kernel(int nnz, const int* rows, const int* cols, int num_rows,
                                           int num_cols, int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) validate_sorted_coo_thread(k, rows, cols, num_rows, num_cols, first_bad);
}

// The CPU baseline of the offsets, in the kernel's shape: the same searches, one boundary after
// another.
inline std::vector<int> row_boundary_cpu(const HostCoo& coo) {
    std::vector<int> row_offsets(static_cast<size_t>(coo.num_rows) + 1);
    for (int r = 0; r <= coo.num_rows; ++r)
        row_offsets[r] = lower_bound_index(coo.rows.data(), static_cast<int>(coo.nnz()), r);
    return row_offsets;
}

// Thread r writes row_offsets[r] and nothing else: the threads share only reads.
__host__ __device__ inline void row_boundary_thread(int r, const int* sorted_rows, int nnz,
                                                    int* row_offsets) {
    row_offsets[r] = lower_bound_index(sorted_rows, nnz, r);
}

__global__ void row_boundary_kernel(int num_boundaries, const int* sorted_rows, int nnz,
                                    int* row_offsets) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < num_boundaries) row_boundary_thread(r, sorted_rows, nnz, row_offsets);
}

// The check's state where the kernels run: the smallest bad index so far, and nnz, the value that
// it starts from. Resetting one from the other there keeps the check free of host round trips,
// so that it can be timed alone.
struct ValidationState {
    ValidationState(const Here& here, int nnz)
        : start(here, std::vector<int>{nnz}), first_bad(here, size_t{1}) {}
    DeviceArray<int> start, first_bad;
};

// One thread per entry, in blocks of 256 threads, as many blocks as cover the entries.
inline void launch_validation(const Here& here, const DeviceCoo& coo, ValidationState& state) {
    copy_where_kernels_run(here, state.first_bad.data(), state.start.data(), 1);
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((coo.nnz() + threads - 1) / threads);
    here.launch(blocks, threads, validate_sorted_coo_kernel, validate_sorted_coo_thread, coo.nnz(),
                coo.rows.data(), coo.cols.data(), coo.num_rows, coo.num_cols,
                state.first_bad.data());
}

// The smallest index of an entry that breaks the contract, or nnz.
inline int validate_sorted_coo(const Here& here, const DeviceCoo& coo) {
    ValidationState state(here, coo.nnz());
    launch_validation(here, coo, state);
    return state.first_bad.download()[0];
}

// The offsets: num_rows + 1 threads, so there is always at least one, in blocks of 256 threads.
// Then the columns and weights, which are already where CSR wants them, are copied.
inline void launch_row_boundaries(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    const size_t boundaries = static_cast<size_t>(coo.num_rows) + 1;
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((boundaries + threads - 1) / threads);
    here.launch(blocks, threads, row_boundary_kernel, row_boundary_thread, boundaries,
                coo.rows.data(), coo.nnz(), csr.row_offsets.data());
}

inline void copy_entry_arrays(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    copy_where_kernels_run(here, csr.col_idx.data(), coo.cols.data(), coo.cols.size());
    copy_where_kernels_run(here, csr.values.data(), coo.values.data(), coo.values.size());
}

inline void launch_lower_bound_route(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    launch_row_boundaries(here, coo, csr);
    copy_entry_arrays(here, coo, csr);
}

// A conversion's verdict, and its outputs as it left them: after a refusal, still the poison
// (every byte 0xFF) that DeviceCsr filled them with.
struct CooToCsrResult {
    ContractVerdict verdict;
    HostCsr csr;
    bool converted() const { return verdict.holds(); }
};

// The check where the kernels run, then `convert` only if no entry breaks the contract.
template <class Convert>
CooToCsrResult validate_then_convert(const Here& here, const HostCoo& coo, Convert&& convert) {
    const DeviceCoo d(here, coo);
    DeviceCsr csr(here, coo.num_rows, coo.num_cols, coo.nnz());
    CooToCsrResult result;
    result.verdict = contract_verdict(coo, validate_sorted_coo(here, d));
    if (result.converted()) convert(d, csr);
    result.csr = csr.download();
    return result;
}

inline CooToCsrResult sorted_coo_to_csr(const Here& here, const HostCoo& coo) {
    return validate_then_convert(here, coo, [&](const DeviceCoo& d, DeviceCsr& csr) {
        launch_lower_bound_route(here, d, csr);
    });
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/120_sorted_coo_to_csr_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, sorted_coo_to_csr_program());
    SelfCheck check;
    for (const SortedCooInput& input : sorted_coo_inputs(p.options, check)) {
        show_sorted_coo(input.name, input.coo);
        const int first_bad_cpu = validate_sorted_coo_cpu(input.coo);
        const std::vector<int> row_offsets_cpu = row_boundary_cpu(input.coo);
        const CooToCsrResult result = sorted_coo_to_csr(p.here, input.coo);
        show_conversion(input.coo, result);
        check_conversion(p, input, first_bad_cpu, row_offsets_cpu, result, check);
        compare_with_library_routes(p, input, result, check);
        if (p.on_gpu() && p.options.scale > 0) time_routes(p, input.coo);
    }
    if (p.options.book_example()) check_refusals(p, check);
    return check.finish();
}
#endif
#endif  // SORTED_COO_TO_CSR_KERNEL_120
