// Exercise 21.4's harness: row_offsets as the exclusive scan of the degrees, built from the block
// scan of ex21_4_block_scan.cu. 115's step 2 leaves this scan to CUB; here each block of
// kScanThreads threads scans one tile of the degrees with the exercise's body, the tiles' totals
// are scanned the same way (each level has kScanThreads times fewer items than the one below),
// and every tile then adds the sum of the tiles before it. The degrees are counted on the host:
// only the scan is the exercise's. Its row_offsets are compared with 114's serial scan, and its
// last entry with the edges counted apart.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
// 115's lesson, and through it 114's serial count and scan (count_degrees, scan_degrees)
#include "../../115_csr_concurrent_construction_kernel.cu"
#include "exercise_program.h"

constexpr int kScanThreads = 256;

// The exercise: called by every thread of a block, each with its own value; returns the sum of
// the values of the threads below it in the block (0 for thread 0). `sums` is blockDim.x ints
// of the block's shared memory, for the body to use as it likes.
template <class Cuda>
__host__ __device__ int exclusive_block_scan(Cuda& cuda, int value, int* sums);

// One tile of values per block: each value's prefix within its tile, and the tile's total,
// which the tile's last thread knows as its prefix plus its own value. A thread past the last
// value scans a 0, so that every thread of the block takes part.
template <class Cuda>
__host__ __device__ void scan_tile_block(Cuda& cuda, int n, const int* values, int* prefixes,
                                         int* tile_totals) {
    int* sums = shared_array<int>(cuda, cuda.blockDim.x);
    const int i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    const int value = i < n ? values[i] : 0;
    const int prefix = exclusive_block_scan(cuda, value, sums);
    if (i < n) prefixes[i] = prefix;
    if (cuda.threadIdx.x == cuda.blockDim.x - 1) tile_totals[cuda.blockIdx.x] = prefix + value;
}

__global__ void scan_tile_kernel(int n, const int* values, int* prefixes, int* tile_totals) {
    DeviceCuda cuda;
    scan_tile_block(cuda, n, values, prefixes, tile_totals);
}

// Value i's prefix within its tile becomes its prefix within all values.
__host__ __device__ inline void add_tile_offset_thread(int i, const int* tile_offsets,
                                                       int* prefixes) {
    prefixes[i] += tile_offsets[i / kScanThreads];
}

__global__ void add_tile_offset_kernel(int n, const int* tile_offsets, int* prefixes) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) add_tile_offset_thread(i, tile_offsets, prefixes);
}

// offsets[0, n) = the exclusive scan of values[0, n), and offsets[n] = their total. Without
// values there is no launch, and the total is the 0 that tile_totals starts with.
inline void exclusive_scan_by_blocks(const Here& here, const int* values, int n, int* offsets) {
    const unsigned tiles = blocks_for(n, kScanThreads);
    DeviceArray<int> tile_totals(here, std::vector<int>(std::max(tiles, 1u), 0));
    here.launch_blocks({tiles, kScanThreads, SharedBytes().add<int>(kScanThreads).total()},
                       scan_tile_kernel, scan_tile_block<EmulatedCuda>, n, values, offsets,
                       tile_totals.data());
    if (tiles <= 1) return copy_where_kernels_run(here, offsets + n, tile_totals.data(), 1);
    DeviceArray<int> tile_offsets(here, static_cast<size_t>(tiles) + 1);
    exclusive_scan_by_blocks(here, tile_totals.data(), static_cast<int>(tiles),
                             tile_offsets.data());
    here.launch(blocks_for(n), kThreadsPerBlock, add_tile_offset_kernel, add_tile_offset_thread, n,
                tile_offsets.data(), offsets);
    copy_where_kernels_run(here, offsets + n, tile_offsets.data() + tiles, 1);
}

// A degree array and the number of edges that it stands for, counted apart from the degrees.
struct DegreeInput {
    std::string name;
    std::vector<int> degrees;
    int64_t num_edges;
};

inline DegreeInput degrees_of(const std::string& name, const HostCoo& edges) {
    return {name, count_degrees(edges), static_cast<int64_t>(edges.nnz())};
}

// 3,000 degrees of up to a million each, about 1.5 billion edges in all: the offsets need every
// bit of an int below its sign, so a sum kept in fewer bits, or in float, comes out wrong.
inline DegreeInput large_degrees() {
    std::vector<int> degrees(3000);
    SplitMix64 rng(kGraphSeed);
    int64_t edges = 0;
    for (int& d : degrees) {
        d = static_cast<int>(rng.below(1000001));
        edges += d;
    }
    return {"large degrees, up to a million each", degrees, edges};
}

// The book's example; no vertices; one vertex with three self-loops; 1,000 vertices, not a
// multiple of the block's 256 threads; R-MAT's skewed degrees over 16 tiles; and large degrees.
inline std::vector<DegreeInput> degree_inputs() {
    return {degrees_of("the book's example", book_example_edges()),
            degrees_of("no vertices", coo_of(0, 0, {}, {}, {})),
            degrees_of("one vertex, three self-loops",
                       coo_of(1, 1, {0, 0, 0}, {0, 0, 0}, {1, 2, 3})),
            degrees_of("1,000 vertices, 16,000 uniform edges",
                       make_uniform_random(1000, 16000, kGraphSeed)),
            degrees_of("R-MAT scale 12", make_rmat(12, kEdgeFactor, kDefaultSkew, kGraphSeed)),
            large_degrees()};
}

inline void check_block_scan(const KernelProgram& p, const DegreeInput& input, SelfCheck& check) {
    const int n = static_cast<int>(input.degrees.size());
    print_wrapped("--- " + input.name + ": " + counted(n, "degree") + ", " +
                  counted(blocks_for(n, kScanThreads), "tile") + " of " +
                  std::to_string(kScanThreads) + " ---");
    const DeviceArray<int> degrees(p.here, input.degrees);
    DeviceArray<int> row_offsets(p.here, static_cast<size_t>(n) + 1);
    row_offsets.fill_bytes(0xFF);
    exclusive_scan_by_blocks(p.here, degrees.data(), n, row_offsets.data());
    const std::vector<int> got = row_offsets.download();
    const std::vector<int> row_offsets_cpu = scan_degrees(input.degrees);
    if (static_cast<size_t>(n) < kPrintLimit) {
        print_array("degrees", input.degrees, 15);
        print_array("row_offsets", got, 15);
        print_array("row_offsets_cpu", row_offsets_cpu, 15);
        std::printf("\n");
    }
    check.claim(input.name + ": row_offsets equal the serial exclusive scan of the degrees",
                got == row_offsets_cpu);
    check.claim(input.name + ": row_offsets[" + std::to_string(n) + "] is the number of edges, " +
                    with_separators(input.num_edges),
                got.back() == input.num_edges);
}

int main(int argc, char** argv) {
    const KernelProgram p = start_graph_exercise(
        argc, argv, "ex21_4_block_scan",
        "exercise 21.4: row_offsets by a block-wide exclusive scan of the degrees",
        "the book's example, no vertices, one vertex, 1,000 vertices, R-MAT 2^12 vertices, "
        "3,000 large degrees",
        {152, 48, 1000e6});
    return run_exercise_on(p, degree_inputs(), degrees_of,
                           [&](const DegreeInput& input, SelfCheck& check) {
                               check_block_scan(p, input, check);
                           });
}
