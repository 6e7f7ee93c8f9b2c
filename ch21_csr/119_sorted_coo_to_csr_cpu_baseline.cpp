// 119 (21.3) CPU baseline: row-sorted COO to CSR, one lower-bound search per row boundary.
// When the COO entries are already sorted by row, CSR needs no sort, no histogram and no
// scatter. The columns and weights are already in CSR order and are copied as they are; only
// row_offsets must be found. Row r begins at the first entry whose row id is not below r, so
// row_offsets[r] is a lower-bound search for r in the sorted row ids, one independent search per
// boundary r = 0..num_rows (120 gives each search its own GPU thread). Empty rows show as
// repeated offsets by themselves; duplicate coordinates stay, as two entries.
//
// Build and run:  make 119_sorted_coo_to_csr_cpu_baseline
//                 build/119_sorted_coo_to_csr_cpu_baseline
#ifndef SORTED_COO_TO_CSR_CPU_119  // 120 takes this baseline as its own
#define SORTED_COO_TO_CSR_CPU_119
#include <vector>
#include "../common/binary_search.h"
// 114's lesson: count_degrees and scan_degrees, the count-and-scan route the search is held to
#include "114_csr_construction_cpu_baseline.cpp"
#include "sorted_coo_contract.h"

// The conversion's contract: row ids never decrease from one entry to the next, every row id is
// in [0, num_rows) and every column id in [0, num_cols). Entry k breaks it if its own ids are out
// of range or its row is below the row of entry k - 1 (breaks_contract, sorted_coo_contract.h).
// Returns the first entry that breaks it, or nnz.
inline int first_contract_violation(const HostCoo& coo) {
    const int nnz = static_cast<int>(coo.nnz());
    for (int k = 0; k < nnz; ++k)
        if (breaks_contract(coo.rows[k], coo.cols[k], k > 0 ? &coo.rows[k - 1] : nullptr,
                            coo.num_rows, coo.num_cols))
            return k;
    return nnz;
}

// Boundary r is the lower bound of r among the sorted row ids: one search per boundary, each on
// its own (120 gives each its own thread).
inline std::vector<int> row_boundary_cpu(const HostCoo& coo) {
    std::vector<int> row_offsets(static_cast<size_t>(coo.num_rows) + 1);
    for (int r = 0; r <= coo.num_rows; ++r)
        row_offsets[r] = lower_bound_index(coo.rows.data(), static_cast<int>(coo.nnz()), r);
    return row_offsets;
}

// The baseline. The search assumes sorted rows, so the contract is checked first, and a refused
// input leaves `csr` exactly as the caller handed it over: no half-built CSR can be mistaken for
// a result. The columns and weights are already in CSR order.
inline ContractVerdict sorted_coo_to_csr_cpu(const HostCoo& coo, HostCsr& csr) {
    const ContractVerdict verdict = contract_verdict(coo, first_contract_violation(coo));
    if (!verdict.holds()) return verdict;
    csr = {coo.num_rows, coo.num_cols, row_boundary_cpu(coo), coo.cols, coo.values};
    return verdict;
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/sorted_coo_proof.cuh"

int main(int argc, char** argv) {
    start_cpu_program(argc, argv, sorted_coo_to_csr_cpu_program());
    SelfCheck check;
    for (const SortedCooInput& input : sorted_coo_examples()) {
        show_sorted_coo(input.name, input.coo);
        HostCsr csr;
        const ContractVerdict verdict = sorted_coo_to_csr_cpu(input.coo, csr);
        if (!check_contract_kept(input, verdict, check)) continue;
        show_searches(input.coo, csr.row_offsets);
        // The cross-check counts each row's entries and scans the counts: it does not rely on the
        // order of the entries at all, only on the ids being in range.
        const std::vector<int> count = count_degrees(input.coo);
        const std::vector<int> by_counting = scan_degrees(count);
        show_counting(count, by_counting);
        check_conversion(input, csr, by_counting, csr, check);
    }
    show_refusals_heading(
        "every output byte is 0xFF before the check runs; a refusal must leave it so");
    for (const RefusalDemo& demo : refusal_demos()) {
        HostCsr csr = poisoned_csr(demo.coo);
        const ContractVerdict verdict = sorted_coo_to_csr_cpu(demo.coo, csr);
        check_refusal(demo, verdict, csr, check);
    }
    return check.finish();
}
#endif
#endif  // SORTED_COO_TO_CSR_CPU_119
