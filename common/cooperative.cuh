// Kernels whose threads cooperate (shuffles, ballots, shared memory, barriers), written once and
// run on the GPU or in the host emulator. The body is a function template over a "cuda" context
// that names the built-ins and intrinsics the body uses:
//
//   template <class Cuda>
//   __host__ __device__ void warp_sum_body(Cuda& cuda, int n, const float* in, double* total) {
//       const int i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
//       float v = i < n ? in[i] : 0.0f;
//       for (int offset = 16; offset > 0; offset /= 2) v += cuda.shfl_down_sync(kFullWarp, v, offset);
//       if (cuda.threadIdx.x % kWarpSize == 0) cuda.atomic_add(total, double(v));
//   }
//   __global__ void warp_sum_kernel(int n, const float* in, double* total) {
//       DeviceCuda cuda;
//       warp_sum_body(cuda, n, in, total);
//   }
//   here.launch_blocks(grid, warp_sum_kernel, warp_sum_body<EmulatedCuda>, n, in, total);
//
// On the GPU each member is the built-in or intrinsic of the same name (cuda.syncthreads() is
// __syncthreads()), inlined to the same code. In emulation each thread of a block is a fiber on
// the host: it runs until it reaches a collective (a barrier, a shuffle, a ballot), where it waits
// until every thread that the collective names has arrived. Which ready fiber runs next is drawn
// at random (seeded), so a body that relies on an order that the GPU does not promise, such as
// reading shared memory without the barrier that orders it, gives different answers from seed
// to seed. What a GPU would hang on or leave undefined stops the emulation with an error: a lane
// that leaves while its warp waits for it in a collective, a mask without the calling lane, a
// shuffle from a lane outside the mask, or no thread able to go on (lanes of one warp that wait
// at different collectives for each other, say).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <ucontext.h>
#include "cuda_support.cuh"
#include "emulator.cuh"
#include "random.h"
#include "warp.h"

// __popc and __ffs for bodies that run on both sides: the number of set bits, and the position
// (from 1) of the lowest set bit, 0 for none.
__host__ __device__ inline int popc_shim(unsigned bits) {
#ifdef __CUDA_ARCH__
    return __popc(bits);
#else
    return __builtin_popcount(bits);
#endif
}

__host__ __device__ inline int ffs_shim(unsigned bits) {
#ifdef __CUDA_ARCH__
    return __ffs(static_cast<int>(bits));
#else
    return __builtin_ffs(static_cast<int>(bits));
#endif
}

// `#pragma unroll` for the device compiler, which keeps a loop's register arrays in registers;
// the host compiler does not know the pragma.
#ifdef __CUDA_ARCH__
#define UNROLL_ON_DEVICE _Pragma("unroll")
#else
#define UNROLL_ON_DEVICE
#endif

// __ldg on the device: a load through the read-only path, for data that no thread writes.
template <class T>
__host__ __device__ inline T load_read_only(const T* address) {
#ifdef __CUDA_ARCH__
    return __ldg(address);
#else
    return *address;
#endif
}

// A cooperative launch: blocks of threads, and the shared memory of each block in bytes.
struct BlockGrid {
    unsigned blocks = 0, threads = 0;
    size_t shared_bytes = 0;
};

// The bytes of shared memory that a body takes with shared_array, call by call, in order: the
// launch adds the same arrays, so that both sides agree on the size and the alignment.
class SharedBytes {
public:
    template <class T>
    SharedBytes& add(size_t count) {
        bytes_ = aligned_offset(bytes_, alignof(T)) + count * sizeof(T);
        return *this;
    }
    size_t total() const { return bytes_; }

    __host__ __device__ static size_t aligned_offset(size_t offset, size_t alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

private:
    size_t bytes_ = 0;
};

#ifdef __CUDACC__
struct DeviceCuda {
    __device__ DeviceCuda()
        : threadIdx(::threadIdx), blockIdx(::blockIdx), blockDim(::blockDim), gridDim(::gridDim) {}

    uint3 threadIdx, blockIdx;
    dim3 blockDim, gridDim;

    __device__ void syncthreads() const { __syncthreads(); }
    __device__ void syncwarp(unsigned mask) const { __syncwarp(mask); }
    template <class T>
    __device__ T shfl_sync(unsigned mask, T value, int src_lane) const {
        return __shfl_sync(mask, value, src_lane);
    }
    template <class T>
    __device__ T shfl_down_sync(unsigned mask, T value, unsigned delta) const {
        return __shfl_down_sync(mask, value, delta);
    }
    __device__ unsigned ballot_sync(unsigned mask, bool predicate) const {
        return __ballot_sync(mask, predicate);
    }
    template <class T>
    __device__ unsigned match_any_sync(unsigned mask, T key) const {
        return __match_any_sync(mask, key);
    }
    template <class T>
    __device__ T atomic_add(T* address, T value) const {
        return atomicAdd(address, value);
    }
    // The next `count` elements of the block's shared memory (the launch's dynamic shared
    // memory, handed out in the order that the body asks for it).
    template <class T>
    __device__ T* shared(size_t count) {
        extern __shared__ __align__(16) unsigned char cooperative_shared[];
        const size_t start = SharedBytes::aligned_offset(shared_used_, alignof(T));
        shared_used_ = start + count * sizeof(T);
        return reinterpret_cast<T*>(cooperative_shared + start);
    }

private:
    size_t shared_used_ = 0;
};
#endif

class EmulatedBlock;

// One emulated thread's view: its indices, and the collectives, which meet in its block. Its
// members are callable from __host__ __device__ bodies, but only the host's emulator runs them:
// on the GPU the same body is instantiated with DeviceCuda.
#ifdef __CUDA_ARCH__
#define ON_EMULATOR_ONLY(host_code, unused) return unused
#else
#define ON_EMULATOR_ONLY(host_code, unused) host_code
#endif
class EmulatedCuda {
public:
    uint3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0};
    dim3 blockDim, gridDim;

    __host__ __device__ void syncthreads() { ON_EMULATOR_ONLY(barrier(), ); }
    __host__ __device__ void syncwarp(unsigned mask) {
        ON_EMULATOR_ONLY(exchange("__syncwarp", mask, 0), );
    }
    template <class T>
    __host__ __device__ T shfl_sync(unsigned mask, T value, int src_lane) {
        ON_EMULATOR_ONLY(return host_shfl_sync(mask, value, src_lane), value);
    }
    template <class T>
    __host__ __device__ T shfl_down_sync(unsigned mask, T value, unsigned delta) {
        ON_EMULATOR_ONLY(return host_shfl_down_sync(mask, value, delta), value);
    }
    __host__ __device__ unsigned ballot_sync(unsigned mask, bool predicate) {
        ON_EMULATOR_ONLY(return host_ballot_sync(mask, predicate), 0u);
    }
    template <class T>
    __host__ __device__ unsigned match_any_sync(unsigned mask, T key) {
        ON_EMULATOR_ONLY(return host_match_any_sync(mask, key), 0u);
    }
    // Fibers switch only at collectives, so a plain read-modify-write is already atomic.
    template <class T>
    __host__ __device__ T atomic_add(T* address, T value) {
        return atomic_add_shim(address, value);
    }
    template <class T>
    __host__ __device__ T* shared(size_t count) {
        ON_EMULATOR_ONLY(return host_shared<T>(count), nullptr);
    }

private:
    friend class EmulatedBlock;
    int lane() const { return static_cast<int>(threadIdx.x) % kWarpSize; }
    void barrier();
    int source_lane(unsigned mask, int source, const char* what);
    const uint64_t* exchange(const char* what, unsigned mask, uint64_t payload);

    template <class T>
    T host_shfl_sync(unsigned mask, T value, int src_lane) {
        const uint64_t* all = exchange("__shfl_sync", mask, bits_of(value));
        return value_of<T>(all[source_lane(mask, src_lane % kWarpSize, "__shfl_sync")]);
    }
    template <class T>
    T host_shfl_down_sync(unsigned mask, T value, unsigned delta) {
        const uint64_t* all = exchange("__shfl_down_sync", mask, bits_of(value));
        const unsigned source = lane() + delta;
        if (source >= static_cast<unsigned>(kWarpSize)) return value;
        return value_of<T>(all[source_lane(mask, static_cast<int>(source), "__shfl_down_sync")]);
    }
    unsigned host_ballot_sync(unsigned mask, bool predicate) {
        const uint64_t* all = exchange("__ballot_sync", mask, predicate ? 1 : 0);
        unsigned bits = 0;
        for (int l = 0; l < kWarpSize; ++l)
            if ((mask >> l & 1u) && all[l]) bits |= 1u << l;
        return bits;
    }
    template <class T>
    unsigned host_match_any_sync(unsigned mask, T key) {
        const uint64_t* all = exchange("__match_any_sync", mask, bits_of(key));
        unsigned bits = 0;
        for (int l = 0; l < kWarpSize; ++l)
            if ((mask >> l & 1u) && all[l] == all[lane()]) bits |= 1u << l;
        return bits;
    }
    template <class T>
    T* host_shared(size_t count);
    template <class T>
    static uint64_t bits_of(T value) {
        static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffled value fits 8 bytes");
        uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof(T));
        return bits;
    }
    template <class T>
    static T value_of(uint64_t bits) {
        T value;
        std::memcpy(&value, &bits, sizeof(T));
        return value;
    }

    EmulatedBlock* block_ = nullptr;
    size_t shared_used_ = 0;
};
#undef ON_EMULATOR_ONLY

// A block's threads as fibers, run to completion one block at a time.
class EmulatedBlock {
public:
    EmulatedBlock(const BlockGrid& grid, const ThreadOrder& order)
        : grid_(grid),
          rng_(order.scheduling_seed()),
          shuffled_(order.is_shuffled()),
          rank_(grid.threads),
          shared_(grid.shared_bytes),
          fibers_(grid.threads) {
        for (Fiber& f : fibers_) f.stack.reset(new char[kStackBytes]);
        if (shuffled_) return;
        const std::vector<int> sequence = order.sequence(grid.threads);
        for (size_t position = 0; position < sequence.size(); ++position)
            rank_[sequence[position]] = static_cast<int>(position);
    }

    void run(unsigned block_index, const std::function<void(EmulatedCuda&)>& body) {
        body_ = &body;
        error_.clear();
        live_ = static_cast<int>(fibers_.size());
        at_barrier_ = 0;
        open_.clear();
        std::fill(shared_.begin(), shared_.end(), 0xA5);
        for (size_t t = 0; t < fibers_.size(); ++t) {
            Fiber& f = fibers_[t];
            f.state = State::ready;
            f.cuda = EmulatedCuda();
            f.cuda.threadIdx = {static_cast<unsigned>(t), 0, 0};
            f.cuda.blockIdx = {block_index, 0, 0};
            f.cuda.blockDim = dim3(grid_.threads);
            f.cuda.gridDim = dim3(grid_.blocks);
            f.cuda.block_ = this;
            getcontext(&f.context);
            f.context.uc_stack.ss_sp = f.stack.get();
            f.context.uc_stack.ss_size = kStackBytes;
            f.context.uc_link = &scheduler_;
            makecontext(&f.context, reinterpret_cast<void (*)()>(&EmulatedBlock::start), 1,
                        static_cast<int>(t));
        }
        running_block() = this;
        std::vector<int> ready;
        while (live_ > 0 && error_.empty()) {
            ready.clear();
            for (size_t t = 0; t < fibers_.size(); ++t)
                if (fibers_[t].state == State::ready) ready.push_back(static_cast<int>(t));
            if (ready.empty()) {
                error_ = "no thread of block " + std::to_string(block_index) +
                         " can go on: " + waiting_summary();
                break;
            }
            current_ = shuffled_ ? ready[rng_.below(static_cast<uint32_t>(ready.size()))]
                                 : *std::min_element(ready.begin(), ready.end(), [&](int a, int b) {
                                       return rank_[a] < rank_[b];
                                   });
            swapcontext(&scheduler_, &fibers_[current_].context);
        }
        running_block() = nullptr;
        if (!error_.empty()) throw std::logic_error("emulated block: " + error_);
    }

    unsigned char* shared_base() { return shared_.data(); }
    size_t shared_bytes() const { return grid_.shared_bytes; }

    void barrier() {
        Fiber& f = fibers_[current_];
        f.state = State::at_barrier;
        ++at_barrier_;
        release_barrier_if_complete();
        yield();
    }

    // Every lane of `mask` in the warp of the current thread posts its payload; each gets all of
    // them once the last one has arrived.
    const uint64_t* exchange(const char* what, unsigned mask, uint64_t payload) {
        const int t = current_, lane = t % kWarpSize, warp = t / kWarpSize;
        if (!(mask >> lane & 1u))
            fail_and_stop(thread_name(t) + " calls " + what + " with a mask that leaves it out");
        for (int l = 0; l < kWarpSize; ++l) {
            if (!(mask >> l & 1u)) continue;
            const int other = warp * kWarpSize + l;
            if (other >= static_cast<int>(fibers_.size()))
                fail_and_stop(thread_name(t) + " calls " + what + " naming lane " +
                              std::to_string(l) + ", past the block's last thread");
            if (fibers_[other].state == State::done)
                fail_and_stop(thread_name(t) + " calls " + what + " naming lane " +
                              std::to_string(l) + ", which has already left the kernel");
        }
        // Lanes named in the mask may still be at another collective (a group of the lanes in
        // an inner claim, say): they meet here once they arrive. If they never do, no thread can
        // go on and the scheduler reports it.
        Meeting* meeting = nullptr;
        for (Meeting& m : open_)
            if (m.warp == warp && m.mask == mask && m.what == what) meeting = &m;
        if (meeting == nullptr) {
            open_.push_back(Meeting{warp, mask, what, 0, {}});
            meeting = &open_.back();
        }
        meeting->payload[lane] = payload;
        meeting->arrived |= 1u << lane;
        fibers_[t].state = State::in_warp_collective;
        if (meeting->arrived == mask) {
            for (int l = 0; l < kWarpSize; ++l) {
                if (!(mask >> l & 1u)) continue;
                Fiber& f = fibers_[warp * kWarpSize + l];
                std::copy(std::begin(meeting->payload), std::end(meeting->payload),
                          std::begin(f.received));
                f.state = State::ready;
            }
            open_.erase(open_.begin() + (meeting - open_.data()));
        }
        yield();
        return fibers_[t].received;
    }

    void fail(const std::string& why) {
        if (error_.empty()) error_ = why;
    }

    // From inside a fiber: record what went wrong and hand control back for good; the scheduler
    // stops the block and reports it.
    [[noreturn]] void fail_and_stop(const std::string& why) {
        fail(why);
        yield();
        throw std::logic_error("an emulated thread resumed after its block stopped");
    }

private:
    static constexpr size_t kStackBytes = 64 * 1024;
    enum class State { ready, at_barrier, in_warp_collective, done };
    struct Fiber {
        ucontext_t context;
        std::unique_ptr<char[]> stack;  // left uninitialised: a fiber writes before it reads
        State state = State::ready;
        uint64_t received[kWarpSize] = {};
        EmulatedCuda cuda;
    };
    struct Meeting {
        int warp;
        unsigned mask;
        std::string what;
        unsigned arrived;
        uint64_t payload[kWarpSize];
    };

    static EmulatedBlock*& running_block() {
        static thread_local EmulatedBlock* block = nullptr;
        return block;
    }

    static void start(int t) {
        EmulatedBlock* block = running_block();
        (*block->body_)(block->fibers_[t].cuda);
        block->finish(t);
    }

    // A thread that leaves counts as arrived at the block's barrier, as on the GPU; a warp that
    // still waits for it in a collective never completes.
    void finish(int t) {
        fibers_[t].state = State::done;
        --live_;
        for (const Meeting& m : open_)
            if (m.warp == t / kWarpSize && (m.mask >> (t % kWarpSize) & 1u))
                fail(thread_name(t) + " left the kernel while its warp waits for it in " + m.what);
        release_barrier_if_complete();
    }

    void release_barrier_if_complete() {
        if (at_barrier_ == 0 || at_barrier_ != live_) return;
        for (Fiber& f : fibers_)
            if (f.state == State::at_barrier) f.state = State::ready;
        at_barrier_ = 0;
    }

    void yield() { swapcontext(&fibers_[current_].context, &scheduler_); }

    std::string waiting_summary() const {
        int at_barrier = 0, in_warp = 0;
        for (const Fiber& f : fibers_) {
            at_barrier += f.state == State::at_barrier;
            in_warp += f.state == State::in_warp_collective;
        }
        std::string what = std::to_string(at_barrier) + " wait at __syncthreads, " +
                           std::to_string(in_warp) + " in warp collectives";
        for (const Meeting& m : open_)
            what += "; warp " + std::to_string(m.warp) + " has lanes " + hex(m.arrived) + " at " +
                    m.what + " (mask " + hex(m.mask) + ") waiting for lanes " +
                    hex(m.mask & ~m.arrived);
        return what;
    }

    std::string thread_name(int t) const {
        return "thread " + std::to_string(t) + " (lane " + std::to_string(t % kWarpSize) +
               " of warp " + std::to_string(t / kWarpSize) + ")";
    }

    static std::string hex(unsigned bits) {
        char text[16];
        std::snprintf(text, sizeof text, "0x%08x", bits);
        return text;
    }

    BlockGrid grid_;
    SplitMix64 rng_;
    bool shuffled_;
    std::vector<int> rank_;  // where each thread comes in an order that is not shuffled
    std::vector<unsigned char> shared_;
    std::vector<Fiber> fibers_;
    std::vector<Meeting> open_;
    const std::function<void(EmulatedCuda&)>* body_ = nullptr;
    ucontext_t scheduler_;
    std::string error_;
    int current_ = 0, live_ = 0, at_barrier_ = 0;
};

inline void EmulatedCuda::barrier() { block_->barrier(); }

inline const uint64_t* EmulatedCuda::exchange(const char* what, unsigned mask, uint64_t payload) {
    return block_->exchange(what, mask, payload);
}

inline int EmulatedCuda::source_lane(unsigned mask, int source, const char* what) {
    if (!(mask >> source & 1u))
        block_->fail_and_stop("lane " + std::to_string(lane()) + " reads lane " +
                              std::to_string(source) + " in " + what +
                              ", which the mask leaves out");
    return source;
}

template <class T>
T* EmulatedCuda::host_shared(size_t count) {
    const size_t start = SharedBytes::aligned_offset(shared_used_, alignof(T));
    shared_used_ = start + count * sizeof(T);
    if (shared_used_ > block_->shared_bytes())
        block_->fail_and_stop("a body asks for " + std::to_string(shared_used_) +
                              " bytes of shared memory; its launch gave " +
                              std::to_string(block_->shared_bytes()));
    return reinterpret_cast<T*>(block_->shared_base() + start);
}

// The shared array that a body takes next: `float* sums = shared_array<float>(cuda, n);`
template <class T, class Cuda>
__host__ __device__ T* shared_array(Cuda& cuda, size_t count) {
    return cuda.template shared<T>(count);
}

// Every block of the grid, one after another (in a shuffled order where the order is shuffled),
// each block's threads as fibers scheduled by the emulator's order.
inline void emulate_blocks(const BlockGrid& grid, const ThreadOrder& order,
                           const std::function<void(EmulatedCuda&)>& body) {
    if (grid.blocks == 0 || grid.threads == 0) return;
    EmulatedBlock block(grid, order);
    const std::vector<int> block_order = order.is_shuffled() ? order.sequence(grid.blocks)
                                                             : ThreadOrder::ascending().sequence(grid.blocks);
    for (int b : block_order) block.run(static_cast<unsigned>(b), body);
}
