// Sorted COO to CSR on the GPU: one thread per row boundary, each one lower-bound search.
// In row-sorted COO, row r starts at the first entry whose row id is not below r, so the
// num_rows + 1 offsets are that many independent binary searches over the row ids (119 does them
// in a loop): no atomics, no scan, and no thread waits for another. The columns and values are
// already in CSR order and are copied as they are. Before converting, the input is checked on the
// GPU, one thread per entry; atomicMin keeps the smallest offending index, which the host then
// describes, and a refused input leaves the outputs unwritten. Beside the search runs a second
// route, CUB's run-length encoding of the row ids, then a scatter and a scan; cusparseXcoo2csr
// is the library's answer.
//
// Build and run:  make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel
//                 build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G
//                 build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "sorted_coo_contract.h"
#include "row_search.cuh"

// The CPU baseline: count each row's entries, scan the counts into offsets, copy the entry
// arrays. It needs the ids in range, not sorted rows, so it checks the search without sharing
// its idea.
HostCsr sorted_coo_to_csr_cpu(const HostCoo& coo) {
    HostCsr csr;
    csr.num_rows = coo.num_rows;
    csr.num_cols = coo.num_cols;
    csr.row_offsets.assign(static_cast<size_t>(coo.num_rows) + 1, 0);
    for (int r : coo.rows) ++csr.row_offsets[r + 1];
    for (int r = 0; r < coo.num_rows; ++r) csr.row_offsets[r + 1] += csr.row_offsets[r];
    csr.col_idx = coo.cols;
    csr.values = coo.values;
    return csr;
}

// The contract: row ids never decrease, rows are in [0, num_rows), columns in [0, num_cols).
// Entry k breaks it if its own ids are out of range or its row is below entry k - 1's row, so a
// thread needs only its own entry and the one before.
__host__ __device__ inline bool entry_breaks_contract(int k, const int* rows, const int* cols,
                                                      int num_rows, int num_cols) {
    const int row = rows[k], col = cols[k];
    return row < 0 || row >= num_rows || col < 0 || col >= num_cols || (k > 0 && rows[k - 1] > row);
}

// Any number of threads may find a bad entry, in any order; the minimum does not depend on the
// order in which they arrive, so the report always names the first offender, as a sequential
// check would.
__host__ __device__ inline void validate_entry_thread(int k, const int* rows, const int* cols,
                                                      int num_rows, int num_cols, int* first_bad) {
    if (entry_breaks_contract(k, rows, cols, num_rows, num_cols)) atomic_min_shim(first_bad, k);
}

// Thread r writes row_offsets[r] and nothing else: the threads share only reads.
__host__ __device__ inline void row_boundary_thread(int r, const int* sorted_rows, int nnz,
                                                    int* row_offsets) {
    row_offsets[r] = lower_bound_index(sorted_rows, nnz, r);
}

// Run i of equal row ids, as CUB's run-length encoding found it, is all of that row's entries:
// its length is the row's count. Rows with no run keep the zero that they were given.
__host__ __device__ inline void scatter_run_length_thread(int i, const int* run_rows,
                                                          const int* run_lengths, int* counts) {
    counts[run_rows[i]] = run_lengths[i];
}

__global__ void validate_sorted_coo_kernel(int nnz, const int* rows, const int* cols, int num_rows,
                                           int num_cols, int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) validate_entry_thread(k, rows, cols, num_rows, num_cols, first_bad);
}

__global__ void row_boundary_kernel(int num_boundaries, const int* sorted_rows, int nnz,
                                    int* row_offsets) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < num_boundaries) row_boundary_thread(r, sorted_rows, nnz, row_offsets);
}

// The number of runs exists only on the device, so the grid covers the most runs there can be
// and the threads past the actual number return; the host never waits to learn it.
__global__ void scatter_run_lengths_kernel(const int* num_runs, const int* run_rows,
                                           const int* run_lengths, int* counts) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < *num_runs) scatter_run_length_thread(i, run_rows, run_lengths, counts);
}


std::string describe_bad_entry(const HostCoo& coo, int k) {
    return describe_bad_entry(k, k > 0 ? coo.rows[k - 1] : 0, coo.rows[k], coo.cols[k],
                              coo.num_rows, coo.num_cols);
}

// A row-sorted COO on the device: the conversion's input.
struct DeviceSortedCoo {
    explicit DeviceSortedCoo(const HostCoo& a)
        : num_rows(a.num_rows), num_cols(a.num_cols), rows(a.rows), cols(a.cols),
          values(a.values) {}
    int nnz() const { return static_cast<int>(rows.size()); }
    int num_rows, num_cols;
    DeviceBuffer<int> rows, cols;
    DeviceBuffer<float> values;
};

// The few values that explain entry k, fetched from the device: the whole input never has to
// come back to the host to describe a refusal.
std::string describe_bad_entry(const DeviceSortedCoo& coo, int k) {
    int previous_row = 0, row = 0, col = 0;
    if (k > 0)
        CUDA_CHECK(cudaMemcpy(&previous_row, coo.rows.data() + k - 1, sizeof(int),
                              cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&row, coo.rows.data() + k, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&col, coo.cols.data() + k, sizeof(int), cudaMemcpyDeviceToHost));
    return describe_bad_entry(k, previous_row, row, col, coo.num_rows, coo.num_cols);
}

// The CSR arrays that a conversion writes.
struct DeviceCsrOutput {
    DeviceCsrOutput(int num_rows, int num_cols, size_t nnz)
        : num_rows(num_rows), num_cols(num_cols), row_offsets(static_cast<size_t>(num_rows) + 1),
          col_idx(nnz), values(nnz) {}
    // Every byte 0xFF: -1 in the ids, a NaN in the values. No valid CSR holds offset -1, so a
    // slot that nothing wrote cannot pass for a right one.
    void poison() {
        row_offsets.fill_bytes(0xFF);
        col_idx.fill_bytes(0xFF);
        values.fill_bytes(0xFF);
    }
    HostCsr download() const {
        HostCsr c;
        c.num_rows = num_rows;
        c.num_cols = num_cols;
        c.row_offsets = row_offsets.download();
        c.col_idx = col_idx.download();
        c.values = values.download();
        return c;
    }
    int num_rows, num_cols;
    DeviceBuffer<int> row_offsets, col_idx;
    DeviceBuffer<float> values;
};

// The validation's device state: the smallest bad index, and nnz, the value that it starts from.
// Resetting by a device-to-device copy keeps the check free of host round trips, so that it can
// be timed on its own.
struct DeviceValidation {
    explicit DeviceValidation(int nnz) : start_value(std::vector<int>{nnz}), first_bad(1) {}
    int first_bad_index() const { return first_bad.download()[0]; }
    DeviceBuffer<int> start_value, first_bad;
};

void launch_validation(const DeviceSortedCoo& coo, DeviceValidation& validation) {
    CUDA_CHECK(cudaMemcpyAsync(validation.first_bad.data(), validation.start_value.data(),
                               sizeof(int), cudaMemcpyDeviceToDevice));
    if (coo.nnz() == 0) return;
    validate_sorted_coo_kernel<<<blocks_for(coo.nnz()), kThreadsPerBlock>>>(
        coo.nnz(), coo.rows.data(), coo.cols.data(), coo.num_rows, coo.num_cols,
        validation.first_bad.data());
    CUDA_CHECK_LAUNCH();
}

// Columns and values are already where CSR wants them.
void copy_entry_arrays(const DeviceSortedCoo& coo, DeviceCsrOutput& csr) {
    if (coo.nnz() == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(csr.col_idx.data(), coo.cols.data(), coo.cols.bytes(),
                               cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpyAsync(csr.values.data(), coo.values.data(), coo.values.bytes(),
                               cudaMemcpyDeviceToDevice));
}

// The offsets alone: num_rows + 1 >= 1 threads, so the grid is never empty.
void launch_row_boundaries(const DeviceSortedCoo& coo, DeviceCsrOutput& csr) {
    const int num_boundaries = coo.num_rows + 1;
    row_boundary_kernel<<<blocks_for(num_boundaries), kThreadsPerBlock>>>(
        num_boundaries, coo.rows.data(), coo.nnz(), csr.row_offsets.data());
    CUDA_CHECK_LAUNCH();
}

void launch_lower_bound_route(const DeviceSortedCoo& coo, DeviceCsrOutput& csr) {
    launch_row_boundaries(coo, csr);
    copy_entry_arrays(coo, csr);
}

// The second route: CUB finds the runs of equal row ids and their lengths; the lengths land in
// a zeroed array of num_rows + 1 counts (the extra zero makes the scan's last output nnz); an
// exclusive scan turns the counts into offsets. A validated input has at most
// min(nnz, num_rows) runs, which sizes the run arrays.
class RleScanRoute {
public:
    RleScanRoute(int num_rows, int nnz)
        : num_rows_(num_rows), nnz_(nnz), max_runs_(std::min(num_rows, nnz)), run_rows(max_runs_),
          run_lengths(max_runs_), num_runs(1), counts(static_cast<size_t>(num_rows) + 1) {
        size_t encode_bytes = 0, scan_bytes = 0;
        if (nnz_ > 0)
            CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
                nullptr, encode_bytes, static_cast<const int*>(nullptr), run_rows.data(),
                run_lengths.data(), num_runs.data(), nnz_));
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.data(),
                                                 static_cast<int*>(nullptr), num_rows_ + 1));
        // A null scratch pointer asks CUB for the size only, so never hand it an empty buffer.
        scratch = DeviceBuffer<unsigned char>(std::max<size_t>({encode_bytes, scan_bytes, 1}));
    }

    void launch(const DeviceSortedCoo& coo, DeviceCsrOutput& csr) {
        CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes()));
        size_t bytes = scratch.size();
        if (nnz_ > 0) {
            CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(scratch.data(), bytes, coo.rows.data(),
                                                          run_rows.data(), run_lengths.data(),
                                                          num_runs.data(), nnz_));
            scatter_run_lengths_kernel<<<blocks_for(max_runs_), kThreadsPerBlock>>>(
                num_runs.data(), run_rows.data(), run_lengths.data(), counts.data());
            CUDA_CHECK_LAUNCH();
        }
        bytes = scratch.size();
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, counts.data(),
                                                 csr.row_offsets.data(), num_rows_ + 1));
        copy_entry_arrays(coo, csr);
    }

    int runs_found() const { return nnz_ == 0 ? 0 : num_runs.download()[0]; }

private:
    int num_rows_, nnz_, max_runs_;

public:
    DeviceBuffer<int> run_rows, run_lengths, num_runs, counts;
    DeviceBuffer<unsigned char> scratch;
};

// The library's answer, offsets only: cusparseXcoo2csr reads the sorted row ids and writes
// num_rows + 1 offsets. With no entries every offset is 0 and the library is not asked, as 115
// does: its documentation promises nothing for nnz = 0.
struct CusparseOffsets {
    void launch(const DeviceSortedCoo& coo, int* row_offsets) {
        if (coo.nnz() == 0) {
            CUDA_CHECK(cudaMemsetAsync(row_offsets, 0, (static_cast<size_t>(coo.num_rows) + 1) *
                                                           sizeof(int)));
            return;
        }
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, coo.rows.data(), coo.nnz(), coo.num_rows,
                                        row_offsets, CUSPARSE_INDEX_BASE_ZERO));
    }
    CusparseHandle handle;
};

// What a conversion reports: the first bad index (nnz when there is none), the reason for a
// refusal, and the outputs as the conversion left them, which after a refusal are the poison
// that they were filled with.
struct CooToCsrResult {
    int first_bad = 0;
    std::string refusal;
    HostCsr csr;
    bool converted() const { return refusal.empty(); }
};

// The host's stand-in for DeviceCsrOutput::poison: the same bytes, 0xFF everywhere.
HostCsr poisoned_csr(const HostCoo& coo) {
    HostCsr c;
    c.num_rows = coo.num_rows;
    c.num_cols = coo.num_cols;
    c.row_offsets.assign(static_cast<size_t>(coo.num_rows) + 1, -1);
    c.col_idx.assign(coo.nnz(), -1);
    c.values.resize(coo.nnz());
    if (!c.values.empty()) std::memset(c.values.data(), 0xFF, c.values.size() * sizeof(float));
    return c;
}

// Bitwise, because the poisoned values are NaNs, which never compare equal to themselves.
bool still_poisoned(const HostCsr& c) {
    const auto all_ones = [](const void* data, size_t bytes) {
        const unsigned char* p = static_cast<const unsigned char*>(data);
        return std::all_of(p, p + bytes, [](unsigned char b) { return b == 0xFF; });
    };
    return all_ones(c.row_offsets.data(), c.row_offsets.size() * sizeof(int)) &&
           all_ones(c.col_idx.data(), c.col_idx.size() * sizeof(int)) &&
           all_ones(c.values.data(), c.values.size() * sizeof(float));
}

int validate_sorted_coo_gpu(const HostCoo& coo) {
    DeviceSortedCoo d(coo);
    DeviceValidation validation(d.nnz());
    launch_validation(d, validation);
    return validation.first_bad_index();
}

int validate_sorted_coo_emulated(const HostCoo& coo, const ThreadOrder& order) {
    int first_bad = static_cast<int>(coo.nnz());
    emulate_threads(coo.nnz(), order, [&](int k) {
        validate_entry_thread(k, coo.rows.data(), coo.cols.data(), coo.num_rows, coo.num_cols,
                              &first_bad);
    });
    return first_bad;
}

// Validates on the device, then runs `convert` only if no entry breaks the contract.
template <class Convert>
CooToCsrResult validate_then_convert_gpu(const HostCoo& coo, Convert&& convert) {
    DeviceSortedCoo d(coo);
    DeviceCsrOutput csr(coo.num_rows, coo.num_cols, coo.nnz());
    csr.poison();
    DeviceValidation validation(d.nnz());
    launch_validation(d, validation);
    CooToCsrResult result;
    result.first_bad = validation.first_bad_index();
    if (result.first_bad < d.nnz())
        result.refusal = describe_bad_entry(d, result.first_bad);
    else
        convert(d, csr);
    result.csr = csr.download();
    return result;
}

CooToCsrResult coo_to_csr_gpu(const HostCoo& coo) {
    return validate_then_convert_gpu(coo, [](const DeviceSortedCoo& d, DeviceCsrOutput& csr) {
        launch_lower_bound_route(d, csr);
    });
}

// The route's scratch outlives the conversion's last read of it, which the download waits for.
CooToCsrResult coo_to_csr_rle_scan_gpu(const HostCoo& coo) {
    RleScanRoute route(coo.num_rows, static_cast<int>(coo.nnz()));
    return validate_then_convert_gpu(
        coo, [&](const DeviceSortedCoo& d, DeviceCsrOutput& csr) { route.launch(d, csr); });
}

// The same bodies on the host, threads in the given order; the host copies stand in for
// cudaMemcpyAsync.
CooToCsrResult coo_to_csr_emulated(const HostCoo& coo, const ThreadOrder& order) {
    CooToCsrResult result;
    result.csr = poisoned_csr(coo);
    result.first_bad = validate_sorted_coo_emulated(coo, order);
    if (result.first_bad < static_cast<int>(coo.nnz())) {
        result.refusal = describe_bad_entry(coo, result.first_bad);
        return result;
    }
    const int nnz = static_cast<int>(coo.nnz());
    emulate_threads(static_cast<size_t>(coo.num_rows) + 1, order, [&](int r) {
        row_boundary_thread(r, coo.rows.data(), nnz, result.csr.row_offsets.data());
    });
    result.csr.col_idx = coo.cols;
    result.csr.values = coo.values;
    return result;
}

// cuSPARSE's offsets for an input that keeps the contract (the library does not check it).
std::vector<int> offsets_by_cusparse(const HostCoo& coo) {
    DeviceSortedCoo d(coo);
    DeviceBuffer<int> row_offsets(static_cast<size_t>(coo.num_rows) + 1);
    row_offsets.fill_bytes(0xFF);
    CusparseOffsets library;
    library.launch(d, row_offsets.data());
    return row_offsets.download();
}


#ifndef LESSON_WITHOUT_MAIN
namespace {

std::vector<int> rows_with_repeated_offsets(const std::vector<int>& row_offsets) {
    std::vector<int> rows;
    for (size_t r = 0; r + 1 < row_offsets.size(); ++r)
        if (row_offsets[r] == row_offsets[r + 1]) rows.push_back(static_cast<int>(r));
    return rows;
}

CooToCsrResult convert(const KernelProgram& p, const HostCoo& coo) {
    return p.on_gpu() ? coo_to_csr_gpu(coo) : coo_to_csr_emulated(coo, p.shuffled_order());
}

// Converts one input by every route that this machine can run, prints what a reader should
// see, and states the claims that hold for any input. Returns the lower-bound route's result.
CooToCsrResult convert_and_check(const KernelProgram& p, const std::string& name,
                                 const HostCoo& coo, SelfCheck& check) {
    const std::string where = p.on_gpu() ? "GPU" : "emulated";
    const bool small = coo.nnz() <= kPrintLimit && coo.num_rows < static_cast<int>(kPrintLimit);
    std::printf("--- %s: %d rows, %d columns, %zu entries, sorted by row ---\n", name.c_str(),
                coo.num_rows, coo.num_cols, coo.nnz());
    if (small) {
        print_array("rows", coo.rows, 11);
        print_array("cols", coo.cols, 11);
        print_array("values", coo.values, 11);
    }
    CooToCsrResult result;
    const double ms = host_ms([&] { result = convert(p, coo); });
    std::printf("validation: %zu threads, one per entry; smallest bad index %d (%s)\n", coo.nnz(),
                result.first_bad,
                result.converted() ? "= nnz: no entry breaks the contract"
                                   : result.refusal.c_str());
    std::printf("row boundaries: %d threads (%u block(s) of %d), thread r writes the lower bound "
                "of r\n",
                coo.num_rows + 1, blocks_for(static_cast<size_t>(coo.num_rows) + 1),
                kThreadsPerBlock);
    if (small && result.converted()) {
        for (int r = 0; r <= coo.num_rows; ++r)
            std::printf("  thread %d -> %d%s", r, result.csr.row_offsets[r],
                        r % 8 == 7 || r == coo.num_rows ? "\n" : "   ");
        print_array("row_offsets", result.csr.row_offsets, 11);
        print_array("col_idx", result.csr.col_idx, 11);
        print_array("values", result.csr.values, 11);
    }
    if (!p.on_gpu() && p.options.scale > 0)
        std::printf("time: %.1f ms on the host, validation and conversion (emulation: not a GPU "
                    "time)\n",
                    ms);
    std::printf("\n");

    const HostCsr expected = sorted_coo_to_csr_cpu(coo);
    check.claim(name + ": the " + where + " validation accepts it (smallest bad index = nnz)",
                result.converted() && result.first_bad == static_cast<int>(coo.nnz()));
    check.claim(name + ": row_offsets from the " + where +
                    " lower-bound search equal the CPU baseline's exactly",
                result.csr.row_offsets == expected.row_offsets);
    check.claim(name + ": col_idx and values equal the input's cols and values exactly",
                result.csr.col_idx == coo.cols && result.csr.values == coo.values);
    const std::vector<int> empty_rows = rows_without_entries(coo);
    check.claim(name + ": the " + std::to_string(empty_rows.size()) +
                    " rows with no entries are exactly the rows whose offsets repeat",
                rows_with_repeated_offsets(result.csr.row_offsets) == empty_rows);
    const std::string rle_claim =
        name + ": the RLE + scan route (CUB) gives the same CSR as the lower-bound route";
    const std::string library_claim = name + ": cusparseXcoo2csr gives the same row_offsets";
    if (!p.on_gpu()) {
        check.skip(rle_claim);
        check.skip(library_claim);
        return result;
    }
    const CooToCsrResult by_rle = coo_to_csr_rle_scan_gpu(coo);
    const bool same_csr = by_rle.converted() && by_rle.csr.row_offsets == result.csr.row_offsets &&
                          by_rle.csr.col_idx == result.csr.col_idx &&
                          by_rle.csr.values == result.csr.values;
    check.claim(rle_claim, same_csr);
    check.claim(library_claim, offsets_by_cusparse(coo) == result.csr.row_offsets);
    return result;
}

void show_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("--- inputs that break the contract: refused, and nothing is written ---\n");
    std::printf("(every output byte is 0xFF before the %s validation runs; a refusal must leave "
                "it so)\n\n",
                p.on_gpu() ? "GPU" : "emulated");
    for (const RefusalDemo& demo : refusal_demos()) {
        const CooToCsrResult result = convert(p, demo.coo);
        check.claim(demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                        ", the first bad one, with \"" + result.refusal +
                        "\"; the outputs untouched",
                    !result.converted() &&
                        static_cast<size_t>(result.first_bad) == demo.first_bad &&
                        still_poisoned(result.csr));
    }
}

void print_timing(const char* label, double ms, double bytes, double copy_gbs) {
    std::printf("  %-40s %8.3f ms  %6.0f GB/s (%3.0f%% of copy)\n", label, ms,
                gb_per_s(bytes, ms), 100 * gb_per_s(bytes, ms) / copy_gbs);
}

// The bytes that each timed step must move at the least, every array touched once (4-byte ids
// and values; N entries, R + 1 offsets, U runs of equal row ids):
//   validation         reads rows and cols                                 8N
//   search kernel      writes the offsets; its searches read rows, and neighbouring boundaries
//                      end in neighbouring sectors, so with many rows (R-MAT: 16 entries per
//                      row) rows is read about once                        4N + 4(R + 1)
//   lower-bound route  the search, then cols and values read and written   20N + 4(R + 1)
//   RLE + scan route   encode: reads rows, writes U (row, length) pairs; the counts are zeroed;
//                      scatter: reads the pairs, writes U counts; scan: reads the counts,
//                      writes the offsets; then the two copies             20N + 20U + 12(R + 1)
//   cuSPARSE coo2csr   reads rows, writes the offsets, and nothing else    4N + 4(R + 1)
void time_routes(const KernelProgram& p, const HostCoo& coo) {
    DeviceSortedCoo d(coo);
    DeviceCsrOutput csr(coo.num_rows, coo.num_cols, coo.nnz());
    DeviceValidation validation(d.nnz());
    RleScanRoute rle(d.num_rows, d.nnz());
    CusparseOffsets library;
    DeviceBuffer<int> library_offsets(static_cast<size_t>(coo.num_rows) + 1);

    const double copy_gbs = measure_copy_gbs();
    const double validation_ms = median_gpu_ms([&] { launch_validation(d, validation); });
    const double search_ms = median_gpu_ms([&] { launch_row_boundaries(d, csr); });
    const double lower_bound_ms = median_gpu_ms([&] { launch_lower_bound_route(d, csr); });
    const double rle_ms = median_gpu_ms([&] { rle.launch(d, csr); });
    const double library_ms = median_gpu_ms([&] { library.launch(d, library_offsets.data()); });

    const double n = static_cast<double>(coo.nnz()), r = coo.num_rows + 1.0;
    const double u = rle.runs_found();
    std::printf("timings on %s (%s; copy bandwidth %.0f GB/s;\n"
                "%zu entries, %d rows, %.0f runs of equal row ids):\n",
                p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs, coo.nnz(), coo.num_rows, u);
    print_timing("validation (one thread per entry)", validation_ms, 8 * n, copy_gbs);
    print_timing("search kernel alone (offsets only)", search_ms, 4 * n + 4 * r, copy_gbs);
    print_timing("lower-bound route (search + 2 copies)", lower_bound_ms, 20 * n + 4 * r, copy_gbs);
    print_timing("RLE + scan route (CUB, scatter, + 2 copies)", rle_ms, 20 * n + 20 * u + 12 * r,
                 copy_gbs);
    print_timing("cusparseXcoo2csr (offsets only)", library_ms, 4 * n + 4 * r, copy_gbs);
    std::printf("  ratio cuSPARSE / search kernel, both offsets only:          %.2f\n",
                library_ms / search_ms);
    std::printf("  ratio cuSPARSE (offsets only) / lower-bound route (all):    %.2f\n",
                library_ms / lower_bound_ms);
    std::printf("  ratio cuSPARSE (offsets only) / RLE + scan route (all):     %.2f\n",
                library_ms / rle_ms);
    std::printf("  the validation costs %.2f x the lower-bound route that it guards\n\n",
                validation_ms / lower_bound_ms);
}

}  // namespace

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{88, 36, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "120 kernel: row-sorted COO -> CSR, one lower-bound search per row boundary");
    SelfCheck check;
    if (p.options.book_example()) {
        const HostCoo card = card_example();
        const CooToCsrResult card_result = convert_and_check(p, "the card's example", card, check);
        check.claim("the card's example: row_offsets = [ 0 2 3 5 ], as on the card",
                    card_result.csr.row_offsets == kCardRowOffsets);

        const HostCoo gaps = gaps_and_duplicate_example();
        const CooToCsrResult gaps_result =
            convert_and_check(p, "empty rows 0, 2, 3, 6 and a duplicate (4, 3)", gaps, check);
        check.claim("the empty rows 0 (start), 2 and 3 (middle), 6 (end) show as repeated offsets, "
                    "and no other row does",
                    rows_with_repeated_offsets(gaps_result.csr.row_offsets) == kGapsEmptyRows);
        check.claim("the duplicate (4, 3) is kept: nnz stays 6 and row 4 holds both copies, 40 "
                    "and 50",
                    gaps_result.csr.nnz() == 6 && gaps_result.converted() &&
                        values_at(gaps_result.csr, 4, 3) == std::vector<float>{40, 50});
        show_refusals(p, check);
        return check.finish();
    }

    const HostCoo input = chapter_input(p.options, kMemory);
    if (!p.options.matrix.empty()) check.end_with(result_line(input));
    // The conversion wants rows in order; sorting them is a separate job, done here on the host.
    const HostCoo coo = sorted_by_row(input);
    const std::string name = p.options.matrix.empty()
                                 ? "R-MAT scale " + std::to_string(p.options.scale)
                                 : p.options.matrix;
    convert_and_check(p, name, coo, check);
    if (p.on_gpu() && p.options.scale > 0) time_routes(p, coo);
    return check.finish();
}
#endif
