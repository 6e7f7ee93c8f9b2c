// 120, kernel: row-sorted COO to CSR, one thread per row boundary, each a lower-bound search.
// Row r starts at the first entry whose row is not below r, so the num_rows + 1 offsets are that
// many independent binary searches (119 runs them in a loop): no atomics, no scan, no waiting.
// Columns and values are already in CSR order and are copied. First the input is checked, one
// thread per entry; atomicMin keeps the first offender, and a refused input is never written.
// On a GPU, CUB's run-length encoding (then a scatter and a scan) and cusparseXcoo2csr run too.
//
// Build and run:  make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel
//                 build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G
//                 build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx
#include <algorithm>
#include <cstdio>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/device_formats.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "../common/timing_table.cuh"
#include "chapter_inputs.h"
#include "row_search.cuh"
#include "sorted_coo_contract.h"

// Entry k breaks the contract (rows never decrease, rows in [0, num_rows), columns in
// [0, num_cols)) if its own ids are out of range or its row is below entry k - 1's, so a thread
// reads only its own entry and the one before. Any number of threads may find a bad entry, in
// any order; the minimum does not depend on the order in which they arrive, so the report
// always names the first offender, as a sequential check would.
__host__ __device__ inline void validate_entry_thread(int k, const int* rows, const int* cols,
                                                      int num_rows, int num_cols, int* first_bad) {
    const int row = rows[k], col = cols[k];
    if (row < 0 || row >= num_rows || col < 0 || col >= num_cols || (k > 0 && rows[k - 1] > row))
        atomic_min_shim(first_bad, k);
}

__global__ void validate_sorted_coo_kernel(int nnz, const int* rows, const int* cols, int num_rows,
                                           int num_cols, int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) validate_entry_thread(k, rows, cols, num_rows, num_cols, first_bad);
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

// Run i of equal row ids, as CUB's run-length encoding found it, is all of that row's entries:
// its length is the row's count. Rows with no run keep the zero that they were given. The
// number of runs exists only on the device, so the grid covers the most runs there can be and
// the threads past the actual number return: the host never waits to learn it.
__host__ __device__ inline void scatter_run_length_thread(int i, const int* num_runs,
                                                          const int* run_rows,
                                                          const int* run_lengths, int* counts) {
    if (i < *num_runs) counts[run_rows[i]] = run_lengths[i];
}

__global__ void scatter_run_lengths_kernel(int max_runs, const int* num_runs, const int* run_rows,
                                           const int* run_lengths, int* counts) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < max_runs) scatter_run_length_thread(i, num_runs, run_rows, run_lengths, counts);
}

// The CPU baseline: count each row's entries, scan the counts into offsets, copy the entry
// arrays. It needs the ids in range, not sorted rows, so it checks the search without sharing
// its idea.
inline HostCsr sorted_coo_to_csr_cpu(const HostCoo& coo) {
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

// One value from an array where the kernels run: enough to describe a refused entry without
// bringing the whole input back to the host.
template <class T>
T fetch_one(const Here& here, const T* where) {
    T value{};
    if (here.on_gpu())
        CUDA_CHECK(cudaMemcpy(&value, where, sizeof(T), cudaMemcpyDeviceToHost));
    else
        value = *where;
    return value;
}

// The validation's state: the smallest bad index so far, and nnz, the value that it starts
// from. Resetting it by a copy where the kernels run keeps the check free of host round trips,
// so that it can be timed alone.
struct ValidationState {
    ValidationState(const Here& here, int nnz)
        : start(here, std::vector<int>{nnz}), first_bad(here, size_t{1}) {}
    int first_bad_index() const { return first_bad.download()[0]; }
    DeviceArray<int> start, first_bad;
};

inline void launch_validation(const Here& here, const DeviceCoo& coo, ValidationState& state) {
    copy_where_kernels_run(here, state.first_bad.data(), state.start.data(), 1);
    here.launch(coo.nnz(), validate_sorted_coo_kernel, validate_entry_thread, coo.rows.data(),
                coo.cols.data(), coo.num_rows, coo.num_cols, state.first_bad.data());
}

// The offsets alone: num_rows + 1 threads, so there is always at least one.
inline void launch_row_boundaries(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    here.launch(static_cast<size_t>(coo.num_rows) + 1, row_boundary_kernel, row_boundary_thread,
                coo.rows.data(), coo.nnz(), csr.row_offsets.data());
}

// Columns and values are already where CSR wants them.
inline void copy_entry_arrays(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    copy_where_kernels_run(here, csr.col_idx.data(), coo.cols.data(), coo.cols.size());
    copy_where_kernels_run(here, csr.values.data(), coo.values.data(), coo.values.size());
}

inline void launch_lower_bound_route(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    launch_row_boundaries(here, coo, csr);
    copy_entry_arrays(here, coo, csr);
}

// The second route: CUB finds the runs of equal row ids and their lengths; the lengths land in
// a zeroed array of num_rows + 1 counts (the extra zero makes the scan's last output nnz); an
// exclusive scan turns the counts into offsets. A validated input has at most
// min(nnz, num_rows) runs, which sizes the run arrays.
class RleScanRoute {
public:
    RleScanRoute(const Here& here, int num_rows, int nnz)
        : here_(here.require_gpu("the RLE + scan route")),
          num_rows_(num_rows),
          nnz_(nnz),
          max_runs_(std::min(num_rows, nnz)),
          run_rows_(here, static_cast<size_t>(max_runs_)),
          run_lengths_(here, static_cast<size_t>(max_runs_)),
          num_runs_(here, size_t{1}),
          counts_(here, static_cast<size_t>(num_rows) + 1) {
        size_t encode_bytes = 0, scan_bytes = 0;
        if (nnz_ > 0)
            CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
                nullptr, encode_bytes, static_cast<const int*>(nullptr), run_rows_.data(),
                run_lengths_.data(), num_runs_.data(), nnz_));
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts_.data(),
                                                 static_cast<int*>(nullptr), num_rows_ + 1));
        // A null scratch pointer asks CUB for the size only, so never hand it an empty buffer.
        scratch_ =
            DeviceArray<unsigned char>(here, std::max<size_t>({encode_bytes, scan_bytes, 1}));
    }

    void launch(const DeviceCoo& coo, DeviceCsr& csr) {
        counts_.fill_bytes(0);
        size_t bytes = scratch_.size();
        if (nnz_ > 0) {
            CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(scratch_.data(), bytes, coo.rows.data(),
                                                          run_rows_.data(), run_lengths_.data(),
                                                          num_runs_.data(), nnz_));
            here_.launch(max_runs_, scatter_run_lengths_kernel, scatter_run_length_thread,
                         num_runs_.data(), run_rows_.data(), run_lengths_.data(), counts_.data());
        }
        bytes = scratch_.size();
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch_.data(), bytes, counts_.data(),
                                                 csr.row_offsets.data(), num_rows_ + 1));
        copy_entry_arrays(here_, coo, csr);
    }

    int runs_found() const { return nnz_ == 0 ? 0 : num_runs_.download()[0]; }

private:
    Here here_;
    int num_rows_, nnz_, max_runs_;
    DeviceArray<int> run_rows_, run_lengths_, num_runs_, counts_;
    DeviceArray<unsigned char> scratch_;
};

// The library's answer, offsets only: cusparseXcoo2csr reads the sorted row ids and writes
// num_rows + 1 offsets. With no entries every offset is 0 and the library is not asked, as 115
// does: its documentation promises nothing for nnz = 0.
inline void launch_cusparse_offsets(const CusparseHandle& handle, const int* sorted_rows, int nnz,
                                    int num_rows, DeviceArray<int>& row_offsets) {
    if (nnz == 0) {
        row_offsets.fill_bytes(0);
        return;
    }
    CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_rows, nnz, num_rows, row_offsets.data(),
                                    CUSPARSE_INDEX_BASE_ZERO));
}

// What a conversion reports: the first bad index (nnz when there is none), the reason for a
// refusal, and the outputs as the conversion left them, which after a refusal are the poison
// (every byte 0xFF) that DeviceCsr filled them with.
struct CooToCsrResult {
    int first_bad = 0;
    std::string refusal;
    HostCsr csr;
    bool converted() const { return refusal.empty(); }
};

inline std::string describe_bad_entry(const Here& here, const DeviceCoo& coo, int k) {
    const int previous_row = k > 0 ? fetch_one(here, coo.rows.data() + k - 1) : 0;
    return describe_bad_entry(k, previous_row, fetch_one(here, coo.rows.data() + k),
                              fetch_one(here, coo.cols.data() + k), coo.num_rows, coo.num_cols);
}

// Validates, then runs `convert` only if no entry breaks the contract.
template <class Convert>
CooToCsrResult validate_then_convert(const Here& here, const HostCoo& coo, Convert&& convert) {
    const DeviceCoo d(here, coo);
    DeviceCsr csr(here, coo.num_rows, coo.num_cols, coo.nnz());
    ValidationState validation(here, d.nnz());
    launch_validation(here, d, validation);
    CooToCsrResult result;
    result.first_bad = validation.first_bad_index();
    if (result.first_bad < d.nnz())
        result.refusal = describe_bad_entry(here, d, result.first_bad);
    else
        convert(d, csr);
    result.csr = csr.download();
    return result;
}

// The smallest index of an entry that breaks the contract, or nnz.
inline int validate_sorted_coo(const Here& here, const HostCoo& coo) {
    const DeviceCoo d(here, coo);
    ValidationState validation(here, d.nnz());
    launch_validation(here, d, validation);
    return validation.first_bad_index();
}

// The lesson's route: validation, one search per row boundary, two copies.
inline CooToCsrResult coo_to_csr(const Here& here, const HostCoo& coo) {
    return validate_then_convert(here, coo, [&](const DeviceCoo& d, DeviceCsr& csr) {
        launch_lower_bound_route(here, d, csr);
    });
}

// The route's scratch outlives the conversion's last read of it, which the download waits for.
inline CooToCsrResult coo_to_csr_rle_scan(const Here& here, const HostCoo& coo) {
    RleScanRoute route(here, coo.num_rows, static_cast<int>(coo.nnz()));
    return validate_then_convert(here, coo,
                                 [&](const DeviceCoo& d, DeviceCsr& csr) { route.launch(d, csr); });
}

// cuSPARSE's offsets for an input that keeps the contract (the library does not check it).
inline std::vector<int> offsets_by_cusparse(const Here& here, const HostCoo& coo) {
    const DeviceCoo d(here.require_gpu("cusparseXcoo2csr"), coo);
    DeviceArray<int> row_offsets(here, static_cast<size_t>(coo.num_rows) + 1);
    row_offsets.fill_bytes(0xFF);
    CusparseHandle handle;
    launch_cusparse_offsets(handle, d.rows.data(), d.nnz(), d.num_rows, row_offsets);
    return row_offsets.download();
}

// Bitwise, because the poisoned values are NaNs, which never compare equal to themselves.
template <class T>
bool every_byte_is_poison(const std::vector<T>& a) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(a.data());
    return std::all_of(bytes, bytes + a.size() * sizeof(T),
                       [](unsigned char b) { return b == 0xFF; });
}

inline bool still_poisoned(const HostCsr& c) {
    return every_byte_is_poison(c.row_offsets) && every_byte_is_poison(c.col_idx) &&
           every_byte_is_poison(c.values);
}

inline void show_input(const std::string& name, const HostCoo& coo) {
    print_wrapped("--- " + name + ": " + counted(coo.num_rows, "row") + ", " +
                  counted(coo.num_cols, "column") + ", " + counted(coo.nnz(), "entry", "entries") +
                  ", sorted by row ---");
    if (!printable(coo)) return;
    print_array("rows", coo.rows, 11);
    print_array("cols", coo.cols, 11);
    print_array("values", coo.values, 11);
}

// The threads of both kernels, and, for a small input, what each boundary thread wrote.
inline void show_conversion(const HostCoo& coo, const CooToCsrResult& result) {
    const size_t boundaries = static_cast<size_t>(coo.num_rows) + 1;
    print_wrapped("validation: " + counted(coo.nnz(), "thread") + ", one per entry; smallest bad " +
                  "index " + with_separators(result.first_bad) + " (" +
                  (result.converted() ? "= nnz: no entry breaks the contract" : result.refusal) +
                  ")");
    print_wrapped("row boundaries: " + counted(boundaries, "thread") + " (" +
                  counted(blocks_for(boundaries), "block") + " of " +
                  std::to_string(kThreadsPerBlock) + "), thread r writes the lower bound of r");
    if (!printable(coo) || !result.converted()) return;
    std::string line;
    for (size_t r = 0; r < boundaries; ++r) {
        line.resize(20 * (r % 4), ' ');
        line +=
            "  thread " + std::to_string(r) + " -> " + std::to_string(result.csr.row_offsets[r]);
        if (r % 4 == 3 || r + 1 == boundaries) std::printf("%s\n", line.c_str());
    }
    print_array("row_offsets", result.csr.row_offsets, 11);
    print_array("col_idx", result.csr.col_idx, 11);
    print_array("values", result.csr.values, 11);
}

// Converts one input by every route that this machine can run, prints what a reader should
// see, and states the claims that hold for any input. Returns the lower-bound route's result.
inline CooToCsrResult check_conversion(const KernelProgram& p, const std::string& name,
                                       const HostCoo& coo, SelfCheck& check) {
    show_input(name, coo);
    if (coo.nnz() >= kAnnouncedSize)
        announce("validating and converting " + counted(coo.nnz(), "entry", "entries") + " (" +
                 p.here.name() + ")");
    const CooToCsrResult result = coo_to_csr(p.here, coo);
    show_conversion(coo, result);
    std::printf("\n");

    const std::string where = p.here.name();
    const HostCsr expected = sorted_coo_to_csr_cpu(coo);
    check.claim(name + ": the " + where + " validation accepts it (smallest bad index = nnz)",
                result.converted() && result.first_bad == static_cast<int>(coo.nnz()));
    check.claim(name + ": row_offsets from the " + where +
                    " lower-bound search equal the CPU baseline's exactly",
                result.csr.row_offsets == expected.row_offsets);
    check.claim(name + ": col_idx and values equal the input's cols and values exactly",
                result.csr.col_idx == coo.cols && result.csr.values == coo.values);
    const std::vector<int> empty_rows = rows_without_entries(coo);
    check.claim(name + ": the " + counted(empty_rows.size(), "row") +
                    " with no entries are exactly the rows whose offsets repeat",
                rows_with_repeated_offsets(result.csr.row_offsets) == empty_rows);
    const std::string rle_claim =
        name + ": the RLE + scan route (CUB) gives the same CSR as the lower-bound route";
    const std::string library_claim = name + ": cusparseXcoo2csr gives the same row_offsets";
    if (!p.on_gpu()) {
        check.skip(rle_claim);
        check.skip(library_claim);
        return result;
    }
    const CooToCsrResult by_rle = coo_to_csr_rle_scan(p.here, coo);
    check.claim(rle_claim, by_rle.converted() && by_rle.csr.row_offsets == result.csr.row_offsets &&
                               by_rle.csr.col_idx == result.csr.col_idx &&
                               by_rle.csr.values == result.csr.values);
    check.claim(library_claim, offsets_by_cusparse(p.here, coo) == result.csr.row_offsets);
    return result;
}

inline void check_card_example(const KernelProgram& p, SelfCheck& check) {
    const CooToCsrResult card = check_conversion(p, "the card's example", card_example(), check);
    check.claim("the card's example: row_offsets = [ 0 2 3 5 ], as on the card",
                card.csr.row_offsets == kCardRowOffsets);
}

inline void check_gaps_example(const KernelProgram& p, SelfCheck& check) {
    const CooToCsrResult gaps = check_conversion(p, "empty rows 0, 2, 3, 6 and a duplicate (4, 3)",
                                                 gaps_and_duplicate_example(), check);
    check.claim(
        "the empty rows 0 (start), 2 and 3 (middle), 6 (end) show as repeated offsets, "
        "and no other row does",
        rows_with_repeated_offsets(gaps.csr.row_offsets) == kGapsEmptyRows);
    check.claim("the duplicate (4, 3) is kept: nnz stays 6 and row 4 holds both copies, 40 and 50",
                gaps.converted() && gaps.csr.nnz() == 6 &&
                    weights_at(gaps.csr, 4, 3) == std::vector<float>{40, 50});
}

inline void check_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("--- inputs that break the contract: refused, and nothing is written ---\n");
    print_wrapped(std::string("(every output byte is 0xFF before the ") + p.here.name() +
                  " validation runs; a refusal must leave it so)");
    std::printf("\n");
    for (const RefusalDemo& demo : refusal_demos()) {
        const CooToCsrResult result = coo_to_csr(p.here, demo.coo);
        check.claim(
            demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                ", the first bad one, with \"" + result.refusal + "\"; the outputs untouched",
            !result.converted() && static_cast<size_t>(result.first_bad) == demo.first_bad &&
                still_poisoned(result.csr));
    }
}

// The conversion wants rows in order; sorting them is a separate job, done here on the host.
inline HostCoo row_sorted_input(const HostCoo& input) {
    if (input.nnz() >= kAnnouncedSize)
        announce("sorting " + counted(input.nnz(), "entry", "entries") + " by row, on the host");
    return sorted_by_row(input);
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
inline void time_routes(const KernelProgram& p, const HostCoo& coo) {
    const Here& here = p.here;
    const DeviceCoo d(here, coo);
    DeviceCsr csr(here, coo.num_rows, coo.num_cols, coo.nnz());
    ValidationState validation(here, d.nnz());
    RleScanRoute rle(here, d.num_rows, d.nnz());
    CusparseHandle handle;
    DeviceArray<int> library_offsets(here, static_cast<size_t>(coo.num_rows) + 1);
    rle.launch(d, csr);  // to count the runs, which the RLE route's bytes depend on

    const double n = static_cast<double>(coo.nnz()), r = coo.num_rows + 1.0;
    const double u = rle.runs_found();
    TimingTable table(
        p, "120", p.options.skew,
        "bytes: the least that each step must move, for N = " + with_separators(coo.nnz()) +
            " entries, R + 1 = " + with_separators(coo.num_rows + 1) +
            " offsets and U = " + with_separators(rle.runs_found()) + " runs of equal row ids");
    const double validation_ms =
        table.time("validate_sorted_coo", "validation (one thread per entry)", 8 * n,
                   [&] { launch_validation(here, d, validation); });
    const double search_ms =
        table.time("row_boundary_search", "search kernel alone (offsets only)", 4 * n + 4 * r,
                   [&] { launch_row_boundaries(here, d, csr); });
    const double lower_bound_ms =
        table.time("lower_bound_route", "lower-bound route (search + 2 copies)", 20 * n + 4 * r,
                   [&] { launch_lower_bound_route(here, d, csr); });
    const double rle_ms = table.time("rle_scan_route", "RLE + scan route (CUB, scatter, 2 copies)",
                                     20 * n + 20 * u + 12 * r, [&] { rle.launch(d, csr); });
    const double library_ms =
        table.time("cusparse_coo2csr", "cusparseXcoo2csr (offsets only)", 4 * n + 4 * r, [&] {
            launch_cusparse_offsets(handle, d.rows.data(), d.nnz(), d.num_rows, library_offsets);
        });
    table.ratio("cuSPARSE / search kernel, both offsets only", library_ms / search_ms,
                "cuSPARSE is faster");
    table.ratio("cuSPARSE (offsets only) / lower-bound route", library_ms / lower_bound_ms);
    table.ratio("cuSPARSE (offsets only) / RLE + scan route", library_ms / rle_ms);
    table.ratio("validation / lower-bound route", validation_ms / lower_bound_ms,
                "the check costs less than the route");
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "120 kernel: row-sorted COO -> CSR, one lower-bound search per row boundary",
            {"make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel",
             "build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G",
             "build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx"})
            .with_book_input("the card's example, one with empty rows and a duplicate, bad inputs")
            .with_memory({88, 36, 900e6}));
    SelfCheck check;
    if (p.options.book_example()) {
        check_card_example(p, check);
        check_gaps_example(p, check);
        check_refusals(p, check);
        return check.finish();
    }
    const HostCoo input = chapter_input(p.options);
    check.end_with(result_line(input));
    const HostCoo coo = row_sorted_input(input);
    const std::string name =
        p.options.scale > 0 ? "R-MAT scale " + std::to_string(p.options.scale) : p.options.matrix;
    check_conversion(p, name, coo, check);
    if (p.on_gpu() && p.options.scale > 0) time_routes(p, coo);
    return check.finish();
}
#endif
