// Host emulation of a kernel launch: the same per-thread body, called once per thread index
// on the host, in an order that is shuffled (seeded, so a run can be repeated) or given.
// A real GPU runs threads in no promised order; shuffling keeps the emulator from hiding a
// body that silently depends on thread order.
//
// The race check (`make races`, built with SUITE_RACE_CHECK and ThreadSanitizer) runs a shuffled
// launch's thread indices on a pool of host threads at once instead, and makes the atomic shim a
// real host atomic: correct bodies are then free of data races, and a plain read-modify-write of
// memory that other threads also write is reported with its file and line. One thread at a time
// cannot show such a race, however the indices are ordered.
#pragma once
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>
#include "random.h"
#ifdef SUITE_RACE_CHECK
#include <exception>
#include <thread>
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__) && !defined(__SANITIZE_THREAD__)
#error "SUITE_RACE_CHECK needs ThreadSanitizer: build with -Xcompiler -fsanitize=thread"
#endif
#endif

// The book's order B for the nine edges of chapter 21's example: the order in which its edges
// claim their slots in the second of its two layouts. `--order B` repeats it over each group of
// nine threads.
const std::vector<int> kBookOrderB = {4, 0, 8, 1, 7, 5, 3, 6, 2};

class ThreadOrder {
public:
    static ThreadOrder shuffled(uint64_t seed) { return ThreadOrder(Kind::shuffled, seed, {}); }
    // An explicit order, such as a textbook's arrival order; it must be a permutation.
    static ThreadOrder given(std::vector<int> order) {
        return ThreadOrder(Kind::given, 0, std::move(order));
    }
    // Each group of pattern.size() consecutive threads in the pattern's order, the groups one
    // after another; a last, partial group keeps the pattern's order among the threads it has.
    static ThreadOrder repeating(std::vector<int> pattern) {
        return ThreadOrder(Kind::repeating, 0, std::move(pattern));
    }
    static ThreadOrder ascending() { return repeating({0}); }
    static ThreadOrder descending() { return ThreadOrder(Kind::descending, 0, {}); }

    bool is_shuffled() const { return kind_ == Kind::shuffled; }

    std::vector<int> sequence(size_t num_threads) const {
        std::vector<int> order;
        order.reserve(num_threads);
        switch (kind_) {
            case Kind::given:
                check_permutation(num_threads);
                return explicit_;
            case Kind::repeating: {
                const size_t group = explicit_.size();
                for (size_t base = 0; base < num_threads; base += group)
                    for (int offset : explicit_)
                        if (base + offset < num_threads) order.push_back(static_cast<int>(base + offset));
                return order;
            }
            case Kind::descending:
                for (size_t t = num_threads; t > 0; --t) order.push_back(static_cast<int>(t - 1));
                return order;
            case Kind::shuffled:
                break;
        }
        order.resize(num_threads);
        if (num_threads == 0) return order;
        std::iota(order.begin(), order.end(), 0);
        SplitMix64 rng(seed_);
        for (size_t i = num_threads - 1; i > 0; --i) {
            const size_t j = static_cast<size_t>(rng.next() % (i + 1));
            std::swap(order[i], order[j]);
        }
        return order;
    }

    // The seed of the cooperative emulator's scheduling among ready threads, where the order is
    // shuffled; the other orders schedule the ready thread that comes first in their sequence.
    uint64_t scheduling_seed() const { return seed_; }

private:
    enum class Kind { shuffled, given, repeating, descending };
    ThreadOrder(Kind kind, uint64_t seed, std::vector<int> order)
        : kind_(kind), seed_(seed), explicit_(std::move(order)) {}

    void check_permutation(size_t num_threads) const {
        if (explicit_.size() != num_threads)
            throw std::invalid_argument("the given thread order does not cover every thread");
        std::vector<char> seen(num_threads, 0);
        for (int t : explicit_) {
            if (t < 0 || static_cast<size_t>(t) >= num_threads || seen[t])
                throw std::invalid_argument("the given thread order is not a permutation");
            seen[t] = 1;
        }
    }

    Kind kind_;
    uint64_t seed_;
    std::vector<int> explicit_;
};

#ifdef SUITE_RACE_CHECK
// Host threads of the race check. Two would do: ThreadSanitizer reports accesses that nothing
// orders, not accesses that happened to overlap in time. More spread one launch's indices over
// more pairs of threads.
constexpr unsigned kRaceCheckWorkers = 4;

// work(w) for each worker w, on its own host thread, all at once. The workers share nothing that
// would order one's accesses before another's; the first exception that one throws is rethrown
// here, once all have stopped.
template <class Work>
void run_on_race_check_workers(Work&& work) {
    std::vector<std::exception_ptr> failures(kRaceCheckWorkers);
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < kRaceCheckWorkers; ++w)
        workers.emplace_back([&, w] {
            try {
                work(w);
            } catch (...) {
                failures[w] = std::current_exception();
            }
        });
    for (std::thread& worker : workers) worker.join();
    for (const std::exception_ptr& failure : failures)
        if (failure) std::rethrow_exception(failure);
}
#endif

// Whether a launch in this order runs its threads at once: in the race check, and only where
// the order is shuffled. A given order is a replay, which only one host thread can keep to.
inline bool runs_threads_at_once(const ThreadOrder& order) {
#ifdef SUITE_RACE_CHECK
    return order.is_shuffled();
#else
    (void)order;
    return false;
#endif
}

// Runs body(thread_index) for every index in [0, num_threads), in the given order; in the race
// check, a shuffled order is dealt out to the workers, each taking every kRaceCheckWorkers-th
// index of it.
template <class Body>
void emulate_threads(size_t num_threads, const ThreadOrder& order, Body&& body) {
    const std::vector<int> sequence = order.sequence(num_threads);
#ifdef SUITE_RACE_CHECK
    if (runs_threads_at_once(order)) {
        run_on_race_check_workers([&](unsigned w) {
            for (size_t position = w; position < sequence.size(); position += kRaceCheckWorkers)
                body(sequence[position]);
        });
        return;
    }
#endif
    for (int t : sequence) body(t);
}

// A seed for the shuffle when the user gave none: different each run, and always printed.
inline uint64_t fresh_emulation_seed() {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32 | rd()) % 1000000007ull;
}

// A float atomicAdd on global memory runs in flush-to-zero mode on every NVIDIA GPU, whatever
// -ftz says: a subnormal operand counts as zero, and a subnormal sum is stored as zero. Float
// atomics on shared memory keep subnormals, as plain arithmetic does without -ftz. The emulator
// adds as the GPU does, so that a student without a GPU sees the y that a GPU gives.
enum class AtomicMemory { global, shared };

template <class T>
inline T flushed_to_zero(T value) {
    if (std::fpclassify(value) == FP_SUBNORMAL) return std::copysign(T(0), value);
    return value;
}

template <class T>
inline T atomic_sum(T old, T value, AtomicMemory memory) {
    if constexpr (std::is_same_v<T, float>)
        if (memory == AtomicMemory::global)
            return flushed_to_zero(flushed_to_zero(old) + flushed_to_zero(value));
    return old + value;
}

// The host's side of the atomic shims. The emulator runs one thread at a time, so there a plain
// read-modify-write is already atomic. The race check's threads run at once: its atomics are
// real, and relaxed, as CUDA's atomicAdd and atomicMin are, so that they order nothing but
// themselves and cannot hide a race on other memory. Floating-point adds, which the host has no
// instruction for, retry a compare-and-swap until no other thread came between.
template <class T>
inline T host_atomic_add(T* address, T value, AtomicMemory memory = AtomicMemory::global) {
#ifdef SUITE_RACE_CHECK
    if constexpr (std::is_integral_v<T>) return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
    T old;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    T sum = atomic_sum(old, value, memory);
    while (!__atomic_compare_exchange(address, &old, &sum, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED))
        sum = atomic_sum(old, value, memory);
    return old;
#else
    const T old = *address;
    *address = atomic_sum(old, value, memory);
    return old;
#endif
}

template <class T>
inline T host_atomic_min(T* address, T value) {
#ifdef SUITE_RACE_CHECK
    T old;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    while (value < old && !__atomic_compare_exchange(address, &old, &value, true,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
#else
    const T old = *address;
    if (value < old) *address = value;
    return old;
#endif
}

// The device's expression on the device, the host's on the host: the one place where a shim
// for per-thread bodies tells the two apart.
#ifdef __CUDA_ARCH__
#define ON_DEVICE_ELSE_HOST(on_device, on_host) on_device
#else
#define ON_DEVICE_ELSE_HOST(on_device, on_host) on_host
#endif

// The atomic shims for per-thread bodies: the hardware atomic on the device, host_atomic_add or
// host_atomic_min on the host. Each returns the old value, as atomicAdd does.
template <class T>
__host__ __device__ inline T atomic_add_shim(T* address, T value) {
    return ON_DEVICE_ELSE_HOST(atomicAdd(address, value), host_atomic_add(address, value));
}

// atomicMin's shim, for bodies that report the smallest offending index, say.
template <class T>
__host__ __device__ inline T atomic_min_shim(T* address, T value) {
    return ON_DEVICE_ELSE_HOST(atomicMin(address, value), host_atomic_min(address, value));
}

// Wall-clock milliseconds of one host call, for labelled emulation timings.
template <class F>
double host_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
