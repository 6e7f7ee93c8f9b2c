// What the GPU builds of CSR (or CSC) from a raw edge list (115, 118, 123, 124) share: the claims
// against the baseline and a stable sort, CUB's sort-based builds and the timings.
#pragma once
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#ifdef __CUDACC__  // the library routes; a build without the CUDA Toolkit leaves them out
#include <cub/device/device_radix_sort.cuh>
#endif
#include "../../common/cub_scratch.cuh"
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "build_proof.h"  // the CPU lessons' printing: listed, slice_of

// A baseline that keeps arrival order in every row is the edges, keyed on the endpoint that it
// groups by, sorted stably by that key: an independent route that must agree slot by slot.
inline void check_baseline_is_stable_sort(const std::string& claim, const HostCsr& baseline,
                                          const HostCoo& keyed_edges, SelfCheck& check) {
    announce_large(keyed_edges.nnz(),
                   "a stable sort of " + counted(keyed_edges.nnz(), "edge") + " by key");
    check.claim(claim, same_slots(baseline, csr_from_coo_by_stable_sort(keyed_edges)));
}

// The kernels' rows against the baseline's: the offsets exactly, each row as a multiset (the
// atomics decide the order within a row and nothing else). `whose` names the build: "the GPU's".
inline void check_rows_as_baseline(const std::string& whose, const HostCsr& built,
                                   const HostCsr& baseline, SelfCheck& check) {
    check.claim(whose + " row_offsets equal the baseline's",
                built.row_offsets == baseline.row_offsets);
    announce_large(built.nnz(), "comparing every row with the baseline's, as multisets");
    check.claim(
        "every row of " + whose + " CSR holds the baseline's multiset of (neighbour, weight)",
        built.row_offsets == baseline.row_offsets && is_well_formed(built) &&
            rows_hold_same_entries(baseline.row_offsets, built, baseline));
}

// Edges staged by bucket (123's bins, each level of 124's pass 2) are right when each lies in its
// row's bucket r >> shift, slots [first_slot(g), first_slot(g + 1)), and rows hold the baseline's.
template <class FirstSlot>
bool staged_by_bucket(const HostCoo& staged, int shift, int num_buckets, FirstSlot first_slot,
                      const HostCsr& baseline) {
    if (staged.nnz() != baseline.nnz()) return false;
    long long misplaced = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : misplaced)
    for (int g = 0; g < num_buckets; ++g)
        for (int k = first_slot(g); k < first_slot(g + 1); ++k)
            misplaced += staged.rows[k] < 0 || staged.rows[k] >= staged.num_rows ||
                         staged.rows[k] >> shift != g;
    return misplaced == 0 && holds_rows_of(staged, baseline);
}

// The library route's steps around its sort: what moves with each key (an int payload is the
// edge's index, for a gather; a 64-bit one, its (col, weight) packed), then each slot filled.
template <class Payload>
__host__ __device__ void edge_payload_thread(int e, const int* cols, const float* weights,
                                             Payload* payload) {
    if constexpr (sizeof(Payload) == sizeof(int)) {
        payload[e] = e;
    } else {
        unsigned weight_bits;
        memcpy(&weight_bits, &weights[e], sizeof weight_bits);
        payload[e] = static_cast<Payload>(static_cast<unsigned>(cols[e])) << 32 | weight_bits;
    }
}

template <class Payload>
__global__ void edge_payload_kernel(int num_edges, const int* cols, const float* weights,
                                    Payload* payload) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < num_edges) edge_payload_thread(e, cols, weights, payload);
}

template <class Payload>
__host__ __device__ void fill_slot_thread(int slot, const Payload* sorted_payload, const int* cols,
                                          const float* weights, int* col_idx, float* values) {
    if constexpr (sizeof(Payload) == sizeof(int)) {
        const int e = sorted_payload[slot];  // loaded once: col_idx's store may alias it
        col_idx[slot] = cols[e];
        values[slot] = weights[e];
    } else {
        const unsigned weight_bits = static_cast<unsigned>(sorted_payload[slot]);
        col_idx[slot] = static_cast<int>(sorted_payload[slot] >> 32);
        memcpy(&values[slot], &weight_bits, sizeof weight_bits);
    }
}

template <class Payload>
__global__ void fill_slot_kernel(int num_edges, const Payload* sorted_payload, const int* cols,
                                 const float* weights, int* col_idx, float* values) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot < num_edges) fill_slot_thread(slot, sorted_payload, cols, weights, col_idx, values);
}

#ifdef __CUDACC__
// row_offsets from the sorted sources by cusparseXcoo2csr.
struct Coo2csrOffsets {
    void operator()(const int* sorted_src, int num_edges, DeviceCsr& csr) {
        if (num_edges == 0) return csr.row_offsets.fill_bytes(0);
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, sorted_src, num_edges, csr.num_rows,
                                        csr.row_offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
    }
    CusparseHandle handle;
};

// The library route to the same CSR, on a GPU only: a stable cub::DeviceRadixSort::SortPairs on
// the source, so the CSR must equal the baseline exactly. An int Payload needs a gather after the
// sort (the gather-sort build); (col, weight) packed needs none (124's payload-sort build).
template <class Payload, class Offsets>
struct SortCsrBuild {
    auto sort_call(const int* src) {
        return [=](void* scratch, size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(scratch, bytes, src, sorted_src.data(),
                                                   payload.data(), sorted_payload.data(),
                                                   static_cast<int>(payload.size()), 0, key_bits);
        };
    }

    SortCsrBuild(int num_rows, int num_cols, size_t num_edges)
        : payload(gpu, num_edges),
          sorted_payload(gpu, num_edges),
          sorted_src(gpu, num_edges),
          csr(gpu, num_rows, num_cols, num_edges) {
        key_bits = bits_for(num_rows);
        sort_scratch = CubScratch(sort_call(nullptr));
    }

    void sort(const DeviceCoo& edges) { sort_scratch.run(sort_call(edges.rows.data())); }

    void run(const DeviceCoo& edges) {
        const int n = edges.nnz();
        gpu.launch(blocks_for(n), kThreadsPerBlock, edge_payload_kernel<Payload>,
                   edge_payload_thread<Payload>, n, edges.cols.data(), edges.values.data(),
                   payload.data());
        if (n > 0) sort(edges);
        gpu.launch(blocks_for(n), kThreadsPerBlock, fill_slot_kernel<Payload>,
                   fill_slot_thread<Payload>, n, sorted_payload.data(), edges.cols.data(),
                   edges.values.data(), csr.col_idx.data(), csr.values.data());
        offsets(sorted_src.data(), n, csr);
    }

    const Here gpu = Here::gpu();
    int key_bits = 1;
    DeviceArray<Payload> payload, sorted_payload;
    DeviceArray<int> sorted_src;
    DeviceCsr csr;
    CubScratch sort_scratch;
    Offsets offsets;
};

#else
// Declared only: a build without the CUDA Toolkit names these routes in the claims it skips.
struct Coo2csrOffsets;
template <class Payload, class Offsets>
struct SortCsrBuild;
#endif

using GatherSortCsrBuild = SortCsrBuild<int, Coo2csrOffsets>;

// A sort-based build checked against the baseline, slot by slot, on a GPU only.
template <class Build>
void check_sort_build(const KernelProgram& p, const std::string& claim, const HostCoo& edges,
                      const HostCsr& baseline, SelfCheck& check) {
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    const DeviceCoo d(p.here, edges);
    Build build(edges.num_rows, edges.num_cols, edges.nnz());
    build.run(d);
    check.claim(claim, same_slots(build.csr.download(), baseline));
#endif
}

// The least bytes of each step of 115's grouping, every array touched once (count: keys in,
// counts out; scan: counts in, offsets out; scatter: offsets to cursors, 3 edge arrays in, 2 out).
struct GroupingBytes {
    double count, scan, scatter;
    double total() const { return count + scan + scatter; }
};

inline GroupingBytes grouping_bytes(size_t num_keys, size_t num_edges) {
    const double k = 4.0 * (num_keys + 1), e = 4.0 * num_edges;
    return {e + k, 2 * k, 2 * k + 5 * e};
}

// 115's atomic build, whole, beside another build: DeviceGrouping keyed on the source.
inline double timed_atomic_build(TimingTable& table, const Here& here, const DeviceCoo& d,
                                 double bytes) {
    DeviceGrouping grouping(here, d.num_rows, d.num_cols, d.nnz());
    return table.time("count_scan_scatter", "count + scan + scatter (115)", bytes,
                      [&] { grouping.build(here, here, d.rows, d.cols, d.values); });
}

#ifdef __CUDACC__
// The gather-sort build, whole, beside another build.
inline double timed_gather_sort_build(TimingTable& table, const HostCoo& edges, const DeviceCoo& d,
                                      double bytes) {
    GatherSortCsrBuild by_sort(edges.num_rows, edges.num_cols, edges.nnz());
    return table.time("cub_sort_build", "gather-sort build (CUB sort, gather, coo2csr)", bytes,
                      [&] { by_sort.run(d); });
}
#endif

// Each step of a grouping timed alone (after an untimed build leaves the scatter its offsets),
// then the three together. `keys` names the key endpoint.
struct GroupingTimes {
    double count_ms, build_ms;
};

inline GroupingTimes timed_grouping_steps(TimingTable& table, const Here& here,
                                          DeviceGrouping& grouping, const DeviceArray<int>& key,
                                          const DeviceArray<int>& partner,
                                          const DeviceArray<float>& weight,
                                          const std::string& keys) {
    const size_t n = key.size();
    auto build = [&] { grouping.build(here, here, key, partner, weight); };
    build();
    const GroupingBytes bytes = grouping_bytes(grouping.grouped.num_rows, n);
    const double count_ms = table.time("atomic_count", "1 count, a histogram of the " + keys,
                                       bytes.count, [&] { grouping.count(here, key.data(), n); });
    table.time("cub_scan", "2 scan, cub::DeviceScan::ExclusiveSum", bytes.scan,
               [&] { grouping.scan(); });
    table.time("atomic_scatter", "3 scatter, an atomicAdd on a cursor per edge", bytes.scatter,
               [&] { grouping.scatter(here, key.data(), partner.data(), weight.data(), n); });
    return {count_ms,
            table.time("count_scan_scatter", "count + scan + scatter", bytes.total(), build)};
}

constexpr const char* kGroupingBytesNote =
    "bytes: what each step must move at least; a whole build, 24 per edge and 20 per vertex";
