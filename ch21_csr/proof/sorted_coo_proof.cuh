// What 120, 121 and 122 print and check alike around their lessons: the inputs that they convert,
// the poison that a refused conversion must leave in its outputs, and cuSPARSE's offsets.
#pragma once
#include <algorithm>
#include <string>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"
#include "../sorted_coo_contract.h"

// The conversion wants rows in order; sorting them is a separate job, done here on the host.
inline HostCoo row_sorted_input(const HostCoo& input) {
    if (input.nnz() >= kAnnouncedSize)
        announce("sorting " + counted(input.nnz(), "entry", "entries") + " by row, on the host");
    return sorted_by_row(input);
}

// The examples, or the chapter's input (--scale or --matrix) sorted by row, whose result: line
// ends the run.
inline std::vector<SortedCooInput> sorted_coo_inputs(const ProgramOptions& options,
                                                     SelfCheck& check) {
    if (options.book_example()) return sorted_coo_examples();
    const HostCoo input = chapter_input(options);
    check.end_with(result_line(input));
    return {{options.chosen_input_name(), row_sorted_input(input)}};
}

// Bitwise, because the poisoned weights are NaNs, which never compare equal to themselves.
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

// The library's answer, offsets only: cusparseXcoo2csr reads the sorted row ids and writes
// num_rows + 1 offsets, the job of the search kernels (120, 121) and of the one pass (122), done
// by NVIDIA's tuned code, which is the fair bar for them. With no entries every offset is 0 and
// the library is not asked, as 115 does: its documentation promises nothing for nnz = 0.
inline void launch_cusparse_offsets(const CusparseHandle& handle, const int* sorted_rows, int nnz,
                                    int num_rows, DeviceArray<int>& row_offsets) {
    if (nnz == 0) {
        row_offsets.fill_bytes(0);
        return;
    }
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
