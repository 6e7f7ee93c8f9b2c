// u . v over n floats, where the kernels run: each product widened to double (exact: 24 + 24 bits
// < 53) and the sum kept in double, written to a double where the kernels run, so that the host
// need not wait for it. On a GPU it is CUB's TransformReduce, since a reduction is the library's
// job and not what the lessons that take it teach (147's CG, 149's CG across ranks); in
// emulation it is a plain loop, the one place where the two differ.
#pragma once
#ifdef __CUDACC__  // a build without the CUDA Toolkit has no CUB, and only the plain loop
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include "cub_scratch.cuh"
#endif
#include "here.cuh"

struct ProductInDouble {
    const float* u;
    const float* v;
    __host__ __device__ double operator()(int i) const { return static_cast<double>(u[i]) * v[i]; }
};

class DotInDouble {
public:
    DotInDouble(const Here& here, size_t n) : gpu_(here.on_gpu()), n_(static_cast<int>(n)) {
#ifdef __CUDACC__
        if (gpu_)
            scratch_ = CubScratch([&](void* s, size_t& bytes) { return reduce(s, bytes, {}); });
#endif
    }

    // *result = u . v, where the kernels run.
    void operator()(const float* u, const float* v, double* result) {
#ifdef __CUDACC__
        if (gpu_)
            return scratch_.run([&](void* s, size_t& bytes) {
                return reduce(s, bytes, {u, v}, result);
            });
#endif
        double sum = 0;
        for (int i = 0; i < n_; ++i) sum += static_cast<double>(u[i]) * v[i];
        *result = sum;
    }

private:
#ifdef __CUDACC__
    cudaError_t reduce(void* scratch, size_t& bytes, ProductInDouble terms,
                       double* result = nullptr) const {
        return cub::DeviceReduce::TransformReduce(scratch, bytes, thrust::counting_iterator<int>(0),
                                                  result, n_, cuda::std::plus<double>{}, terms,
                                                  0.0);
    }
#endif

    bool gpu_;
    int n_;
#ifdef __CUDACC__
    CubScratch scratch_;
#endif
};
