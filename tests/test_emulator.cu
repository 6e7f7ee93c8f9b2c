// Unit tests of the host emulator, the atomic shim and the CUDA helpers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <catch2/catch.hpp>
#include <numeric>
#include "../common/cuda_support.cuh"
#include "../common/emulator.cuh"

TEST_CASE("shuffled orders are permutations, repeatable from their seed", "[common][emulator]") {
    for (size_t n : {0u, 1u, 2u, 7u, 1000u}) {
        const std::vector<int> a = ThreadOrder::shuffled(5).sequence(n);
        std::vector<int> sorted = a;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int> identity(n);
        std::iota(identity.begin(), identity.end(), 0);
        CHECK(sorted == identity);
        CHECK(ThreadOrder::shuffled(5).sequence(n) == a);
    }
    CHECK(ThreadOrder::shuffled(5).sequence(1000) != ThreadOrder::shuffled(6).sequence(1000));
    std::vector<int> identity(1000);
    std::iota(identity.begin(), identity.end(), 0);
    CHECK(ThreadOrder::shuffled(5).sequence(1000) != identity);
}

TEST_CASE("given orders are replayed exactly and checked", "[common][emulator]") {
    std::vector<int> visited;
    emulate_threads(4, ThreadOrder::given({2, 0, 3, 1}), [&](int t) { visited.push_back(t); });
    CHECK(visited == std::vector<int>{2, 0, 3, 1});
    CHECK_THROWS(ThreadOrder::given({0, 1}).sequence(3));
    CHECK_THROWS(ThreadOrder::given({0, 0, 1}).sequence(3));
    CHECK_THROWS(ThreadOrder::given({0, 1, 3}).sequence(3));
    CHECK_THROWS(ThreadOrder::given({}).sequence(1));
}

TEST_CASE("--order's orders: ascending, descending, and a pattern repeated over groups",
          "[common][emulator]") {
    CHECK(ThreadOrder::ascending().sequence(4) == std::vector<int>{0, 1, 2, 3});
    CHECK(ThreadOrder::descending().sequence(4) == std::vector<int>{3, 2, 1, 0});
    CHECK(ThreadOrder::descending().sequence(0).empty());
    CHECK(ThreadOrder::repeating(kBookOrderB).sequence(9) == kBookOrderB);
    // Two whole groups of nine, then a partial one that keeps the pattern's order: 4, 0, 1, 3, 2.
    const std::vector<int> b = ThreadOrder::repeating(kBookOrderB).sequence(23);
    CHECK(std::vector<int>(b.begin() + 9, b.begin() + 18) ==
          std::vector<int>{13, 9, 17, 10, 16, 14, 12, 15, 11});
    CHECK(std::vector<int>(b.begin() + 18, b.end()) == std::vector<int>{22, 18, 19, 21, 20});
    std::vector<int> sorted = b;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(23);
    std::iota(identity.begin(), identity.end(), 0);
    CHECK(sorted == identity);
}

TEST_CASE("the atomic shim returns the old value, as atomicAdd does", "[common][emulator]") {
    int counter = 5;
    CHECK(atomic_add_shim(&counter, 3) == 5);
    CHECK(counter == 8);
    double total = 0.5;
    CHECK(atomic_add_shim(&total, 0.25) == 0.5);
    CHECK(total == 0.75);
}

TEST_CASE("the float atomic shim flushes subnormals to zero, as a GPU's global atomics do",
          "[common][emulator][underflow]") {
    const float subnormal = 1e-40f, smallest_normal = std::numeric_limits<float>::min();
    REQUIRE(std::fpclassify(subnormal) == FP_SUBNORMAL);
    float y = 0;
    atomic_add_shim(&y, subnormal);
    CHECK(y == 0);
    y = smallest_normal;
    atomic_add_shim(&y, subnormal);
    CHECK(y == smallest_normal);
    // Two normal operands whose sum is subnormal: stored as zero.
    y = 1.5f * smallest_normal;
    atomic_add_shim(&y, -smallest_normal);
    CHECK(y == 0);
    y = 1.0f;
    atomic_add_shim(&y, 0.5f);
    CHECK(y == 1.5f);
    // Doubles keep their subnormals: only float's global atomics flush.
    double total = 0;
    atomic_add_shim(&total, 1e-310);
    CHECK(total == 1e-310);
}

TEST_CASE("blocks_for covers every item", "[common][cuda]") {
    CHECK(blocks_for(0) == 0);
    CHECK(blocks_for(1) == 1);
    CHECK(blocks_for(256) == 1);
    CHECK(blocks_for(257) == 2);
    CHECK(blocks_for(1000, 100) == 10);
}

TEST_CASE("a long run is timed fewer times, at least 5 and an odd count", "[common][cuda]") {
    const TimedRuns usual;
    CHECK(repetitions_for(usual, 3 * 1.0) == 21);
    CHECK(repetitions_for(usual, 3 * 1000.0 / 21) == 21);
    CHECK(repetitions_for(usual, 3 * 100.0) == 9);
    CHECK(repetitions_for(usual, 3 * 80.0) == 11);
    CHECK(repetitions_for(usual, 3 * 500.0) == 5);
    TimedRuns fixed = usual;
    fixed.set_by_environment = true;
    CHECK(repetitions_for(fixed, 3 * 500.0) == 21);
    for (double run_ms = 0.5; run_ms < 2000; run_ms *= 1.3) {
        const int n = repetitions_for(usual, 3 * run_ms);
        CHECK(n % 2 == 1);
        CHECK(n >= 5);
        CHECK((n == 5 || n * run_ms <= 1000 + 1e-9));
    }
}

TEST_CASE("detect_backend gives a reason whenever it finds no GPU", "[common][cuda]") {
    const Backend b = detect_backend();
    if (b.gpu) {
        CHECK(!b.device_name.empty());
        CHECK(b.sm >= 50);
    } else {
        CHECK(!b.reason.empty());
    }
}

#ifdef __CUDACC__  // nvcc's launches, which only a build with the CUDA Toolkit has
namespace {
__global__ void add_one(int n, int* data) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_add_shim(&data[i], 1);
}
}  // namespace

TEST_CASE("device buffers round-trip and kernels see them", "[gpu][common]") {
    std::vector<int> host(1000);
    std::iota(host.begin(), host.end(), 0);
    DeviceBuffer<int> d(host);
    add_one<<<blocks_for(host.size()), kThreadsPerBlock>>>(1000, d.data());
    CUDA_CHECK_LAUNCH();
    const std::vector<int> back = d.download();
    for (int i = 0; i < 1000; ++i) REQUIRE(back[i] == i + 1);
    DeviceBuffer<int> empty(0);
    CHECK(empty.download().empty());
    DeviceBuffer<int> moved = std::move(d);
    CHECK(moved.size() == 1000);
    CHECK(d.size() == 0);
}

namespace {
__global__ void add_each(int n, const float* addends, float* sums) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_add_shim(&sums[i], addends[i]);
}
}  // namespace

TEST_CASE("a GPU's global float atomics flush subnormals, as the emulator's shim does",
          "[gpu][common][underflow]") {
    const float subnormal = 1e-40f, smallest_normal = std::numeric_limits<float>::min();
    const std::vector<float> start = {0, smallest_normal, 1.5f * smallest_normal, 1.0f, 0};
    const std::vector<float> addends = {subnormal, subnormal, -smallest_normal, 0.5f,
                                        2 * smallest_normal};
    std::vector<float> emulated = start;
    for (size_t i = 0; i < start.size(); ++i) atomic_add_shim(&emulated[i], addends[i]);
    DeviceBuffer<float> d_addends(addends), d_sums(start);
    add_each<<<1, kThreadsPerBlock>>>(static_cast<int>(start.size()), d_addends.data(),
                                      d_sums.data());
    CUDA_CHECK_LAUNCH();
    CHECK(d_sums.download() == emulated);
    CHECK(emulated == std::vector<float>{0, smallest_normal, 0, 1.5f, 2 * smallest_normal});
}

TEST_CASE("the event timer returns a positive median", "[gpu][common]") {
    DeviceBuffer<int> d(1 << 20);
    const double ms = median_gpu_ms([&] {
        add_one<<<blocks_for(d.size()), kThreadsPerBlock>>>(static_cast<int>(d.size()), d.data());
        CUDA_CHECK_LAUNCH();
    });
    CHECK(ms > 0);
    CHECK(measure_copy_gbs(size_t{1} << 26) > 10);
}
#endif
