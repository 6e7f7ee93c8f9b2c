// 122 (21.3) kernel: row-sorted COO to CSR in one coalesced pass over the row ids.
// 120 gives each row boundary a thread and a binary search: log2(nnz) scattered reads. Here a
// thread reads the row ids of two groups of four neighbouring entries, and of the entry left of
// each group, beside the other threads of its warp: the row array is read once, coalesced. Where an
// entry's row differs from its left neighbour's, rows start there: the thread writes the offsets of
// every row in between (empty ones too), so each offset has one writer and no atomics or scan are
// needed.
//
// Build and run:  make 122_sorted_coo_to_csr_one_pass_kernel
//                 build/122_sorted_coo_to_csr_one_pass_kernel
//                 build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G

#include "../common/warp.h"
// 120's lesson: validate_then_convert, copy_entry_arrays, and the search it is timed against
#include "120_sorted_coo_to_csr_kernel.cu"

constexpr int kEntriesPerGroup = 4;
constexpr int kGroupsPerThread = 2;
constexpr int kEntriesPerThread = kEntriesPerGroup * kGroupsPerThread;
constexpr int kEntriesPerWarp = kEntriesPerThread * kWarpSize;

// The first entry of group g of thread t. The threads of a warp take consecutive groups, so each
// of the warp's loads reads 512 consecutive bytes, and its next load the next 512.
__host__ __device__ inline int group_first(int t, int g) {
    const int warp = t / kWarpSize, lane = t % kWarpSize;
    return warp * kEntriesPerWarp + (g * kWarpSize + lane) * kEntriesPerGroup;
}

// The row ids of entries first .. first + 3, as many of them as exist (none from nnz on). On the
// GPU a full group is one 16-byte int4 load: rows comes from cudaMalloc, so rows + first, a
// multiple of 16 bytes past it, is aligned for one.
__host__ __device__ inline int load_row_ids(const int* rows, int first, int nnz,
                                            int (&row)[kEntriesPerGroup]) {
    if (first >= nnz) return 0;
    const int count = nnz - first < kEntriesPerGroup ? nnz - first : kEntriesPerGroup;
#ifdef __CUDA_ARCH__
    if (count == kEntriesPerGroup) {
        const int4 four = *reinterpret_cast<const int4*>(rows + first);
        row[0] = four.x, row[1] = four.y, row[2] = four.z, row[3] = four.w;
        return count;
    }
#endif
    for (int i = 0; i < count; ++i) row[i] = rows[first + i];
    return count;
}

// The CPU baseline, in the kernel's shape: the same walk over the entries, all of them, one
// after another. Entry k starts the rows (left, row]; the rows after the last entry's end at nnz.
inline std::vector<int> row_change_cpu(const HostCoo& coo) {
    const int nnz = static_cast<int>(coo.nnz());
    std::vector<int> row_offsets(static_cast<size_t>(coo.num_rows) + 1);
    int left = -1;
    for (int k = 0; k < nnz; ++k) {
        for (int r = left + 1; r <= coo.rows[k]; ++r) row_offsets[r] = k;
        left = coo.rows[k];
    }
    for (int r = left + 1; r <= coo.num_rows; ++r) row_offsets[r] = nnz;
    return row_offsets;
}

// Thread t loads both of its groups' row ids, and the row of the entry left of each, before it
// uses any: a thread that waits for one 16-byte load keeps too few bytes in flight to fill the
// memory pipe. Entry k starts the rows (left, row]: their first entry is k, so each of their
// offsets is k. The last entry also closes the rows after its own: their offsets are nnz. With no
// entries at all, one thread writes every offset, 0. The loops have fixed counts, so that the
// arrays stay in registers.
__host__ __device__ inline void row_change_thread(int t, const int* rows, int nnz, int num_rows,
                                                  int* row_offsets) {
    if (nnz == 0) {
        for (int r = 0; r <= num_rows; ++r) row_offsets[r] = 0;
        return;
    }
    int row[kGroupsPerThread][kEntriesPerGroup], count[kGroupsPerThread], left[kGroupsPerThread];
    UNROLL_ON_DEVICE
    for (int g = 0; g < kGroupsPerThread; ++g) {
        const int first = group_first(t, g);
        count[g] = load_row_ids(rows, first, nnz, row[g]);
        left[g] = first == 0 || first > nnz ? -1 : rows[first - 1];
    }
    UNROLL_ON_DEVICE
    for (int g = 0; g < kGroupsPerThread; ++g) {
        const int first = group_first(t, g);
        UNROLL_ON_DEVICE
        for (int i = 0; i < kEntriesPerGroup; ++i) {
            if (i >= count[g]) continue;
            for (int r = left[g] + 1; r <= row[g][i]; ++r) row_offsets[r] = first + i;
            left[g] = row[g][i];
        }
        if (count[g] > 0 && first + count[g] == nnz)
            for (int r = left[g] + 1; r <= num_rows; ++r) row_offsets[r] = nnz;
    }
}

__global__ void row_change_kernel(int num_threads, const int* rows, int nnz, int num_rows,
                                  int* row_offsets) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads) row_change_thread(t, rows, nnz, num_rows, row_offsets);
}

// Whole warps of threads, a thread for up to kEntriesPerThread entries (one thread in all for an
// empty input), wherever the kernels run.
inline int row_change_threads(size_t nnz) {
    const size_t warps = (nnz + kEntriesPerWarp - 1) / kEntriesPerWarp;
    return std::max(1, static_cast<int>(warps * kWarpSize));
}

// Those threads in blocks of 256 (eight warps), as many blocks as cover them.
inline void launch_row_changes(const Here& here, const DeviceCoo& coo, DeviceCsr& csr) {
    const int num_threads = row_change_threads(coo.nnz());
    const unsigned threads = 256;
    const unsigned blocks = (num_threads + threads - 1) / threads;
    here.launch(blocks, threads, row_change_kernel, row_change_thread, num_threads, coo.rows.data(),
                coo.nnz(), coo.num_rows, csr.row_offsets.data());
}

// The whole conversion, after 120's check: the offsets in one pass, then 120's two copies.
inline CooToCsrResult sorted_coo_to_csr_one_pass(const Here& here, const HostCoo& coo) {
    return validate_then_convert(here, coo, [&](const DeviceCoo& d, DeviceCsr& csr) {
        launch_row_changes(here, d, csr);
        copy_entry_arrays(here, d, csr);
    });
}

// The thread that reads entry k, group_first backwards: main shows who reads what.
inline int thread_of_entry(size_t k) {
    const int warp = static_cast<int>(k / kEntriesPerWarp);
    const int lane = static_cast<int>(k % kEntriesPerWarp / kEntriesPerGroup % kWarpSize);
    return warp * kWarpSize + lane;
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/sorted_coo_proof.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, one_pass_program());
    SelfCheck check;
    for (const SortedCooInput& input : sorted_coo_inputs(p.options, check)) {
        const std::vector<int> row_offsets_cpu = row_change_cpu(input.coo);
        show_sorted_coo(input.name, input.coo);
        show_writers(input.coo, row_change_threads(input.coo.nnz()), kEntriesPerThread,
                     kEntriesPerGroup, thread_of_entry);
        const CooToCsrResult result = sorted_coo_to_csr_one_pass(p.here, input.coo);
        const CooToCsrResult by_search = sorted_coo_to_csr(p.here, input.coo);
        check_one_pass(p, input, row_offsets_cpu, result.verdict, result.csr,
                       by_search.csr.row_offsets, check);
        compare_with_library(p, input.name, input.coo, result.csr, check, launch_row_changes,
                             launch_row_boundaries);
    }
    return check.finish();
}
#endif
