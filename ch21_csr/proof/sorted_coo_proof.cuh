// What 119 to 122 print, check and time: each conversion against its CPU baseline and the
// examples' facts, the refusals, and on a GPU the library routes (CUB's RLE + scan, coo2csr).
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"
#include "../sorted_coo_contract.h"

inline ProgramDescription sorted_coo_to_csr_cpu_program() {
    return ProgramDescription(
               "119 (21.3) CPU baseline: row-sorted COO -> CSR, one lower-bound search per row "
               "boundary",
               {"make 119_sorted_coo_to_csr_cpu_baseline",
                "build/119_sorted_coo_to_csr_cpu_baseline"})
        .with_book_input(
            "the card's example, one with empty rows and a duplicate, three bad inputs")
        .without_inputs();
}

inline ProgramDescription sorted_coo_to_csr_program() {
    return ProgramDescription(
               "120 (21.3) kernel: row-sorted COO -> CSR, one lower-bound search per row boundary",
               {"make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel",
                "build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G",
                "build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx"})
        .with_book_input("the card's example, one with empty rows and a duplicate, bad inputs")
        .with_memory({88, 36, 900e6});
}

inline ProgramDescription one_pass_program() {
    return ProgramDescription(
               "122 (21.3) kernel: row-sorted COO -> CSR, one coalesced pass over the row ids",
               {"make 122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G"})
        .with_book_input("the card's example and one with empty rows and a duplicate")
        .with_memory({88, 36, 900e6});
}

// The examples, or the chapter's input sorted by row here (sorting is not the lesson's job).
inline std::vector<SortedCooInput> sorted_coo_inputs(const ProgramOptions& options,
                                                     SelfCheck& check) {
    if (options.book_example()) return sorted_coo_examples();
    const HostCoo input = chapter_input(options);
    check.end_with(result_line(input));
    announce_large(input.nnz(),
                   "sorting " + counted(input.nnz(), "entry", "entries") + " by row, on the host");
    return {{options.chosen_input_name(), sorted_by_row(input)}};
}

inline void show_sorted_coo(const std::string& name, const HostCoo& coo) {
    print_wrapped("--- " + name + ": " + counted(coo.num_rows, "row") + ", " +
                  counted(coo.num_cols, "column") + ", " + counted(coo.nnz(), "entry", "entries") +
                  ", sorted by row ---");
    if (coo.nnz() >= kAnnouncedSize) announce("converting it, by the CPU baseline and the kernels");
    if (!printable(coo)) return;
    print_array("rows", coo.rows, 11);
    print_array("cols", coo.cols, 11);
    print_array("weights", coo.values, 11);
}

// Outputs start with every byte 0xFF, as DeviceCsr's do, and a refusal must leave them so;
// compared bitwise, because a NaN never equals itself.
inline HostCsr poisoned_csr(const HostCoo& coo) {
    HostCsr csr{coo.num_rows, coo.num_cols, std::vector<int>(coo.num_rows + 1, -1),
                std::vector<int>(coo.nnz(), -1), std::vector<float>(coo.nnz())};
    std::memset(csr.values.data(), 0xFF, csr.values.size() * sizeof(float));
    return csr;
}

inline bool still_poisoned(const HostCsr& c) {
    const auto poison = [](const auto& a) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(a.data());
        return std::all_of(bytes, bytes + a.size() * sizeof(a[0]),
                           [](unsigned char b) { return b == 0xFF; });
    };
    return poison(c.row_offsets) && poison(c.col_idx) && poison(c.values);
}

inline bool check_contract_kept(const SortedCooInput& input, const ContractVerdict& verdict,
                                SelfCheck& check) {
    std::printf("contract check: rows never decrease, rows in [0, %d), columns in [0, %d): %s\n",
                input.coo.num_rows, input.coo.num_cols,
                verdict.holds() ? "kept" : verdict.refusal.c_str());
    const bool kept = check.claim(input.name + ": the contract check accepts it", verdict.holds());
    std::printf("\n");
    return kept;
}

// 119: where each boundary's search stops; a repeated offset means the row before is empty.
inline void show_searches(const HostCoo& coo, const std::vector<int>& row_offsets) {
    std::printf(
        "route 1, one lower-bound search per boundary r = 0..%d (the first entry whose "
        "row is not below r):\n",
        coo.num_rows);
    for (int r = 0; r <= coo.num_rows; ++r) {
        const int k = row_offsets[r];
        if (static_cast<size_t>(k) == coo.nnz())
            std::printf("  r = %d: runs off the end (no row >= %d)", r, r);
        else
            std::printf("  r = %d: lands on entry %d (row %d)", r, k, coo.rows[k]);
        std::printf(" -> row_offsets[%d] = %d", r, k);
        if (r > 0 && row_offsets[r - 1] == k)
            std::printf(", as for r = %d: row %d is empty", r - 1, r - 1);
        std::printf("\n");
    }
}

inline void show_counting(const std::vector<int>& count, const std::vector<int>& by_counting) {
    std::printf("route 2, count the entries of each row, then an exclusive scan of the counts:\n");
    print_array("count", count, 11);
    print_array("row_offsets", by_counting, 11);
    std::printf("\n");
}

// Read off the input itself, not off any offsets.
inline std::vector<int> rows_without_entries(const HostCoo& coo) {
    const std::vector<int> count = entries_per_row(coo);
    std::vector<int> rows;
    for (int r = 0; r < coo.num_rows; ++r)
        if (count[r] == 0) rows.push_back(r);
    return rows;
}

// Read off the offsets: the rows whose slice [row_offsets[r], row_offsets[r + 1]) is empty.
inline std::vector<int> rows_with_repeated_offsets(const std::vector<int>& row_offsets) {
    std::vector<int> rows;
    for (size_t r = 0; r + 1 < row_offsets.size(); ++r)
        if (row_offsets[r] == row_offsets[r + 1]) rows.push_back(static_cast<int>(r));
    return rows;
}

inline std::vector<float> weights_at(const HostCsr& csr, int row, int col) {
    std::vector<float> weights;
    for (int k = csr.row_offsets[row]; k < csr.row_offsets[row + 1]; ++k)
        if (csr.col_idx[k] == col) weights.push_back(csr.values[k]);
    return weights;
}

// The input's columns and weights, then the examples' own claims.
inline void check_entries_and_examples(const SortedCooInput& input, const HostCsr& csr,
                                       SelfCheck& check) {
    check.claim(input.name + ": col_idx and weights are the input's cols and weights, unchanged",
                csr.col_idx == input.coo.cols && csr.values == input.coo.values);
    if (input.example == SortedCooInput::card)
        check.claim("the card's example: row_offsets = [ 0 2 3 5 ], as on the card",
                    csr.row_offsets == kCardRowOffsets);
    if (input.example != SortedCooInput::gaps) return;
    check.claim(
        "the rows with no entries (0 at the start, 2 and 3 in the middle, 6 at the end) are "
        "exactly the rows whose offsets repeat",
        rows_without_entries(input.coo) == kGapsEmptyRows &&
            rows_with_repeated_offsets(csr.row_offsets) == kGapsEmptyRows);
    check.claim("the duplicate (4, 3) is kept: nnz stays 6 and row 4 holds both copies, 40 and 50",
                csr.nnz() == 6 && weights_at(csr, 4, 3) == std::vector<float>{40, 50});
}

// The CPU baseline against the count and scan, which ignores the entries' order; then the rest.
inline void check_conversion(const SortedCooInput& input, const HostCsr& csr_cpu,
                             const std::vector<int>& by_counting, const HostCsr& csr,
                             SelfCheck& check) {
    check.claim(input.name +
                    ": the CPU baseline's searches and the count-and-scan route give the same "
                    "row_offsets",
                csr_cpu.row_offsets == by_counting);
    check_entries_and_examples(input, csr, check);
}

inline void show_refusals_heading(const std::string& poison) {
    std::printf("--- inputs that break the contract: refused, and nothing is written ---\n");
    print_wrapped("(" + poison + ")");
    std::printf("\n");
}

// A refusal names the first bad entry (and the CPU baseline's, for a kernel's) and writes nothing.
inline void check_refusal(const RefusalDemo& demo, const ContractVerdict& verdict,
                          const HostCsr& outputs, SelfCheck& check,
                          std::optional<int> first_bad_cpu = std::nullopt) {
    check.claim(demo.what + ": refused at entry " + std::to_string(demo.first_bad) +
                    ", the first bad one" + (first_bad_cpu ? " and the CPU baseline's" : "") +
                    ", with \"" + verdict.refusal + "\"; the outputs untouched",
                !verdict.holds() && verdict.first_bad == demo.first_bad &&
                    first_bad_cpu.value_or(demo.first_bad) == demo.first_bad &&
                    still_poisoned(outputs));
}

// 120 to 122: the kernels' programs
#if defined(__CUDACC__) || defined(SUITE_EMULATOR_ONLY)
#ifdef __CUDACC__  // the library routes; a build without the CUDA Toolkit leaves them out
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#endif
#include "../../common/cub_scratch.cuh"
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/kernel_program.cuh"
#include "../../common/timing_table.cuh"

// A launch of a lesson's kernels (or copies) from a one-piece COO into a one-piece CSR.
using CooLaunch = void (*)(const Here&, const DeviceCoo&, DeviceCsr&);

#ifdef __CUDACC__  // the library routes: a build without the CUDA Toolkit leaves them out
// cusparseXcoo2csr does the offsets' job of 120 to 122 in NVIDIA's tuned code, the fair bar.
// With no entries it is not asked, as in 115: its documentation promises nothing for nnz = 0.
inline void launch_cusparse_offsets(const CusparseHandle& handle, const int* sorted_rows, int nnz,
                                    int num_rows, DeviceArray<int>& row_offsets) {
    if (nnz == 0) return row_offsets.fill_bytes(0);
    CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_rows, nnz, num_rows, row_offsets.data(),
                                    CUSPARSE_INDEX_BASE_ZERO));
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
#endif

inline void claim_cusparse_offsets(const KernelProgram& p, const std::string& name,
                                   const HostCoo& coo, const std::vector<int>& row_offsets,
                                   SelfCheck& check) {
    const std::string claim = name + ": cusparseXcoo2csr gives the same row_offsets";
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    check.claim(claim, offsets_by_cusparse(p.here, coo) == row_offsets);
#endif
}

// Run i of equal row ids is all of its row's entries, its length the row's count. The number
// of runs lives on the device, so the grid covers the most there can be: the host never waits.
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

#ifdef __CUDACC__
// The library route: CUB's run-length encoding gives each row's count into num_rows + 1 zeroed
// counts (the extra zero makes the last offset nnz), an exclusive sum the offsets, then the
// lesson's two copies. A validated input has at most min(nnz, num_rows) runs.
class RleScanRoute {
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
    RleScanRoute(const Here& here, int num_rows, int nnz, CooLaunch copy_entries)
        : here_(here.require_gpu("the RLE + scan route")),
          num_rows_(num_rows),
          nnz_(nnz),
          max_runs_(std::min(num_rows, nnz)),
          copy_entries_(copy_entries),
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
        copy_entries_(here_, coo, csr);
    }

    int runs_found() const { return nnz_ == 0 ? 0 : num_runs_.download()[0]; }

private:
    Here here_;
    int num_rows_, nnz_, max_runs_;
    CooLaunch copy_entries_;
    DeviceArray<int> run_rows_, run_lengths_, num_runs_, counts_;
    CubScratch encode_, scan_;
};
#endif

inline void show_conversion(const HostCoo& coo, const ContractVerdict& verdict, const HostCsr& csr,
                            unsigned blocks, unsigned threads) {
    const size_t boundaries = static_cast<size_t>(coo.num_rows) + 1;
    print_wrapped("validation: " + counted(coo.nnz(), "thread") + ", one per entry; smallest bad " +
                  "index " + with_separators(verdict.first_bad) + " (" +
                  (verdict.holds() ? "= nnz: no entry breaks the contract" : verdict.refusal) +
                  ")");
    print_wrapped("row boundaries: " + counted(boundaries, "thread") + " (" +
                  counted(blocks, "block") + " of " + std::to_string(threads) +
                  "), thread r writes the lower bound of r");
    for (size_t r = 0; printable(coo) && verdict.holds() && r < boundaries; ++r) {
        const std::string thread =
            "  thread " + std::to_string(r) + " -> " + std::to_string(csr.row_offsets[r]);
        std::printf(r % 4 == 3 || r + 1 == boundaries ? "%s\n" : "%-20s", thread.c_str());
    }
    std::printf("\n");
    if (verdict.holds()) print_csr("", csr);
}

inline void check_conversion(const KernelProgram& p, const SortedCooInput& input,
                             const ContractVerdict& verdict_cpu, const HostCsr& csr_cpu,
                             const std::vector<int>& by_counting, const ContractVerdict& verdict,
                             const HostCsr& csr, SelfCheck& check) {
    const std::string where = p.here.name();
    const int nnz = static_cast<int>(input.coo.nnz());
    check.claim(input.name + ": the " + where +
                    " validation accepts it: its smallest bad index is nnz, as the CPU "
                    "baseline's",
                verdict.holds() && verdict.first_bad == nnz && verdict_cpu.first_bad == nnz);
    check.claim(input.name + ": row_offsets from the " + where +
                    " lower-bound search equal the CPU baseline's exactly",
                csr.row_offsets == csr_cpu.row_offsets);
    const std::vector<int> empty_rows = rows_without_entries(input.coo);
    check.claim(input.name + ": the " + counted(empty_rows.size(), "row") +
                    " with no entries are exactly the rows whose offsets repeat",
                rows_with_repeated_offsets(csr.row_offsets) == empty_rows);
    check_conversion(input, csr_cpu, by_counting, csr, check);
}

// 120: the RLE + scan route and cuSPARSE against the lesson's route; at --scale all timed. The
// least bytes per step (N entries, R + 1 offsets, U runs): validation reads rows and cols, 8N;
// the search reads rows about once (neighbouring boundaries share sectors) and writes the
// offsets, 4N + 4(R + 1), as coo2csr; the route adds the two copies, 20N + 4(R + 1); RLE + scan
// writes and reads U pairs and U counts, zeroes, scans and copies, 20N + 20U + 12(R + 1).
template <class ValidationState>
void compare_with_library(const KernelProgram& p, const std::string& name, const HostCoo& coo,
                          const HostCsr& csr, SelfCheck& check, CooLaunch copy_entries,
                          void (*validate)(const Here&, const DeviceCoo&, ValidationState&),
                          CooLaunch search, CooLaunch lower_bound_route) {
    const std::string rle_claim =
        name + ": the RLE + scan route (CUB) gives the same CSR as the lower-bound route";
    if (!p.on_gpu()) check.skip(rle_claim);
    claim_cusparse_offsets(p, name, coo, csr.row_offsets, check);
    if (!p.on_gpu()) return;
#ifdef __CUDACC__
    const Here& here = p.here;
    const DeviceCoo d(here, coo);
    DeviceCsr out(here, coo.num_rows, coo.num_cols, coo.nnz());
    RleScanRoute rle(here, d.num_rows, d.nnz(), copy_entries);
    rle.launch(d, out);
    const HostCsr by_rle = out.download();
    check.claim(rle_claim, by_rle.row_offsets == csr.row_offsets && by_rle.col_idx == csr.col_idx &&
                               by_rle.values == csr.values);
    if (p.options.scale <= 0) return;

    ValidationState validation(here, d.nnz());
    CusparseHandle handle;
    DeviceArray<int> library_offsets(here, static_cast<size_t>(coo.num_rows) + 1);
    const double n = static_cast<double>(coo.nnz()), r = coo.num_rows + 1.0;
    TimingTable table(
        p, "120", p.options.skew,
        "bytes: the least that each step must move, for N = " + with_separators(coo.nnz()) +
            " entries, R + 1 = " + with_separators(coo.num_rows + 1) +
            " offsets and U = " + with_separators(rle.runs_found()) + " runs of equal row ids");
    const double validation_ms =
        table.time("validate_sorted_coo", "validation (one thread per entry)", 8 * n,
                   [&] { validate(here, d, validation); });
    const double search_ms = table.time("row_boundary_search", "search kernel alone (offsets only)",
                                        4 * n + 4 * r, [&] { search(here, d, out); });
    const double lower_bound_ms =
        table.time("lower_bound_route", "lower-bound route (search + 2 copies)", 20 * n + 4 * r,
                   [&] { lower_bound_route(here, d, out); });
    const double rle_ms =
        table.time("rle_scan_route", "RLE + scan route (CUB, scatter, 2 copies)",
                   20 * n + 20.0 * rle.runs_found() + 12 * r, [&] { rle.launch(d, out); });
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
#endif
}

// 122: which thread writes which offsets, read off the row ids as the threads do.
template <class ThreadOfEntry>
void show_writers(const HostCoo& coo, int num_threads, int entries_per_thread,
                  int entries_per_group, ThreadOfEntry thread_of_entry) {
    std::printf(
        "%s in warps of %d, each thread for up to %d entries in groups of %d: the thread of "
        "entry k writes the offsets of the rows that start at k\n",
        counted(num_threads, "thread").c_str(), kWarpSize, entries_per_thread, entries_per_group);
    if (!printable(coo)) return;
    for (size_t k = 0; k < coo.nnz(); ++k) {
        const int left = k == 0 ? -1 : coo.rows[k - 1], row = coo.rows[k];
        std::string writes;
        for (int r = left + 1; r <= row; ++r) writes += " row_offsets[" + std::to_string(r) + "]";
        if (k + 1 == coo.nnz())
            for (int r = row + 1; r <= coo.num_rows; ++r)
                writes += " row_offsets[" + std::to_string(r) + "]=nnz";
        const std::string where =
            "row " + std::to_string(row) +
            (k == 0 ? ", the first entry" : " after row " + std::to_string(left));
        std::printf("  thread %d, entry %zu (%s):%s\n", thread_of_entry(k), k, where.c_str(),
                    writes.empty() ? " nothing (same row as its left neighbour)" : writes.c_str());
    }
}

inline void check_one_pass(const KernelProgram& p, const SortedCooInput& input,
                           const std::vector<int>& row_offsets_cpu, const ContractVerdict& verdict,
                           const HostCsr& csr, const std::vector<int>& by_search,
                           SelfCheck& check) {
    if (printable(input.coo)) print_array("row_offsets", csr.row_offsets, 11);
    std::printf("\n");
    check.claim(input.name + ": row_offsets from the " + p.here.name() +
                    " one-pass kernel equal the CPU baseline's exactly",
                verdict.holds() && csr.row_offsets == row_offsets_cpu);
    check.claim(input.name + ": they equal 120's one search per row boundary",
                csr.row_offsets == by_search);
    check_entries_and_examples(input, csr, check);
}

// 122: cuSPARSE's offsets checked; at --scale the offsets alone timed by both kernels and it.
inline void compare_with_library(const KernelProgram& p, const std::string& name,
                                 const HostCoo& coo, const HostCsr& csr, SelfCheck& check,
                                 CooLaunch one_pass, CooLaunch search) {
    claim_cusparse_offsets(p, name, coo, csr.row_offsets, check);
    if (!p.on_gpu() || p.options.scale <= 0) return;
#ifdef __CUDACC__
    const Here& here = p.here;
    const DeviceCoo d(here, coo);
    DeviceCsr out(here, coo.num_rows, coo.num_cols, coo.nnz());
    CusparseHandle handle;
    DeviceArray<int> library_offsets(here, static_cast<size_t>(coo.num_rows) + 1);
    const double bytes = 4.0 * coo.nnz() + 4.0 * (coo.num_rows + 1.0);
    TimingTable table(p, "122", p.options.skew,
                      "bytes: the N row ids read once and the R + 1 offsets written once");
    const double one_pass_ms = table.time("row_change_scatter", "one pass over the row ids (122)",
                                          bytes, [&] { one_pass(here, d, out); });
    const double search_ms = table.time("row_boundary_search", "one search per row boundary (120)",
                                        bytes, [&] { search(here, d, out); });
    const double library_ms = table.time("cusparse_coo2csr", "cusparseXcoo2csr", bytes, [&] {
        launch_cusparse_offsets(handle, d.rows.data(), d.nnz(), d.num_rows, library_offsets);
    });
    table.ratio("one pass / cusparseXcoo2csr", one_pass_ms / library_ms, "the one pass is faster");
    table.ratio("one pass / one search per row", one_pass_ms / search_ms, "the one pass is faster");
#endif
}

#endif  // __CUDACC__ || SUITE_EMULATOR_ONLY
