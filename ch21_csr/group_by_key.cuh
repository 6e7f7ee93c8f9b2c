// Count, scan, scatter: the parallel way to group a raw edge list by one of its endpoints.
// Grouped by source it builds CSR (115); grouped by destination it builds CSC (118). The code
// is written once, over a "key" endpoint and a "partner" endpoint, so that the two programs
// visibly run the same three steps:
//   1. count  one thread per edge: atomicAdd(&counts[key[e]], 1), a histogram of the keys.
//   2. scan   an exclusive prefix sum of the counts gives each key's offset (CUB on the GPU).
//   3. scatter one thread per edge claims a slot from its key's cursor with atomicAdd (a bump
//             allocator per key) and writes its partner and weight there.
// The atomics in step 3 decide only which slot within a key's slice each edge gets, never
// which slice: the slices are right as multisets, in whatever order the atomics resolved.
#pragma once
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <numeric>
#include <vector>
#include "../common/cuda_support.cuh"
#include "../common/emulator.cuh"
#include "../common/sparse_host.h"

__host__ __device__ inline void count_key_thread(int e, const int* key, int* counts) {
    atomic_add_shim(&counts[key[e]], 1);
}

__host__ __device__ inline void scatter_by_key_thread(int e, const int* key, const int* partner,
                                                      const float* weight, int* cursor,
                                                      int* out_partner, float* out_weight) {
    const int slot = atomic_add_shim(&cursor[key[e]], 1);
    out_partner[slot] = partner[e];
    out_weight[slot] = weight[e];
}

// static: every program and test file that includes this header gets its own copy of the
// kernels, so that several of them can be linked into one test binary.
static __global__ void count_key_kernel(int num_edges, const int* key, int* counts) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) count_key_thread(e, key, counts);
}

static __global__ void scatter_by_key_kernel(int num_edges, const int* key, const int* partner,
                                      const float* weight, int* cursor, int* out_partner,
                                      float* out_weight) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) scatter_by_key_thread(e, key, partner, weight, cursor, out_partner, out_weight);
}

// A raw edge list on the device.
struct DeviceEdgeList {
    explicit DeviceEdgeList(const HostCoo& g)
        : num_rows(g.num_rows), num_cols(g.num_cols), src(g.rows), dst(g.cols), weight(g.values) {}
    int num_edges() const { return static_cast<int>(src.size()); }
    int num_rows, num_cols;
    DeviceBuffer<int> src, dst;
    DeviceBuffer<float> weight;
};

// The outputs and scratch space of one grouping on the device; each step can be run (and
// timed) on its own. `counts` has one extra, zero entry so that the scan's last output is the
// edge count: offsets then has num_keys + 1 entries, as CSR wants.
class DeviceGrouping {
public:
    DeviceGrouping(int num_keys, int num_partners, size_t num_edges)
        : num_keys_(num_keys), num_partners_(num_partners), counts(num_keys + 1),
          offsets(num_keys + 1), cursor(num_keys + 1), partner(num_edges), weight(num_edges) {
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(), offsets.data(),
                                                 num_keys + 1));
        // A null scratch pointer asks CUB for the size only, so never hand it an empty buffer.
        scan_scratch = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }

    void count(const int* key, int num_edges) {
        counts.fill_bytes(0);
        if (num_edges == 0) return;
        count_key_kernel<<<blocks_for(num_edges), kThreadsPerBlock>>>(num_edges, key, counts.data());
        CUDA_CHECK_LAUNCH();
    }

    void scan() {
        size_t bytes = scan_scratch.size();
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch.data(), bytes, counts.data(),
                                                 offsets.data(), num_keys_ + 1));
    }

    void scatter(const int* key, const int* partner_in, const float* weight_in, int num_edges) {
        CUDA_CHECK(cudaMemcpyAsync(cursor.data(), offsets.data(), offsets.bytes(),
                                   cudaMemcpyDeviceToDevice));
        if (num_edges == 0) return;
        scatter_by_key_kernel<<<blocks_for(num_edges), kThreadsPerBlock>>>(
            num_edges, key, partner_in, weight_in, cursor.data(), partner.data(), weight.data());
        CUDA_CHECK_LAUNCH();
    }

    void run(const int* key, const int* partner_in, const float* weight_in, int num_edges) {
        count(key, num_edges);
        scan();
        scatter(key, partner_in, weight_in, num_edges);
    }

    // The grouping as a host CSR: row r lists the partners of key r.
    HostCsr download() const {
        HostCsr c;
        c.num_rows = num_keys_;
        c.num_cols = num_partners_;
        c.row_offsets = offsets.download();
        c.col_idx = partner.download();
        c.values = weight.download();
        return c;
    }

    std::vector<int> download_counts() const {
        std::vector<int> c = counts.download();
        c.pop_back();
        return c;
    }

private:
    int num_keys_, num_partners_;

public:
    DeviceBuffer<int> counts, offsets, cursor, partner;
    DeviceBuffer<float> weight;
    DeviceBuffer<unsigned char> scan_scratch;
};

// The same three steps in emulation: the same per-thread bodies, run by the host emulator in
// the given thread orders. The scan, a library call on the GPU, is a sequential scan here.
struct EmulatedGrouping {
    std::vector<int> counts;  // one per key
    HostCsr grouped;
};

inline EmulatedGrouping group_by_key_emulated(int num_keys, int num_partners,
                                              const std::vector<int>& key,
                                              const std::vector<int>& partner,
                                              const std::vector<float>& weight,
                                              const ThreadOrder& count_order,
                                              const ThreadOrder& scatter_order) {
    EmulatedGrouping out;
    out.counts.assign(num_keys, 0);
    emulate_threads(key.size(), count_order,
                    [&](int e) { count_key_thread(e, key.data(), out.counts.data()); });
    HostCsr& g = out.grouped;
    g.num_rows = num_keys;
    g.num_cols = num_partners;
    g.row_offsets.assign(static_cast<size_t>(num_keys) + 1, 0);
    std::partial_sum(out.counts.begin(), out.counts.end(), g.row_offsets.begin() + 1);
    std::vector<int> cursor(g.row_offsets.begin(), g.row_offsets.end() - 1);
    g.col_idx.assign(key.size(), -1);
    g.values.assign(key.size(), -1.0f);
    emulate_threads(key.size(), scatter_order, [&](int e) {
        scatter_by_key_thread(e, key.data(), partner.data(), weight.data(), cursor.data(),
                              g.col_idx.data(), g.values.data());
    });
    return out;
}
