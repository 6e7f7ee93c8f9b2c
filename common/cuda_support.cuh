// CUDA helpers shared by every kernel program: checked calls, GPU detection, an RAII device
// buffer, and event timing. Nothing here knows about graphs or matrices.
#pragma once
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "cuda_without_toolkit.h"
#endif
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "memory_budget.h"
#include "run_seconds.h"

// Device memory that runs out is reported here, as bad input (exit 2): the input was larger
// than this GPU can hold beside whatever else runs on it.
[[noreturn]] inline void report_device_out_of_memory(const char* what, size_t bytes) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_bytes, &total_bytes);
    std::fprintf(stderr,
                 "error: out of device memory: %s%s%s failed; the input was estimated at %s, and "
                 "%s of the GPU's %s is free now\n",
                 what, bytes > 0 ? " of " : "",
                 bytes > 0 ? readable_bytes(static_cast<double>(bytes)).c_str() : "",
                 readable_bytes(g_estimated_bytes).c_str(),
                 readable_bytes(static_cast<double>(free_bytes)).c_str(),
                 readable_bytes(static_cast<double>(total_bytes)).c_str());
    std::exit(2);
}

// A failed CUDA call is a bug or a broken machine, never something to carry on from; running
// out of memory is the input's size, reported as such.
#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        const cudaError_t cuda_check_status_ = (call);                                \
        if (cuda_check_status_ == cudaErrorMemoryAllocation)                          \
            report_device_out_of_memory(#call, 0);                                    \
        if (cuda_check_status_ != cudaSuccess) {                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(cuda_check_status_));                     \
            std::exit(1);                                                             \
        }                                                                             \
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
    size_t free_bytes = 0;    // device memory free at the start
    std::string reason;       // why there is no GPU, when !gpu
};

#ifdef __CUDACC__
namespace detail {
static __global__ void probe_kernel(int* flag) {
    *flag = 42;
}
}  // namespace detail
#endif

// "No driver", "no device" and any other failure of the runtime all mean: no usable GPU.
// A device that is present but cannot run this binary's code (an arch it was not built for)
// is caught by launching one tiny kernel.
inline Backend detect_backend() {
    Backend b;
#ifndef __CUDACC__
    b.reason = "built without the CUDA Toolkit";
    return b;
#else
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
        if (probe == cudaSuccess)
            probe = cudaMemcpy(&value, flag, sizeof(int), cudaMemcpyDeviceToHost);
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
    size_t total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&b.free_bytes, &total_bytes));
    return b;
#endif
}

// The second line of every kernel program: where its kernels ran.
// `emulation_order` ends the emulation line: "in shuffled order, seed 7", say.
inline void print_where_kernels_run(const Backend& b, const std::string& emulation_order) {
    if (b.gpu)
        std::printf("[gpu] %s (sm_%d)\n", b.device_name.c_str(), b.sm);
    else
        std::printf("[emulation] no CUDA device (%s): kernels run on the host %s\n",
                    b.reason.c_str(), emulation_order.c_str());
}

// Owns one device allocation; move-only, freed on scope exit. A zero-length buffer holds no
// allocation, so that empty graphs need no special case in the callers.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count_ == 0) return;
        const cudaError_t status = cudaMalloc(&data_, bytes());
        if (status == cudaErrorMemoryAllocation) report_device_out_of_memory("cudaMalloc", bytes());
        CUDA_CHECK(status);
        count_device_allocation(bytes());
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
        if (data_) {
            cudaFree(data_);
            count_device_release(bytes());
        }
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

// How many timed runs a measurement makes: 21 after 3 warm-ups, unless the environment
// variable SUITE_TIMED_RUNS says otherwise. Under compute-sanitizer, where each launch is many
// times slower and only correctness is of interest, SUITE_TIMED_RUNS=1 runs each kernel once.
struct TimedRuns {
    int warmups = 3;
    int repetitions = 21;
    bool set_by_environment = false;
};

inline TimedRuns timed_runs() {
    TimedRuns runs;
    const char* text = std::getenv("SUITE_TIMED_RUNS");
    if (text == nullptr || *text == '\0') return runs;
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (*end != '\0' || n < 1 || n > 1000) {
        std::fprintf(stderr, "error: SUITE_TIMED_RUNS=%s: expected a whole number from 1 to 1000\n",
                     text);
        std::exit(2);
    }
    runs.repetitions = static_cast<int>(n);
    runs.warmups = n == 1 ? 0 : runs.warmups;
    runs.set_by_environment = true;
    return runs;
}

// A kernel that runs for tens of milliseconds (a thread per row on a hub row of millions of
// entries) needs no 21 runs for a steady median, and at skew 0.80 such runs were most of the
// sweep's GPU time (145's run: 21.8 s of 30.5). So, unless SUITE_TIMED_RUNS fixes the count, the
// timed runs stop at what fits in one second, judged by the warm-ups, and never fall below 5;
// the count stays odd, so that the median is one run's time.
constexpr double kTimedRunsBudgetMs = 1000.0;
constexpr int kFewestTimedRuns = 5;

inline int repetitions_for(const TimedRuns& runs, double warmup_ms) {
    if (runs.set_by_environment || runs.warmups == 0) return runs.repetitions;
    const double run_ms = warmup_ms / runs.warmups;
    if (run_ms * runs.repetitions <= kTimedRunsBudgetMs) return runs.repetitions;
    const int fit = std::max(kFewestTimedRuns, static_cast<int>(kTimedRunsBudgetMs / run_ms));
    return fit % 2 == 1 ? fit : fit - 1;
}

// "median of 21 after 3 warm-ups", as the timing tables print it.
inline std::string timing_description() {
    const TimedRuns runs = timed_runs();
    if (runs.repetitions == 1) return "one run, no warm-up (SUITE_TIMED_RUNS=1)";
    const std::string text = "median of " + std::to_string(runs.repetitions) + " after " +
                             std::to_string(runs.warmups) + " warm-ups";
    if (runs.set_by_environment) return text;
    return text + " (of fewer, at least " + std::to_string(kFewestTimedRuns) +
           ", where 21 runs take over a second)";
}

// Median time of `launch` in milliseconds, by CUDA events, after the warm-up runs.
// `launch` enqueues work on the default stream and checks its own launches. Its wall seconds,
// warm-ups included, are the run's GPU seconds (run_seconds.h).
template <class Launch>
double median_gpu_ms(Launch&& launch) {
    const TimedStretch stretch;
    const TimedRuns runs = timed_runs();
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const auto elapsed_ms = [&] {
        float ms = 0;
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return ms;
    };
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < runs.warmups; ++i) launch();
    CUDA_CHECK(cudaEventRecord(stop));
    const int repetitions = repetitions_for(runs, elapsed_ms());
    std::vector<float> ms(repetitions);
    for (int i = 0; i < repetitions; ++i) {
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaEventRecord(stop));
        ms[i] = elapsed_ms();
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return ms[repetitions / 2];
}

// Device-to-device copy bandwidth, counting bytes read plus bytes written: the ceiling that
// a memory-bound kernel's GB/s is compared with. 256 MiB is four times the largest L2 (60 MB
// on an H200), so the copy streams from memory.
inline double measure_copy_gbs(size_t bytes = size_t{1} << 28) {
    const TimedStretch stretch;
    DeviceBuffer<unsigned char> from(bytes), to(bytes);
    from.fill_bytes(1);
    const double ms = median_gpu_ms([&] {
        CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice));
    });
    return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

inline double gb_per_s(double bytes, double ms) {
    return bytes / (ms * 1e6);
}
