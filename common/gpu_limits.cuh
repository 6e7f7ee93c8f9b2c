// What a kernel may ask of the GPU that runs it: the shared memory of one block and the
// multiprocessors (SMs) that a grid of resident blocks fills. Students run the suite on a Colab T4
// (64 KB of shared memory a block, 40 SMs) or a laptop RTX (99 KB), not only on the H200 that it
// is measured on (227 KB, 132 SMs), so every kernel that sizes itself from the GPU reads these.
//
// SUITE_GPU_LIMITS lowers them, so that a large GPU can stand in for a smaller one:
//   SUITE_GPU_LIMITS=shared=64K,sms=40 build/124_csr_bucketed_construction_kernel --scale 18
// plans every launch as a T4 would take it. Either part may be left out.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "cuda_support.cuh"

// Every GPU that the suite builds for (sm_75 and later) gives a block 48 KB without asking; more
// takes an opt-in per kernel (cudaFuncAttributeMaxDynamicSharedMemorySize), which the launches
// make.
constexpr size_t kSharedWithoutOptIn = 48 * 1024;

struct GpuLimits {
    size_t shared_per_block = 0;  // with the opt-in
    int multiprocessors = 0;
    int threads_per_multiprocessor = 0;
    std::string capped_by;  // SUITE_GPU_LIMITS's text where it lowered a limit, else empty
};

// The GPU that the emulator stands for: the H200 of the suite's measurements.
inline GpuLimits emulated_gpu_limits() { return {227 * 1024, 132, 2048, ""}; }

inline GpuLimits device_gpu_limits() {
    int shared = 0, sms = 0, threads = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    return {static_cast<size_t>(shared), sms, threads, ""};
}

[[noreturn]] inline void fail_gpu_limits(const std::string& text, const std::string& problem) {
    std::fprintf(stderr,
                 "error: SUITE_GPU_LIMITS=%s: %s; expected shared=BYTES (48K or more, K = 1024 "
                 "bytes) and sms=N, either or both, comma-separated: shared=64K,sms=40\n",
                 text.c_str(), problem.c_str());
    std::exit(2);
}

// A whole number, with K for 1024 where `with_k`, from 1 up to 2^40; 0 where it is not one.
inline size_t parse_limit_number(const std::string& digits, bool with_k) {
    std::string number = digits;
    size_t unit = 1;
    if (with_k && !number.empty() && (number.back() == 'K' || number.back() == 'k')) {
        number.pop_back();
        unit = 1024;
    }
    if (number.empty() || number.size() > 9 ||
        number.find_first_not_of("0123456789") != std::string::npos)
        return 0;
    return std::stoull(number) * unit;
}

// `limits` lowered by SUITE_GPU_LIMITS; a cap above the GPU's own limit leaves that limit.
inline GpuLimits capped_by_environment(GpuLimits limits) {
    const char* setting = std::getenv("SUITE_GPU_LIMITS");
    if (setting == nullptr || *setting == '\0') return limits;
    const std::string text = setting;
    bool lowered = false;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, end - start);
        const size_t equals = part.find('=');
        const std::string key = part.substr(0, equals);
        const std::string value = equals == std::string::npos ? "" : part.substr(equals + 1);
        if (key == "shared") {
            const size_t bytes = parse_limit_number(value, true);
            if (bytes < kSharedWithoutOptIn)
                fail_gpu_limits(text, "'" + part + "' is not 48K or more");
            lowered |= bytes < limits.shared_per_block;
            limits.shared_per_block = std::min(limits.shared_per_block, bytes);
        } else if (key == "sms") {
            const size_t sms = parse_limit_number(value, false);
            if (sms < 1) fail_gpu_limits(text, "'" + part + "' is not a whole number from 1");
            lowered |= sms < static_cast<size_t>(limits.multiprocessors);
            limits.multiprocessors = std::min(limits.multiprocessors, static_cast<int>(
                                                  std::min<size_t>(sms, 1 << 20)));
        } else {
            fail_gpu_limits(text, "'" + part + "' names neither shared nor sms");
        }
        start = end + 1;
    }
    if (lowered) limits.capped_by = text;
    return limits;
}

// The limits of the GPU that runs the kernels, or of the one that the emulator stands for, each
// read once.
inline const GpuLimits& gpu_limits(bool on_gpu) {
    if (on_gpu) {
        static const GpuLimits device = capped_by_environment(device_gpu_limits());
        return device;
    }
    static const GpuLimits emulated = capped_by_environment(emulated_gpu_limits());
    return emulated;
}

// Shared memory in KB of 1024 bytes, as CUDA's documents count it: "64 KB", "96.3 KB".
inline std::string shared_memory_text(size_t bytes) {
    char text[32];
    if (bytes % 1024 == 0)
        std::snprintf(text, sizeof text, "%zu KB", bytes / 1024);
    else
        std::snprintf(text, sizeof text, "%.1f KB", static_cast<double>(bytes) / 1024);
    return text;
}

// "64 KB of shared memory a block and 40 SMs", for the lines that say what a launch planned for.
inline std::string limits_words(const GpuLimits& limits) {
    return shared_memory_text(limits.shared_per_block) + " of shared memory a block and " +
           std::to_string(limits.multiprocessors) + " SMs";
}

// The line under the one that says where the kernels run, where SUITE_GPU_LIMITS lowered a limit.
inline void print_gpu_limits_line(bool on_gpu) {
    const GpuLimits& limits = gpu_limits(on_gpu);
    if (limits.capped_by.empty()) return;
    std::printf("[limits] SUITE_GPU_LIMITS=%s: the launches plan for %s\n",
                limits.capped_by.c_str(), limits_words(limits).c_str());
}
