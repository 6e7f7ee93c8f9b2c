// CUDA helpers shared by every kernel program: checked calls, GPU detection, an RAII device
// buffer, and event timing. Nothing here knows about graphs or matrices.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// A failed CUDA call is a bug or a broken machine, never something to carry on from.
#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        const cudaError_t cuda_check_status_ = (call);                                     \
        if (cuda_check_status_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                         cudaGetErrorString(cuda_check_status_));                          \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

// Launches report bad configurations only through the last-error state, so check it after each.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

constexpr int kThreadsPerBlock = 256;

// Enough blocks of kThreadsPerBlock threads for one thread per item.
inline unsigned int blocks_for(size_t num_items, int threads_per_block = kThreadsPerBlock) {
    return static_cast<unsigned int>((num_items + threads_per_block - 1) / threads_per_block);
}

struct Backend {
    bool gpu = false;
    std::string device_name;  // set when gpu
    int sm = 0;               // compute capability as 10 * major + minor
    std::string reason;       // why there is no GPU, when !gpu
};

namespace detail {
static __global__ void probe_kernel(int* flag) { *flag = 42; }
}  // namespace detail

// "No driver", "no device" and any other failure of the runtime all mean: no usable GPU.
// A device that is present but cannot run this binary's code (an arch it was not built for)
// is caught by launching one tiny kernel.
inline Backend detect_backend() {
    Backend b;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        cudaGetLastError();
        if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice ||
            status == cudaSuccess)
            b.reason = status == cudaErrorInsufficientDriver ? "no driver" : "no device";
        else
            b.reason = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(status);
        return b;
    }
    int* flag = nullptr;
    int value = 0;
    cudaError_t probe = cudaMalloc(&flag, sizeof(int));
    if (probe == cudaSuccess) {
        detail::probe_kernel<<<1, 1>>>(flag);
        probe = cudaGetLastError();
        if (probe == cudaSuccess) probe = cudaMemcpy(&value, flag, sizeof(int), cudaMemcpyDeviceToHost);
        cudaFree(flag);
    }
    if (probe != cudaSuccess || value != 42) {
        cudaGetLastError();
        b.reason = std::string("a device is present but cannot run this build: ") +
                   cudaGetErrorName(probe);
        return b;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    b.gpu = true;
    b.device_name = prop.name;
    b.sm = prop.major * 10 + prop.minor;
    return b;
}

// The second line of every kernel program: where its kernels ran.
inline void print_where_kernels_run(const Backend& b, unsigned long long emulation_seed) {
    if (b.gpu)
        std::printf("[gpu] %s (sm_%d)\n", b.device_name.c_str(), b.sm);
    else
        std::printf("[emulation] no CUDA device (%s): kernels run on the host, threads in "
                    "shuffled order, seed %llu\n",
                    b.reason.c_str(), emulation_seed);
}

// Owns one device allocation; move-only, freed on scope exit. A zero-length buffer holds no
// allocation, so that empty graphs need no special case in the callers.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(&data_, count_ * sizeof(T)));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        swap(other);
        return *this;
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& host) {
        if (host.size() != count_) {
            std::fprintf(stderr, "DeviceBuffer::upload: %zu values into a buffer of %zu\n",
                         host.size(), count_);
            std::exit(1);
        }
        if (count_ > 0) CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const {
        std::vector<T> host(count_);
        if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
        return host;
    }
    void fill_bytes(int byte) {
        if (count_ > 0) CUDA_CHECK(cudaMemset(data_, byte, bytes()));
    }

private:
    void swap(DeviceBuffer& other) {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
    }
    T* data_ = nullptr;
    size_t count_ = 0;
};

// Median time of `launch` in milliseconds, by CUDA events, after `warmups` untimed runs.
// `launch` enqueues work on the default stream and checks its own launches.
template <class Launch>
double median_gpu_ms(Launch&& launch, int warmups = 3, int repetitions = 21) {
    for (int i = 0; i < warmups; ++i) launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms(repetitions);
    for (int i = 0; i < repetitions; ++i) {
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return ms[repetitions / 2];
}

// Device-to-device copy bandwidth, counting bytes read plus bytes written: the ceiling that
// a memory-bound kernel's GB/s is compared with. 1 GiB is many times any L2.
inline double measure_copy_gbs(size_t bytes = size_t{1} << 30) {
    DeviceBuffer<unsigned char> from(bytes), to(bytes);
    from.fill_bytes(1);
    const double ms = median_gpu_ms([&] {
        CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice));
    });
    return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

inline double gb_per_s(double bytes, double ms) { return bytes / (ms * 1e6); }
