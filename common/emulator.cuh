// Host emulation of a kernel launch: the same per-thread body, called once per thread index
// on the host, in an order that is shuffled (seeded, so a run can be repeated) or given.
// A real GPU runs threads in no promised order; shuffling keeps the emulator from hiding a
// body that silently depends on thread order.
#pragma once
#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>
#include "random.h"

class ThreadOrder {
public:
    static ThreadOrder shuffled(uint64_t seed) { return ThreadOrder(seed, false, {}); }
    // An explicit order, such as a textbook's arrival order; it must be a permutation.
    static ThreadOrder given(std::vector<int> order) {
        return ThreadOrder(0, true, std::move(order));
    }

    std::vector<int> sequence(size_t num_threads) const {
        if (is_explicit_) {
            if (explicit_.size() != num_threads)
                throw std::invalid_argument("the given thread order does not cover every thread");
            std::vector<char> seen(num_threads, 0);
            for (int t : explicit_) {
                if (t < 0 || static_cast<size_t>(t) >= num_threads || seen[t])
                    throw std::invalid_argument("the given thread order is not a permutation");
                seen[t] = 1;
            }
            return explicit_;
        }
        std::vector<int> order(num_threads);
        if (num_threads == 0) return order;
        std::iota(order.begin(), order.end(), 0);
        SplitMix64 rng(seed_);
        for (size_t i = num_threads - 1; i > 0; --i) {
            const size_t j = static_cast<size_t>(rng.next() % (i + 1));
            std::swap(order[i], order[j]);
        }
        return order;
    }

    // The seed of the cooperative emulator's scheduling (0 for an explicit order, which names
    // only the threads of a per-thread launch).
    uint64_t scheduling_seed() const { return seed_; }

private:
    ThreadOrder(uint64_t seed, bool is_explicit, std::vector<int> order)
        : seed_(seed), is_explicit_(is_explicit), explicit_(std::move(order)) {}
    uint64_t seed_;
    bool is_explicit_;
    std::vector<int> explicit_;
};

// Runs body(thread_index) for every index in [0, num_threads), in the given order.
template <class Body>
void emulate_threads(size_t num_threads, const ThreadOrder& order, Body&& body) {
    for (int t : order.sequence(num_threads)) body(t);
}

// A seed for the shuffle when the user gave none: different each run, and always printed.
inline uint64_t fresh_emulation_seed() {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32 | rd()) % 1000000007ull;
}

// The atomic shim for per-thread bodies: the hardware atomic on the device; on the host, where
// the emulator runs one thread at a time, a plain read-modify-write is already atomic.
// Returns the old value, as atomicAdd does.
template <class T>
__host__ __device__ inline T atomic_add_shim(T* address, T value) {
#ifdef __CUDA_ARCH__
    return atomicAdd(address, value);
#else
    const T old = *address;
    *address = old + value;
    return old;
#endif
}

// atomicMin's shim, for bodies that report the smallest offending index, say.
template <class T>
__host__ __device__ inline T atomic_min_shim(T* address, T value) {
#ifdef __CUDA_ARCH__
    return atomicMin(address, value);
#else
    const T old = *address;
    if (value < old) *address = value;
    return old;
#endif
}

// Wall-clock milliseconds of one host call, for labelled emulation timings.
template <class F>
double host_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
