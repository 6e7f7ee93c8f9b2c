// CUB's device-wide algorithms (scans, sorts, histograms, reductions) take their scratch memory
// from the caller, in two calls of the same function: the first, given a null scratch pointer,
// only writes how many bytes the second needs; the second does the work. CubScratch makes the
// first call once and holds the bytes, so that a timed loop repeats only the second.
//
//   const auto scan = [&](void* scratch, size_t& bytes) {
//       return cub::DeviceScan::ExclusiveSum(scratch, bytes, counts, offsets, n);
//   };
//   CubScratch scratch(scan);  // the size query, then the allocation
//   scratch.run(scan);         // the scan itself, as often as needed
#pragma once
#include <algorithm>
#include <cstddef>
#include "cuda_support.cuh"

class CubScratch {
public:
    CubScratch() = default;
    template <class Call>
    explicit CubScratch(Call&& call) {
        size_t bytes = 0;
        CUDA_CHECK(call(nullptr, bytes));
        // Never a null pointer for the second call, which CUB would read as the first: an
        // algorithm that needs no scratch still gets one byte.
        buffer_ = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }

    template <class Call>
    void run(Call&& call) {
        size_t bytes = buffer_.size();
        CUDA_CHECK(call(buffer_.data(), bytes));
    }

    size_t bytes() const { return buffer_.size(); }

private:
    DeviceBuffer<unsigned char> buffer_;
};

// The size query, the allocation and the call, for an algorithm that runs once.
template <class Call>
void run_cub(Call&& call) {
    CubScratch scratch(call);
    scratch.run(call);
}
