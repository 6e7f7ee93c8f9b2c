// Exercise 21.5's harness: 115's count, scan and scatter, with the scatter's slots claimed by the
// warp-aggregated claim of ex21_5_warp_aggregated_scatter.cu. The claim sees the cuda context
// through AtomicCountingCuda, which counts every atomic that it issues, so the harness can hold
// the count against the (warp, counter) pairs that the edges make, counted on the host. The slots
// are checked as a permutation, the cursors against 115's serial count, and the rows against
// 115's CPU baseline as multisets, since the atomics decide the order within a row and nothing
// else.
#pragma once
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>
// 115's lesson: its count and scan (DeviceGrouping) and its CPU baseline (build_csr_cpu)
#include "../../115_csr_concurrent_construction_kernel.cu"
#include "exercise_program.h"

// The exercise: called by each lane of `active` (the lanes of this warp that hold an edge), with
// `counter`, the cursor of its edge's source, and `key`, that source; lanes with the same key
// have the same counter. Returns this lane's slot: a value that the counter held before, no two
// lanes of the launch getting the same one, as 115's atomic gives.
template <class Cuda>
__host__ __device__ int warp_aggregated_claim(Cuda& cuda, int* counter, int key, unsigned active);

// The cuda context as the claim sees it: each member is the real context's, and atomic_add also
// adds one to `issued` (an atomic of the harness, not counted itself).
template <class Cuda>
struct AtomicCountingCuda {
    __host__ __device__ AtomicCountingCuda(Cuda& cuda, unsigned long long* issued)
        : threadIdx(cuda.threadIdx),
          blockIdx(cuda.blockIdx),
          blockDim(cuda.blockDim),
          gridDim(cuda.gridDim),
          cuda_(cuda),
          issued_(issued) {}

    uint3 threadIdx, blockIdx;
    dim3 blockDim, gridDim;

    __host__ __device__ void syncwarp(unsigned mask) { cuda_.syncwarp(mask); }
    __host__ __device__ unsigned ballot_sync(unsigned mask, bool predicate) {
        return cuda_.ballot_sync(mask, predicate);
    }
    template <class T>
    __host__ __device__ unsigned match_any_sync(unsigned mask, T key) {
        return cuda_.match_any_sync(mask, key);
    }
    template <class T>
    __host__ __device__ T shfl_sync(unsigned mask, T value, int src_lane) {
        return cuda_.shfl_sync(mask, value, src_lane);
    }
    template <class T>
    __host__ __device__ T shfl_up_sync(unsigned mask, T value, unsigned delta) {
        return cuda_.shfl_up_sync(mask, value, delta);
    }
    template <class T>
    __host__ __device__ T shfl_down_sync(unsigned mask, T value, unsigned delta,
                                         int width = kWarpSize) {
        return cuda_.shfl_down_sync(mask, value, delta, width);
    }
    template <class T>
    __host__ __device__ T atomic_add(T* address, T value) {
        atomic_add_shim(issued_, 1ull);
        return cuda_.atomic_add(address, value);
    }

private:
    Cuda& cuda_;
    unsigned long long* issued_;
};

// 115's scatter, one thread per edge, each slot claimed by the exercise. The ballot names the
// whole warp, so every lane reaches it, those past the last edge too, which then leave. A slot
// outside the edges' arrays is recorded but not written, so that a wrong claim is a MISMATCH
// rather than a crash.
template <class Cuda>
__host__ __device__ void aggregated_scatter_lane(Cuda& cuda, int num_edges, const int* key,
                                                 const int* partner, const float* weight,
                                                 int* cursor, int* out_partner, float* out_weight,
                                                 int* slot_of_edge,
                                                 unsigned long long* atomics_issued) {
    const int e = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    const unsigned active = cuda.ballot_sync(kFullWarp, e < num_edges);
    if (e >= num_edges) return;
    AtomicCountingCuda<Cuda> counting(cuda, atomics_issued);
    const int slot = warp_aggregated_claim(counting, &cursor[key[e]], key[e], active);
    slot_of_edge[e] = slot;
    if (slot < 0 || slot >= num_edges) return;
    out_partner[slot] = partner[e];
    out_weight[slot] = weight[e];
}

__global__ void aggregated_scatter_kernel(int num_edges, const int* key, const int* partner,
                                          const float* weight, int* cursor, int* out_partner,
                                          float* out_weight, int* slot_of_edge,
                                          unsigned long long* atomics_issued) {
    DeviceCuda cuda;
    aggregated_scatter_lane(cuda, num_edges, key, partner, weight, cursor, out_partner,
                            out_weight, slot_of_edge, atomics_issued);
}

// What the build leaves: the CSR, each cursor where the scatter left it, each edge's slot, and
// the atomics that the claims issued.
struct AggregatedBuild {
    HostCsr csr;
    std::vector<int> cursor, slot_of_edge;
    unsigned long long atomics = 0;
};

inline AggregatedBuild build_with_aggregated_claims(const Here& here, const HostCoo& edges) {
    const DeviceCoo d(here, edges);
    DeviceGrouping csr(here, edges.num_rows, edges.num_cols, edges.nnz());
    csr.count(here, d.rows.data(), edges.nnz());
    csr.scan();
    csr.start_cursors(here);
    DeviceArray<int> slot_of_edge(here, edges.nnz());
    slot_of_edge.fill_bytes(0xFF);
    DeviceArray<unsigned long long> atomics(here, std::vector<unsigned long long>{0});
    here.launch_blocks({blocks_for(edges.nnz()), kThreadsPerBlock, 0}, aggregated_scatter_kernel,
                       aggregated_scatter_lane<EmulatedCuda>, d.nnz(), d.rows.data(),
                       d.cols.data(), d.values.data(), csr.cursor.data(),
                       csr.grouped.col_idx.data(), csr.grouped.values.data(), slot_of_edge.data(),
                       atomics.data());
    return {csr.grouped.download(), csr.cursor.download(), slot_of_edge.download(),
            atomics.download()[0]};
}

// The warps' distinct counters: the pairs (warp of edge e, source of edge e), warp e / 32, since
// every block is whole warps.
inline size_t warp_counter_pairs(const HostCoo& edges) {
    std::set<std::pair<size_t, int>> pairs;
    for (size_t e = 0; e < edges.nnz(); ++e) pairs.insert({e / kWarpSize, edges.rows[e]});
    return pairs.size();
}

inline bool is_permutation_of_slots(const std::vector<int>& slot_of_edge) {
    std::vector<char> taken(slot_of_edge.size(), 0);
    for (int slot : slot_of_edge) {
        if (slot < 0 || static_cast<size_t>(slot) >= taken.size() || taken[slot]) return false;
        taken[slot] = 1;
    }
    return true;
}

// Each cursor starts at its vertex's offset and ends that vertex's degree on.
inline bool cursors_moved_by_degrees(const AggregatedBuild& built,
                                     const std::vector<int>& degrees) {
    for (size_t v = 0; v < degrees.size(); ++v)
        if (built.cursor[v] - built.csr.row_offsets[v] != degrees[v]) return false;
    return true;
}

inline void check_aggregated_scatter(const KernelProgram& p, const ExerciseInput& input,
                                     SelfCheck& check) {
    const HostCoo& edges = input.coo;
    print_wrapped("--- " + input.name + ": " + counted(edges.num_rows, "vertex", "vertices") +
                  ", " + counted(edges.nnz(), "edge") + ", in " +
                  counted(blocks_for(edges.nnz(), kWarpSize), "warp") + " ---");
    const AggregatedBuild built = build_with_aggregated_claims(p.here, edges);
    const GroupedEdges baseline = build_csr_cpu(edges);
    const size_t pairs = warp_counter_pairs(edges);
    if (printable(edges)) {
        print_array("rows (the sources)", edges.rows, 18);
        print_array("slot_of_edge", built.slot_of_edge, 18);
        print_array("row_offsets", built.csr.row_offsets, 18);
        print_array("col_idx", built.csr.col_idx, 18);
        print_array("col_idx_cpu", baseline.grouped.col_idx, 18);
    }
    std::printf("  (warp, counter) pairs: %s; atomics that the claims issued: %s\n\n",
                with_separators(pairs).c_str(), with_separators(built.atomics).c_str());
    check.claim(input.name + ": each cursor moved on by its vertex's degree, counted serially",
                cursors_moved_by_degrees(built, baseline.counts));
    check.claim(input.name + ": the edges' slots are a permutation of 0 .. E - 1 (no slot twice)",
                is_permutation_of_slots(built.slot_of_edge));
    check.claim(input.name + ": each row holds the baseline's (destination, weight) multiset",
                same_row_multisets(built.csr, baseline.grouped));
    check.claim(input.name + ": at most one atomic for each (warp, counter) pair",
                built.atomics <= pairs);
    check.claim(input.name + ": no fewer: every pair's claim went through cuda.atomic_add",
                built.atomics >= pairs);
}

int main(int argc, char** argv) {
    const KernelProgram p = start_graph_exercise(
        argc, argv, "ex21_5_warp_aggregated_scatter",
        "exercise 21.5: 115's scatter with one atomic per warp and counter",
        "the book's example, a star of 1,000 vertices, an R-MAT graph of 2^10 vertices as "
        "generated and sorted by source",
        {152, 48, 1000e6});
    const HostCoo rmat = make_rmat(10, kEdgeFactor, kDefaultSkew, kGraphSeed);
    return run_exercise(p,
                        {{"the book's example", book_example_edges()},
                         {"a star of 1,000 vertices", make_star(1000, 0, kGraphSeed)},
                         {"R-MAT scale 10, as generated", rmat},
                         {"R-MAT scale 10, sorted by source", sorted_by_row(rmat)}},
                        [&](const ExerciseInput& input, SelfCheck& check) {
                            check_aggregated_scatter(p, input, check);
                        });
}
