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
// 119's lesson: the CPU baseline, the same check and the same searches, one after another
#include "119_sorted_coo_to_csr_cpu_baseline.cpp"

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
constexpr unsigned kBoundaryThreads = 256;
inline unsigned boundary_blocks(int num_rows) {
    return static_cast<unsigned>((static_cast<size_t>(num_rows) + kBoundaryThreads) /
                                 kBoundaryThreads);
}

inline void launch_row_boundaries(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    const size_t boundaries = static_cast<size_t>(coo.num_rows) + 1;
    const unsigned threads = kBoundaryThreads, blocks = boundary_blocks(coo.num_rows);
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
#include "proof/sorted_coo_proof.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, sorted_coo_to_csr_program());
    SelfCheck check;
    for (const SortedCooInput& input : sorted_coo_inputs(p.options, check)) {
        show_sorted_coo(input.name, input.coo);
        const CooToCsrResult result = sorted_coo_to_csr(p.here, input.coo);
        HostCsr csr_cpu;
        const ContractVerdict verdict_cpu = sorted_coo_to_csr_cpu(input.coo, csr_cpu);
        const std::vector<int> by_counting = scan_degrees(count_degrees(input.coo));
        show_conversion(input.coo, result.verdict, result.csr,
                        boundary_blocks(input.coo.num_rows), kBoundaryThreads);
        check_conversion(p, input, verdict_cpu, csr_cpu, by_counting, result.verdict, result.csr,
                         check);
        compare_with_library(p, input.name, input.coo, result.csr, check, copy_entry_arrays,
                             launch_validation, launch_row_boundaries, launch_lower_bound_route);
    }
    if (!p.options.book_example()) return check.finish();
    show_refusals_heading(std::string("every output byte is 0xFF before the ") + p.here.name() +
                          " validation runs; a refusal must leave it so");
    for (const RefusalDemo& demo : refusal_demos()) {
        const CooToCsrResult result = sorted_coo_to_csr(p.here, demo.coo);
        check_refusal(demo, result.verdict, result.csr, check, first_contract_violation(demo.coo));
    }
    return check.finish();
}
#endif
#endif  // SORTED_COO_TO_CSR_KERNEL_120
