// What a C++ compiler needs of CUDA to build a kernel lesson without the CUDA Toolkit (g++ or
// clang++, on a laptop with no NVIDIA GPU, or a Mac): the build whose kernels run in the host
// emulator only. The Makefile compiles each .cu as C++ with SUITE_EMULATOR_ONLY defined where no
// nvcc is found, and common/cuda_support.cuh includes this header in place of <cuda_runtime.h>.
// What only nvcc can parse (a <<<>>> launch, a __shared__ array, the intrinsics) stays where only
// nvcc reads it, under #ifdef __CUDACC__ or __CUDA_ARCH__; this header gives the rest:
// - the qualifiers, which mean nothing here: every function is a host function;
// - the built-in index variables, which a __global__ kernel reads. The kernels are compiled but
//   never launched: the emulator calls their per-thread bodies with the indices it gives them
//   (common/here.cuh, common/cooperative.cuh's EmulatedCuda), so these stay zero;
// - the vector types that the bodies load (int4, float4), dim3, and min and max;
// - the runtime's calls, each failing as on a machine without a device. The programs make them
//   on the GPU only, which this build never finds (detect_backend says why).
#pragma once
#include <algorithm>

#define __host__
#define __device__
#define __global__
#define __launch_bounds__(...)
#define __align__(bytes) alignas(bytes)

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    unsigned x, y, z;
};
struct alignas(16) int4 {
    int x, y, z, w;
};
struct alignas(16) float4 {
    float x, y, z, w;
};

// CUDA's min and max of two ints, which kernels call unqualified.
using std::max;
using std::min;

inline constexpr uint3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0};
inline constexpr dim3 blockDim{}, gridDim{};

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100
};
enum cudaMemcpyKind {
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaDeviceAttr {
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
using cudaEvent_t = struct CUevent_st*;

inline const char* cudaGetErrorName(cudaError_t) { return "cudaErrorNoDevice"; }
inline const char* cudaGetErrorString(cudaError_t) {
    return "this build has no CUDA Toolkit, so no device";
}

// Each runtime call that the programs make, taking what it takes and answering that there is no
// device.
#define SUITE_NO_DEVICE_CALL(name)                          \
    template <class... Args>                                \
    inline cudaError_t name(Args&&...) {                    \
        return cudaErrorNoDevice;                           \
    }
SUITE_NO_DEVICE_CALL(cudaGetLastError)
SUITE_NO_DEVICE_CALL(cudaGetDeviceCount)
SUITE_NO_DEVICE_CALL(cudaGetDevice)
SUITE_NO_DEVICE_CALL(cudaSetDevice)
SUITE_NO_DEVICE_CALL(cudaDeviceGetAttribute)
SUITE_NO_DEVICE_CALL(cudaDeviceSynchronize)
SUITE_NO_DEVICE_CALL(cudaMemGetInfo)
SUITE_NO_DEVICE_CALL(cudaMalloc)
SUITE_NO_DEVICE_CALL(cudaFree)
SUITE_NO_DEVICE_CALL(cudaMemcpy)
SUITE_NO_DEVICE_CALL(cudaMemcpyAsync)
SUITE_NO_DEVICE_CALL(cudaMemset)
SUITE_NO_DEVICE_CALL(cudaFuncSetAttribute)
SUITE_NO_DEVICE_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor)
SUITE_NO_DEVICE_CALL(cudaEventCreate)
SUITE_NO_DEVICE_CALL(cudaEventDestroy)
SUITE_NO_DEVICE_CALL(cudaEventRecord)
SUITE_NO_DEVICE_CALL(cudaEventSynchronize)
SUITE_NO_DEVICE_CALL(cudaEventElapsedTime)
#undef SUITE_NO_DEVICE_CALL
