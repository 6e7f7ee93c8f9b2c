// The one binary search of the suite, for host code and for kernels alike: where in a range a
// condition that holds on a prefix of it stops holding. Sorted COO's row starts (120, 121), the
// merge path's split points (148) and the lookups of 146 are all this search with their own
// condition.
#pragma once

// A CPU program (119's row starts, 146's lookups) compiles the same searches as plain C++,
// where the CUDA qualifiers mean nothing.
#ifndef __CUDACC__
#define __host__
#define __device__
#endif

// The first index in [lo, hi) at which before(index) is false, for a `before` that is true on a
// prefix of the range and false on the rest; hi when it is true throughout. About log2(hi - lo)
// calls of `before`, and no thread's search depends on another's.
template <class Before>
__host__ __device__ inline int partition_point_index(int lo, int hi, Before before) {
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (before(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The lower bound of `key` in sorted[0, n): the first k with sorted[k] >= key, or n if none.
__host__ __device__ inline int lower_bound_index(const int* sorted, int n, int key) {
    return partition_point_index(0, n, [&](int k) { return sorted[k] < key; });
}
