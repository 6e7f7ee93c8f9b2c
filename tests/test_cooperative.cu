// Tests of the cooperative emulator (common/cooperative.cuh): warps that meet at shuffles,
// ballots and matches, blocks that meet at barriers and share memory, each on the GPU and in
// emulation with the same body; shuffles of a width below the warp's, within segments of lanes.
// Planted bugs show what the emulator catches: a lane that leaves before a shuffle that names it,
// a reduction that skips a step, a block reduction that reads shared memory without the barrier,
// a warp that reads its lanes' shared slots without __syncwarp, a segment's shuffle without its
// width, and lanes of one warp that wait for each other at different collectives. Lanes that
// reach a collective at different times (an inner group first) are legal.
#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <vector>
#include "../common/here.cuh"
#include "../common/random.h"

namespace {

constexpr int kBlockThreads = 128;
constexpr int kBlockWarps = kBlockThreads / kWarpSize;

// What each planted variant of the block sum gets wrong.
enum class Plant { none, lane_31_leaves, skips_last_step, no_barrier };

// Block b sums in[b * 128 ..] into sums[b]: warps by shuffles, then warp 0 adds the warp sums
// that the other warps left in shared memory.
template <class Cuda>
__host__ __device__ void block_sum_body(Cuda& cuda, int n, const int* in, int* sums, Plant plant) {
    int* warp_sums = shared_array<int>(cuda, kBlockWarps);
    const int i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
    const int lane = cuda.threadIdx.x % kWarpSize, warp = cuda.threadIdx.x / kWarpSize;
    if (plant == Plant::lane_31_leaves && lane == 31) return;
    int sum = i < n ? in[i] : 0;
    const int last_offset = plant == Plant::skips_last_step ? 2 : 1;
    for (int offset = kWarpSize / 2; offset >= last_offset; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0) warp_sums[warp] = sum;
    if (plant != Plant::no_barrier) cuda.syncthreads();
    if (warp != 0) return;
    sum = lane < kBlockWarps ? warp_sums[lane] : 0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(kFullWarp, sum, offset);
    if (lane == 0) sums[cuda.blockIdx.x] = sum;
}

__global__ void block_sum_kernel(int n, const int* in, int* sums, Plant plant) {
    DeviceCuda cuda;
    block_sum_body(cuda, n, in, sums, plant);
}

std::vector<int> block_sums(const Here& here, const std::vector<int>& values, Plant plant) {
    const unsigned blocks =
        static_cast<unsigned>((values.size() + kBlockThreads - 1) / kBlockThreads);
    DeviceArray<int> in(here, values), sums(here, std::vector<int>(blocks, -1));
    here.launch_blocks({blocks, kBlockThreads, SharedBytes().add<int>(kBlockWarps).total()},
                       block_sum_kernel, block_sum_body<EmulatedCuda>,
                       static_cast<int>(values.size()), in.data(), sums.data(), plant);
    return sums.download();
}

std::vector<int> expected_block_sums(const std::vector<int>& values) {
    std::vector<int> sums((values.size() + kBlockThreads - 1) / kBlockThreads, 0);
    for (size_t i = 0; i < values.size(); ++i) sums[i / kBlockThreads] += values[i];
    return sums;
}

std::vector<int> random_values(size_t n, uint64_t seed) {
    SplitMix64 rng(seed);
    std::vector<int> values(n);
    for (int& v : values) v = static_cast<int>(rng.below(1000));
    return values;
}

// Lane l keeps the lanes whose key matches its own, and the lanes whose key is odd; the leader
// of each group of equal keys counts the group into a shared counter, as 123's claims do.
template <class Cuda>
__host__ __device__ void vote_body(Cuda& cuda, const int* keys, unsigned* matches, unsigned* odd,
                                   int* group_sizes) {
    const int t = cuda.threadIdx.x;
    const unsigned group = cuda.match_any_sync(kFullWarp, keys[t]);
    matches[t] = group;
    odd[t] = cuda.ballot_sync(kFullWarp, keys[t] % 2 == 1);
    if (t == ffs_shim(group) - 1) cuda.atomic_add(&group_sizes[keys[t]], popc_shim(group));
    const int from_lane_5 = cuda.shfl_sync(kFullWarp, keys[t], 5);
    if (from_lane_5 != keys[5]) matches[t] = 0;
}

__global__ void vote_kernel(const int* keys, unsigned* matches, unsigned* odd, int* group_sizes) {
    DeviceCuda cuda;
    vote_body(cuda, keys, matches, odd, group_sizes);
}

// Each lane gets the sum of its warp's values up to its own: at step d a lane adds the running
// sum of the lane d below it. __shfl_up_sync hands a lane below d its own value back, which the
// second shuffle records for lanes 0 to 4.
template <class Cuda>
__host__ __device__ void prefix_sum_body(Cuda& cuda, const int* in, int* sums, int* shifted) {
    const int t = cuda.threadIdx.x, lane = t % kWarpSize;
    int sum = in[t];
    for (int d = 1; d < kWarpSize; d *= 2) {
        const int below = cuda.shfl_up_sync(kFullWarp, sum, d);
        if (lane >= d) sum += below;
    }
    sums[t] = sum;
    shifted[t] = cuda.shfl_up_sync(kFullWarp, 1000 + lane, 5);
}

__global__ void prefix_sum_kernel(const int* in, int* sums, int* shifted) {
    DeviceCuda cuda;
    prefix_sum_body(cuda, in, sums, shifted);
}

// Two warps' prefix sums and shifted lanes, against the same computed one lane at a time.
bool prefix_sums_match(const Here& here, const std::vector<int>& values) {
    const size_t n = values.size();
    DeviceArray<int> in(here, values), sums(here, n), shifted(here, n);
    here.launch_blocks({1, static_cast<unsigned>(n), 0}, prefix_sum_kernel,
                       prefix_sum_body<EmulatedCuda>, in.data(), sums.data(), shifted.data());
    std::vector<int> expected_sums(n), expected_shifted(n);
    for (size_t t = 0; t < n; ++t) {
        const int lane = static_cast<int>(t) % kWarpSize;
        expected_sums[t] = values[t] + (lane > 0 ? expected_sums[t - 1] : 0);
        expected_shifted[t] = 1000 + (lane < 5 ? lane : lane - 5);
    }
    return sums.download() == expected_sums && shifted.download() == expected_shifted;
}

// Half of the warp votes while the other half shuffles: lanes of one warp at different
// collectives, which the GPU leaves undefined.
template <class Cuda>
__host__ __device__ void split_warp_body(Cuda& cuda, int* out) {
    const int lane = cuda.threadIdx.x % kWarpSize;
    if (lane < 16)
        out[lane] = static_cast<int>(cuda.ballot_sync(kFullWarp, true));
    else
        out[lane] = cuda.shfl_down_sync(kFullWarp, lane, 1);
}

__global__ void split_warp_kernel(int* out) {
    DeviceCuda cuda;
    split_warp_body(cuda, out);
}

// Each lane of one warp leaves its value in shared memory and takes its right neighbour's; the
// warp's lanes must all have written before any reads, which is what __syncwarp is for.
template <class Cuda>
__host__ __device__ void rotate_body(Cuda& cuda, const int* in, int* out, bool with_syncwarp) {
    int* slots = shared_array<int>(cuda, kWarpSize);
    const int lane = cuda.threadIdx.x % kWarpSize;
    slots[lane] = in[lane];
    if (with_syncwarp) cuda.syncwarp(kFullWarp);
    out[lane] = slots[(lane + 1) % kWarpSize];
}

__global__ void rotate_kernel(const int* in, int* out, bool with_syncwarp) {
    DeviceCuda cuda;
    rotate_body(cuda, in, out, with_syncwarp);
}

// The warp's values rotated by one lane, in `seed`'s order of the lanes.
bool rotates(uint64_t seed, bool with_syncwarp) {
    const Here here = Here::emulated(ThreadOrder::shuffled(seed));
    std::vector<int> values(kWarpSize), rotated(kWarpSize);
    for (int l = 0; l < kWarpSize; ++l) values[l] = 100 + l;
    for (int l = 0; l < kWarpSize; ++l) rotated[l] = values[(l + 1) % kWarpSize];
    DeviceArray<int> in(here, values), out(here, std::vector<int>(kWarpSize, -1));
    here.launch_blocks({1, kWarpSize, SharedBytes().add<int>(kWarpSize).total()}, rotate_kernel,
                       rotate_body<EmulatedCuda>, in.data(), out.data(), with_syncwarp);
    return out.download() == rotated;
}

// Each segment of `width` lanes sums its values by shuffles of that width, its mask naming its
// own lanes only; lane 0 of a segment writes the sum. Lane l also records what a shuffle one lane
// down hands it: its right neighbour's value, or its own at the end of its segment. A body
// that leaves the width out (`shuffle_width` 32 with a segment's mask) reads a lane outside
// the mask.
template <class Cuda>
__host__ __device__ void segment_sum_body(Cuda& cuda, const int* in, int* sums, int* next,
                                          int width, int shuffle_width) {
    const int t = cuda.threadIdx.x, lane = t % kWarpSize;
    const unsigned mask = (kFullWarp >> (kWarpSize - width)) << (lane / width * width);
    int sum = in[t];
    next[t] = cuda.shfl_down_sync(mask, in[t], 1, shuffle_width);
    for (int offset = width / 2; offset > 0; offset /= 2)
        sum += cuda.shfl_down_sync(mask, sum, offset, shuffle_width);
    if (lane % width == 0) sums[t / width] = sum;
}

__global__ void segment_sum_kernel(const int* in, int* sums, int* next, int width,
                                   int shuffle_width) {
    DeviceCuda cuda;
    segment_sum_body(cuda, in, sums, next, width, shuffle_width);
}

// Two warps' segment sums and right neighbours at one width, against the same computed lane by
// lane.
bool segment_sums_match(const Here& here, const std::vector<int>& values, int width,
                        int shuffle_width) {
    const size_t n = values.size();
    DeviceArray<int> in(here, values), sums(here, n / width), next(here, n);
    here.launch_blocks({1, static_cast<unsigned>(n), 0}, segment_sum_kernel,
                       segment_sum_body<EmulatedCuda>, in.data(), sums.data(), next.data(), width,
                       shuffle_width);
    std::vector<int> expected_sums(n / width, 0), expected_next(n);
    for (size_t t = 0; t < n; ++t) {
        expected_sums[t / width] += values[t];
        expected_next[t] = (t + 1) % width == 0 ? values[t] : values[t + 1];
    }
    return sums.download() == expected_sums && next.download() == expected_next;
}

__host__ __device__ void mark_item(int i, int* marks) { marks[i] += 1; }

__global__ void mark_item_kernel(int n, int* marks) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mark_item(i, marks);
}

}  // namespace

TEST_CASE("here.launch runs each thread of the lesson's grid below n once, and no more",
          "[common][emulator]") {
    const Here here = Here::emulated(ThreadOrder::shuffled(29));
    std::vector<int> covered(10, 0), short_grid(10, 0);
    here.launch(3, 4, mark_item_kernel, mark_item, covered.size(), covered.data());
    CHECK(covered == std::vector<int>(10, 1));
    // A grid of 2 blocks of 4 threads reaches items 0 to 7 only, as it would on a GPU.
    here.launch(2, 4, mark_item_kernel, mark_item, short_grid.size(), short_grid.data());
    CHECK(short_grid == std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0});
}

TEST_CASE("cooperative emulation: block sums by shuffles and a barrier, in many orders",
          "[common][emulator][cooperative]") {
    for (size_t n : {size_t{1}, size_t{31}, size_t{128}, size_t{129}, size_t{1000}}) {
        const std::vector<int> values = random_values(n, n);
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            CAPTURE(n, seed);
            REQUIRE(block_sums(Here::emulated(ThreadOrder::shuffled(seed)), values, Plant::none) ==
                    expected_block_sums(values));
        }
    }
}

TEST_CASE("cooperative emulation: match_any, ballot and shfl give each lane its warp's answer",
          "[common][emulator][cooperative]") {
    std::vector<int> keys(kWarpSize);
    for (int l = 0; l < kWarpSize; ++l) keys[l] = (l * 7) % 5;
    for (uint64_t seed : {1u, 2u, 3u}) {
        const Here here = Here::emulated(ThreadOrder::shuffled(seed));
        DeviceArray<int> d_keys(here, keys), sizes(here, std::vector<int>(5, 0));
        DeviceArray<unsigned> matches(here, size_t{kWarpSize}), odd(here, size_t{kWarpSize});
        here.launch_blocks({1, kWarpSize, 0}, vote_kernel, vote_body<EmulatedCuda>, d_keys.data(),
                           matches.data(), odd.data(), sizes.data());
        const std::vector<unsigned> m = matches.download(), o = odd.download();
        unsigned odd_lanes = 0;
        for (int l = 0; l < kWarpSize; ++l)
            if (keys[l] % 2 == 1) odd_lanes |= 1u << l;
        for (int l = 0; l < kWarpSize; ++l) {
            unsigned same = 0;
            for (int k = 0; k < kWarpSize; ++k)
                if (keys[k] == keys[l]) same |= 1u << k;
            CHECK(m[l] == same);
            CHECK(o[l] == odd_lanes);
        }
        std::vector<int> expected_sizes(5, 0);
        for (int k : keys) ++expected_sizes[k];
        CHECK(sizes.download() == expected_sizes);
    }
}

TEST_CASE("cooperative emulation: shfl_up_sync gives each lane the lane delta below it",
          "[common][emulator][cooperative]") {
    const std::vector<int> values = random_values(2 * kWarpSize, 14);
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        CAPTURE(seed);
        CHECK(prefix_sums_match(Here::emulated(ThreadOrder::shuffled(seed)), values));
    }
}

TEST_CASE("cooperative emulation: shfl_down_sync of width w sums each segment of w lanes apart",
          "[common][emulator][cooperative]") {
    const std::vector<int> values = random_values(2 * kWarpSize, 15);
    for (int width : {1, 2, 4, 8, 16, 32})
        for (uint64_t seed = 1; seed <= 10; ++seed) {
            CAPTURE(width, seed);
            CHECK(segment_sums_match(Here::emulated(ThreadOrder::shuffled(seed)), values, width,
                                     width));
        }
}

TEST_CASE("planted bug: a segment's shuffle without its width reads a lane outside its mask",
          "[common][emulator][cooperative][planted]") {
    const std::vector<int> values = random_values(2 * kWarpSize, 16);
    for (int width : {2, 4, 8, 16}) {
        CAPTURE(width);
        CHECK_THROWS_WITH(segment_sums_match(Here::emulated(ThreadOrder::shuffled(1)), values,
                                             width, kWarpSize),
                          Catch::Contains("which the mask leaves out"));
    }
    CHECK_THROWS_WITH(
        segment_sums_match(Here::emulated(ThreadOrder::shuffled(1)), values, 4, 3),
        Catch::Contains("not a power of two"));
}

TEST_CASE("cooperative emulation: the scheduling order changes with the seed, not between runs",
          "[common][emulator][cooperative]") {
    const std::vector<int> values = random_values(1000, 9);
    auto order_of_first_arrivals = [&](uint64_t seed) {
        // Without the barrier, warp 0 reads whatever the other warps have written so far; which
        // warp sums it finds depends on the scheduling, so the (wrong) totals record the order.
        return block_sums(Here::emulated(ThreadOrder::shuffled(seed)), values, Plant::no_barrier);
    };
    CHECK(order_of_first_arrivals(4) == order_of_first_arrivals(4));
    bool differs = false;
    for (uint64_t seed = 5; seed < 15 && !differs; ++seed)
        differs = order_of_first_arrivals(seed) != order_of_first_arrivals(4);
    CHECK(differs);
}

TEST_CASE("planted bug: a block sum without its barrier is caught by the emulator's orders",
          "[common][emulator][cooperative][planted]") {
    const std::vector<int> values = random_values(1000, 11);
    int wrong = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed)
        wrong += block_sums(Here::emulated(ThreadOrder::shuffled(seed)), values,
                            Plant::no_barrier) != expected_block_sums(values);
    CHECK(wrong > 0);
}

TEST_CASE("planted bug: a reduction that skips its last step gives a wrong sum",
          "[common][emulator][cooperative][planted]") {
    const std::vector<int> values = random_values(256, 12);
    CHECK(block_sums(Here::emulated(ThreadOrder::shuffled(1)), values, Plant::skips_last_step) !=
          expected_block_sums(values));
}

TEST_CASE("planted bug: a lane that leaves before a shuffle that names it stops the emulation",
          "[common][emulator][cooperative][planted]") {
    const std::vector<int> values = random_values(256, 13);
    for (uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        CHECK_THROWS_WITH(
            block_sums(Here::emulated(ThreadOrder::shuffled(seed)), values, Plant::lane_31_leaves),
            Catch::Contains("lane 31"));
    }
}

TEST_CASE("planted bug: lanes of one warp that wait for each other at different collectives",
          "[common][emulator][cooperative][planted]") {
    const Here here = Here::emulated(ThreadOrder::shuffled(1));
    DeviceArray<int> out(here, size_t{kWarpSize});
    CHECK_THROWS_WITH(here.launch_blocks({1, kWarpSize, 0}, split_warp_kernel,
                                         split_warp_body<EmulatedCuda>, out.data()),
                      Catch::Contains("can go on"));
}

TEST_CASE("cooperative emulation: __syncwarp orders a warp's writes before its reads",
          "[common][emulator][cooperative]") {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        CAPTURE(seed);
        CHECK(rotates(seed, true));
    }
}

TEST_CASE("planted bug: a warp that reads its neighbours' shared slots without __syncwarp",
          "[common][emulator][cooperative][planted]") {
    int wrong = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) wrong += !rotates(seed, false);
    CHECK(wrong > 0);
}

namespace {

// Every thread of a warp adds `addend` into one float of shared memory and one of global memory;
// the shared sum is then written out beside the global one.
template <class Cuda>
__host__ __device__ void atomic_sums_body(Cuda& cuda, float addend, float* global_sum,
                                          float* shared_sum_out) {
    float* shared_sum = shared_array<float>(cuda, 1);
    if (cuda.threadIdx.x == 0) *shared_sum = 0;
    cuda.syncthreads();
    cuda.atomic_add(shared_sum, addend);
    cuda.atomic_add(global_sum, addend);
    cuda.syncthreads();
    if (cuda.threadIdx.x == 0) *shared_sum_out = *shared_sum;
}

__global__ void atomic_sums_kernel(float addend, float* global_sum, float* shared_sum_out) {
    DeviceCuda cuda;
    atomic_sums_body(cuda, addend, global_sum, shared_sum_out);
}

// {global sum, shared sum} of a warp's 32 adds of `addend`, starting from zero.
std::vector<float> atomic_sums(const Here& here, float addend) {
    DeviceArray<float> global_sum(here, std::vector<float>{0}), shared_sum(here, size_t{1});
    here.launch_blocks({1, kWarpSize, SharedBytes().add<float>(1).total()}, atomic_sums_kernel,
                       atomic_sums_body<EmulatedCuda>, addend, global_sum.data(),
                       shared_sum.data());
    return {global_sum.download()[0], shared_sum.download()[0]};
}

// 32 adds of a subnormal: exact in shared memory (32 * 1e-40 is still subnormal, and every
// partial sum a multiple of the smallest one), lost in global memory, where each is read as 0.
void check_subnormal_atomic_sums(const Here& here) {
    const float subnormal = 1e-40f;
    const std::vector<float> sums = atomic_sums(here, subnormal);
    CHECK(sums[0] == 0);
    CHECK(sums[1] == 32 * subnormal);
    CHECK(atomic_sums(here, 0.25f) == std::vector<float>{8.0f, 8.0f});
}

}  // namespace

TEST_CASE("cooperative emulation: float atomics keep subnormals in shared memory, not global",
          "[cooperative][underflow]") {
    check_subnormal_atomic_sums(Here::emulated(ThreadOrder::shuffled(28)));
}

TEST_CASE("cooperative kernels: a GPU's float atomics keep subnormals in shared memory only",
          "[gpu][cooperative][underflow]") {
    check_subnormal_atomic_sums(Here::gpu());
}

TEST_CASE("cooperative kernels: the same bodies on the GPU", "[gpu][cooperative]") {
    for (size_t n : {size_t{1}, size_t{129}, size_t{100000}}) {
        CAPTURE(n);
        const std::vector<int> values = random_values(n, n);
        CHECK(block_sums(Here::gpu(), values, Plant::none) == expected_block_sums(values));
    }
    CHECK(prefix_sums_match(Here::gpu(), random_values(2 * kWarpSize, 14)));
    for (int width : {1, 2, 4, 8, 16, 32}) {
        CAPTURE(width);
        CHECK(segment_sums_match(Here::gpu(), random_values(2 * kWarpSize, 15), width, width));
    }
}
