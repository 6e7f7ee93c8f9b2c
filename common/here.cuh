// "Run this kernel here": one object that says where a program's kernels run, on the GPU or in
// the host emulator, and launches a kernel there. A lesson sizes its grid, writes its launch, and
// each claim about what the launch computed, once; the same per-thread body runs in both places.
//
//   const unsigned threads = 256, blocks = (n + threads - 1) / threads;
//   here.launch(blocks, threads, spmv_csr_kernel, spmv_csr_thread, n, a.row_offsets.data(), ...);
//
// On the GPU that is spmv_csr_kernel<<<blocks, threads>>>(n, ...); in emulation it calls
// spmv_csr_thread(i, ...) for every thread index i in [0, n), in the emulator's order.
// DeviceArray<T> is an array that lives where the kernels run: device memory on the GPU, host
// memory in emulation, so that the pointers handed to a launch are always the right kind.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "cuda_support.cuh"
#include "cooperative.cuh"
#include "emulator.cuh"
#include "gpu_limits.cuh"

// --step: after each kernel launch, a pause until Enter is pressed, so that a lecture can say
// what the launch did before the program prints it. Timed runs hold the pauses.
struct StepPauses {
    bool on = false;
    int held = 0;
    int launches = 0;
};

inline StepPauses& step_pauses() {
    static StepPauses pauses;
    return pauses;
}

inline void pause_after_launch(bool gpu, size_t num_threads) {
    StepPauses& pauses = step_pauses();
    if (!pauses.on || pauses.held > 0) return;
    if (gpu) CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("[step %d] a launch of %zu threads has run %s; press Enter to go on ",
                ++pauses.launches, num_threads, gpu ? "on the GPU" : "in the emulator");
    std::fflush(stdout);
    for (int c = std::getchar(); c != '\n' && c != EOF; c = std::getchar()) {
    }
}

// Holds the pauses for its lifetime: around the repeated launches of a timing.
struct StepPausesHeld {
    StepPausesHeld() { ++step_pauses().held; }
    ~StepPausesHeld() { --step_pauses().held; }
    StepPausesHeld(const StepPausesHeld&) = delete;
    StepPausesHeld& operator=(const StepPausesHeld&) = delete;
};

class Here {
public:
    static Here gpu() { return Here(true, ThreadOrder::shuffled(0)); }
    static Here emulated(ThreadOrder order) { return Here(false, std::move(order)); }

    bool on_gpu() const { return gpu_; }
    const ThreadOrder& order() const { return order_; }
    // "GPU" or "emulated", for the claims that name where a result came from.
    const char* name() const { return gpu_ ? "GPU" : "emulated"; }
    // What a launch may ask for here (common/gpu_limits.cuh).
    const GpuLimits& limits() const { return gpu_limits(gpu_); }

    // kernel<<<blocks, threads>>>(n, args...) on the GPU. In emulation, body(i, args...) for
    // each thread index i = blockIdx.x * blockDim.x + threadIdx.x of the grid that is below n,
    // in the emulator's order: the kernel is the lesson's __global__ wrapper of that body, which
    // computes i and returns early past the last item, so a grid too small for n leaves items
    // undone in both places. No blocks or no items, no launch.
    template <class... Params, class... Args>
    void launch(unsigned blocks, unsigned threads, void (*kernel)(int, Params...),
                void (*body)(int, Params...), size_t n, Args&&... args) const {
        const size_t grid_threads = static_cast<size_t>(blocks) * threads;
        if (grid_threads == 0 || n == 0) return;
        if (gpu_) {
#ifdef __CUDACC__
            kernel<<<blocks, threads>>>(static_cast<int>(n), args...);
            CUDA_CHECK_LAUNCH();
#endif
        } else {
            emulate_threads(std::min(n, grid_threads), order_, [&](int i) { body(i, args...); });
        }
        pause_after_launch(gpu_, grid_threads);
    }

    // A kernel whose threads cooperate: on the GPU kernel<<<blocks, threads, shared>>>(args...);
    // in emulation body(cuda, args...) for every thread of every block, each block's threads as
    // fibers that meet at its collectives (common/cooperative.cuh).
    // A launch that asks for more shared memory than the limits give is a bug in the program
    // that sized it, here and on the smaller GPU that the limits stand for.
    template <class... Params, class... Args>
    void launch_blocks(const BlockGrid& grid, void (*kernel)(Params...),
                       void (*body)(EmulatedCuda&, Params...), Args&&... args) const {
        if (grid.blocks == 0 || grid.threads == 0) return;
        require_shared_fits(grid.shared_bytes);
        if (gpu_) {
            if (grid.shared_bytes > kSharedWithoutOptIn)
                CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(grid.shared_bytes)));
#ifdef __CUDACC__
            kernel<<<grid.blocks, grid.threads, grid.shared_bytes>>>(args...);
            CUDA_CHECK_LAUNCH();
#endif
        } else {
            emulate_blocks(grid, order_, [&](EmulatedCuda& cuda) { body(cuda, args...); });
        }
        pause_after_launch(gpu_, static_cast<size_t>(grid.blocks) * grid.threads);
    }

    void require_shared_fits(size_t shared_bytes) const {
        if (shared_bytes > limits().shared_per_block)
            throw std::logic_error("a launch asks for " + std::to_string(shared_bytes) +
                                   " bytes of shared memory a block, more than the " +
                                   std::to_string(limits().shared_per_block) +
                                   " that the GPU gives");
    }

    // For the routes that are library calls, which only a GPU runs:
    // calling one in emulation is a bug in the program, not a property of its input.
    const Here& require_gpu(const std::string& what) const {
        if (!gpu_) throw std::logic_error(what + " runs on a GPU only");
        return *this;
    }

private:
    Here(bool gpu, ThreadOrder order) : gpu_(gpu), order_(std::move(order)) {}
    bool gpu_;
    ThreadOrder order_;
};

// How many blocks of `threads` threads with `shared_bytes` of shared memory each the GPU holds at
// once: on each SM as many as its registers, threads and shared memory allow (the occupancy
// calculator), times the SMs that the limits give. In emulation, the modelled GPU's SMs times the
// blocks that its threads allow.
template <class Kernel>
unsigned resident_blocks(const Here& here, Kernel kernel, unsigned threads, size_t shared_bytes) {
    here.require_shared_fits(shared_bytes);
    const GpuLimits& limits = here.limits();
    int per_sm = limits.threads_per_multiprocessor / static_cast<int>(threads);
    if (here.on_gpu()) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared_bytes)));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                                 shared_bytes));
    }
    return static_cast<unsigned>(std::max(1, per_sm) * limits.multiprocessors);
}

// A persistent launch, whose blocks each loop over the work items: every block that the GPU
// holds at once (resident_blocks), or three in emulation, enough for the race check to run
// blocks at once.
template <class Kernel>
BlockGrid resident_grid(const Here& here, Kernel kernel, unsigned threads, size_t shared_bytes) {
    if (!here.on_gpu()) return {3, threads, shared_bytes};
    return {resident_blocks(here, kernel, threads, shared_bytes), threads, shared_bytes};
}

// Copies `count` elements from one array where the kernels run to another: a device-to-device
// copy on the GPU, a host copy in emulation.
template <class T>
void copy_where_kernels_run(const Here& here, T* to, const T* from, size_t count) {
    if (count == 0) return;
    if (here.on_gpu())
        CUDA_CHECK(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToDevice));
    else
        std::copy_n(from, count, to);
}

// An array where the kernels run. Uploaded from, and downloaded to, a host vector.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    DeviceArray(const Here& here, size_t count) : gpu_(here.on_gpu()) {
        if (gpu_)
            device_ = DeviceBuffer<T>(count);
        else
            host_.resize(count);
    }
    DeviceArray(const Here& here, const std::vector<T>& values) : gpu_(here.on_gpu()) {
        if (gpu_)
            device_ = DeviceBuffer<T>(values);
        else
            host_ = values;
    }

    T* data() { return gpu_ ? device_.data() : host_.data(); }
    const T* data() const { return gpu_ ? device_.data() : host_.data(); }
    size_t size() const { return gpu_ ? device_.size() : host_.size(); }
    size_t bytes() const { return size() * sizeof(T); }

    std::vector<T> download() const { return gpu_ ? device_.download() : host_; }
    void upload(const std::vector<T>& values) {
        if (gpu_)
            device_.upload(values);
        else
            host_ = values;
    }
    // Every byte set to `byte`: 0 to clear, 0xFF to poison (-1 in ints, NaN in floats), so that
    // a slot that no thread wrote cannot pass for a right one.
    void fill_bytes(int byte) {
        if (gpu_)
            device_.fill_bytes(byte);
        else if (!host_.empty())
            std::memset(static_cast<void*>(host_.data()), byte, bytes());
    }

private:
    bool gpu_ = false;
    std::vector<T> host_;
    DeviceBuffer<T> device_;
};
