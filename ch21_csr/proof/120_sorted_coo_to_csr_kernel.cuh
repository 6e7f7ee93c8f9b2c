// What 120 prints, checks and times around its lesson (120_sorted_coo_to_csr_kernel.cu): the
// threads of both kernels, the claims about the CSR, CUB's and cuSPARSE's routes beside it, and
// the refusals.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>
#include "../../common/cub_scratch.cuh"
#include "../../common/timing_table.cuh"
// 119's lesson: its count and scan, which the baseline's offsets are held to
#include "../119_sorted_coo_to_csr_cpu_baseline.cpp"
#include "sorted_coo_proof.cuh"

inline ProgramDescription sorted_coo_to_csr_program() {
    return ProgramDescription(
               "120 (21.3) kernel: row-sorted COO -> CSR, one lower-bound search per row boundary",
               {"make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel",
                "build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G",
                "build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx"})
        .with_book_input("the card's example, one with empty rows and a duplicate, bad inputs")
        .with_memory({88, 36, 900e6});
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

__global__ void scatter_run_length_kernel(int max_runs, const int* num_runs, const int* run_rows,
                                          const int* run_lengths, int* counts) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < max_runs) scatter_run_length_thread(i, num_runs, run_rows, run_lengths, counts);
}

// The library route: cub::DeviceRunLengthEncode::Encode finds the runs of equal row ids and
// their lengths; the lengths land in a zeroed array of num_rows + 1 counts (the extra zero makes
// the scan's last output nnz); cub::DeviceScan::ExclusiveSum turns the counts into offsets. It is
// the fair comparison for the search: the same job, a sorted input's row ids to offsets and the
// same two copies, done by NVIDIA's tuned primitives. A validated input has at most
// min(nnz, num_rows) runs, which sizes the run arrays.
class RleScanRoute {
    // The two CUB calls, each made once for its size query and then for the work.
    auto encode(const int* rows) {
        return [this, rows](void* scratch, size_t& bytes) {
            return cub::DeviceRunLengthEncode::Encode(scratch, bytes, rows, run_rows_.data(),
                                                      run_lengths_.data(), num_runs_.data(), nnz_);
        };
    }
    auto scan(int* row_offsets) {
        return [this, row_offsets](void* scratch, size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(scratch, bytes, counts_.data(), row_offsets,
                                                 num_rows_ + 1);
        };
    }

public:
    RleScanRoute(const Here& here, int num_rows, int nnz)
        : here_(here.require_gpu("the RLE + scan route")),
          num_rows_(num_rows),
          nnz_(nnz),
          max_runs_(std::min(num_rows, nnz)),
          run_rows_(here, static_cast<size_t>(max_runs_)),
          run_lengths_(here, static_cast<size_t>(max_runs_)),
          num_runs_(here, size_t{1}),
          counts_(here, static_cast<size_t>(num_rows) + 1),
          scan_(scan(nullptr)) {
        if (nnz_ > 0) encode_ = CubScratch(encode(nullptr));
    }

    void launch(const DeviceCoo& coo, DeviceCsr& csr) {
        counts_.fill_bytes(0);
        if (nnz_ > 0) {
            encode_.run(encode(coo.rows.data()));
            here_.launch(blocks_for(max_runs_), kThreadsPerBlock, scatter_run_length_kernel,
                         scatter_run_length_thread, max_runs_, num_runs_.data(), run_rows_.data(),
                         run_lengths_.data(), counts_.data());
        }
        scan_.run(scan(csr.row_offsets.data()));
        copy_entry_arrays(here_, coo, csr);
    }

    int runs_found() const { return nnz_ == 0 ? 0 : num_runs_.download()[0]; }

private:
    Here here_;
    int num_rows_, nnz_, max_runs_;
    DeviceArray<int> run_rows_, run_lengths_, num_runs_, counts_;
    CubScratch encode_, scan_;
};

// The route's scratch outlives the conversion's last read of it, which the download waits for.
inline CooToCsrResult sorted_coo_to_csr_rle_scan(const Here& here, const HostCoo& coo) {
    RleScanRoute route(here, coo.num_rows, static_cast<int>(coo.nnz()));
    return validate_then_convert(here, coo,
                                 [&](const DeviceCoo& d, DeviceCsr& csr) { route.launch(d, csr); });
}

// The threads of both kernels, and, for a small input, what each boundary thread wrote.
inline void show_conversion(const HostCoo& coo, const CooToCsrResult& result) {
    const size_t boundaries = static_cast<size_t>(coo.num_rows) + 1;
    print_wrapped(
        "validation: " + counted(coo.nnz(), "thread") + ", one per entry; smallest bad " +
        "index " + with_separators(result.verdict.first_bad) + " (" +
        (result.converted() ? "= nnz: no entry breaks the contract" : result.verdict.refusal) +
        ")");
    print_wrapped("row boundaries: " + counted(boundaries, "thread") + " (" +
                  counted(blocks_for(boundaries), "block") + " of " +
                  std::to_string(kThreadsPerBlock) + "), thread r writes the lower bound of r");
    if (printable(coo) && result.converted()) {
        std::string line;
        for (size_t r = 0; r < boundaries; ++r) {
            line.resize(20 * (r % 4), ' ');
            line += "  thread " + std::to_string(r) + " -> " +
                    std::to_string(result.csr.row_offsets[r]);
            if (r % 4 == 3 || r + 1 == boundaries) std::printf("%s\n", line.c_str());
        }
    }
    std::printf("\n");
    if (result.converted()) print_csr("", result.csr);
}

// The claims that hold for any input: the kernels against the CPU baselines, the baselines'
// offsets against 119's count and scan, which does not depend on the order of the entries; then
// the example's own claims.
inline void check_conversion(const KernelProgram& p, const SortedCooInput& input, int first_bad_cpu,
                             const std::vector<int>& row_offsets_cpu, const CooToCsrResult& result,
                             SelfCheck& check) {
    const HostCoo& coo = input.coo;
    const std::string& name = input.name;
    const std::string where = p.here.name();
    const int nnz = static_cast<int>(coo.nnz());
    check.claim(name + ": the " + where +
                    " validation accepts it: its smallest bad index is nnz, as the CPU "
                    "baseline's",
                result.converted() && result.verdict.first_bad == nnz && first_bad_cpu == nnz);
    check.claim(name + ": row_offsets from the " + where +
                    " lower-bound search equal the CPU baseline's exactly",
                result.csr.row_offsets == row_offsets_cpu);
    check.claim(name + ": the CPU baseline's row_offsets equal 119's count and scan",
                row_offsets_cpu == row_offsets_by_counting(coo));
    check.claim(name + ": col_idx and weights equal the input's cols and weights exactly",
                result.csr.col_idx == coo.cols && result.csr.values == coo.values);
    const std::vector<int> empty_rows = rows_without_entries(coo);
    check.claim(name + ": the " + counted(empty_rows.size(), "row") +
                    " with no entries are exactly the rows whose offsets repeat",
                rows_with_repeated_offsets(result.csr.row_offsets) == empty_rows);
    check_example_facts(input, result.csr, check);
}

// The RLE + scan route and cuSPARSE's offsets, on a GPU, against the lesson's route.
inline void compare_with_library_routes(const KernelProgram& p, const SortedCooInput& input,
                                        const CooToCsrResult& result, SelfCheck& check) {
    const std::string rle_claim =
        input.name + ": the RLE + scan route (CUB) gives the same CSR as the lower-bound route";
    const std::string library_claim = input.name + ": cusparseXcoo2csr gives the same row_offsets";
    if (!p.on_gpu()) {
        check.skip(rle_claim);
        check.skip(library_claim);
        return;
    }
    const CooToCsrResult by_rle = sorted_coo_to_csr_rle_scan(p.here, input.coo);
    check.claim(rle_claim, by_rle.converted() && by_rle.csr.row_offsets == result.csr.row_offsets &&
                               by_rle.csr.col_idx == result.csr.col_idx &&
                               by_rle.csr.values == result.csr.values);
    check.claim(library_claim, offsets_by_cusparse(p.here, input.coo) == result.csr.row_offsets);
}

inline void check_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("--- inputs that break the contract: refused, and nothing is written ---\n");
    print_wrapped(std::string("(every output byte is 0xFF before the ") + p.here.name() +
                  " validation runs; a refusal must leave it so)");
    std::printf("\n");
    for (const RefusalDemo& demo : refusal_demos()) {
        const CooToCsrResult result = sorted_coo_to_csr(p.here, demo.coo);
        check.claim(demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                        ", the first bad one and the CPU baseline's, with \"" +
                        result.verdict.refusal + "\"; the outputs untouched",
                    !result.converted() && result.verdict.first_bad == demo.first_bad &&
                        validate_sorted_coo_cpu(demo.coo) == demo.first_bad &&
                        still_poisoned(result.csr));
    }
}

// The bytes that each timed step must move at the least, every array touched once (4-byte ids
// and weights; N entries, R + 1 offsets, U runs of equal row ids):
//   validation         reads rows and cols                                 8N
//   search kernel      writes the offsets; its searches read rows, and neighbouring boundaries
//                      end in neighbouring sectors, so with many rows (R-MAT: 16 entries per
//                      row) rows is read about once                        4N + 4(R + 1)
//   lower-bound route  the search, then cols and weights read and written  20N + 4(R + 1)
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
