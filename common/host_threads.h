// How the host's loops over millions of entries share them among the cores (OpenMP): each thread
// of a parallel region takes an equal, contiguous share of the items, or owns a band of the rows
// and skips every entry of another's. Without OpenMP (the race check is built without it) the
// one thread takes everything.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#ifdef _OPENMP
#include <omp.h>
#endif

// Below this many items a loop runs on one core: starting the threads would cost more than
// they save.
constexpr size_t kParallelSize = size_t{1} << 16;

// The threads that a parallel region starts.
inline int threads_available() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

inline int threads_in_region() {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

inline int thread_in_region() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

// Items [begin, end) of n: the calling thread's equal share, in thread order; all of them
// outside a parallel region.
struct Share {
    size_t begin, end;
};

inline Share this_threads_share(size_t n) {
    const size_t threads = static_cast<size_t>(threads_in_region());
    const size_t thread = static_cast<size_t>(thread_in_region());
    return {n / threads * thread + std::min(thread, n % threads),
            n / threads * (thread + 1) + std::min(thread + 1, n % threads)};
}

// The rows that the calling thread owns: its share of [0, num_rows), so that no two threads
// write one row.
struct RowBand {
    int begin, end;
};

inline RowBand this_threads_band(int num_rows) {
    const Share share = this_threads_share(static_cast<size_t>(num_rows));
    return {static_cast<int>(share.begin), static_cast<int>(share.end)};
}

// The threads that may each keep a copy of `bytes_each` (counts or marks of their own) and still
// hold them all within `budget` bytes: at least 1, at most threads_available().
inline int threads_within(size_t bytes_each, size_t budget) {
    const size_t fit = bytes_each == 0 ? SIZE_MAX : budget / bytes_each;
    return static_cast<int>(std::max<size_t>(1, std::min<size_t>(fit, threads_available())));
}
