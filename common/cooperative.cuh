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
// shuffle from a lane outside the mask, a shuffle's width that is not a power of two up to 32,
// or no thread able to go on (lanes of one warp that wait at different collectives for each
// other, say).
//
// In the race check (SUITE_RACE_CHECK, under ThreadSanitizer) the blocks of a shuffled launch
// run on the pool of host threads at once, and ThreadSanitizer is told about the fibers: each
// is a thread of its own to it, and only what orders threads on a GPU orders them here. A
// collective orders what each of its threads did before it before what any of them does after
// it; the start of a block orders the launch's setup before its threads. So two threads of a
// block that touch the same shared or global memory with no barrier between them, one of them
// writing, are reported, as are two blocks' threads that do so.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <deque>
// macOS declares the ucontext routines, which it deprecates, only under _XOPEN_SOURCE.
#if defined(__APPLE__) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700
#endif
#include <ucontext.h>
#ifdef SUITE_RACE_CHECK
#include <sanitizer/tsan_interface.h>
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif
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

// Two loads with cache hints on the device, plain loads on the host: __ldg goes through the
// read-only path, for data that no thread writes; __ldcs marks data that is read once to be
// evicted first from L1 and L2, so that it does not push out what other loads read again.
#ifdef __CUDA_ARCH__
template <class T>
__host__ __device__ inline T load_read_only(const T* address) { return __ldg(address); }
template <class T>
__host__ __device__ inline T load_streaming(const T* address) { return __ldcs(address); }
#else
template <class T>
__host__ __device__ inline T load_read_only(const T* address) { return *address; }
template <class T>
__host__ __device__ inline T load_streaming(const T* address) { return *address; }
#endif

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
    __device__ void threadfence() const { __threadfence(); }
    template <class T>
    __device__ T shfl_sync(unsigned mask, T value, int src_lane) const {
        return __shfl_sync(mask, value, src_lane);
    }
    template <class T>
    __device__ T shfl_up_sync(unsigned mask, T value, unsigned delta) const {
        return __shfl_up_sync(mask, value, delta);
    }
    // width: the lanes split into segments of `width` (a power of two up to 32), and a lane
    // whose source lies past its segment's end gets its own value back.
    template <class T>
    __device__ T shfl_down_sync(unsigned mask, T value, unsigned delta,
                                int width = kWarpSize) const {
        return __shfl_down_sync(mask, value, delta, width);
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

// What ThreadSanitizer is told about the emulator's fibers; outside the race check, nothing.
namespace fiber_race_check {
#ifdef SUITE_RACE_CHECK
inline void* current_fiber() { return __tsan_get_current_fiber(); }
inline void* create_fiber() { return __tsan_create_fiber(0); }
inline void destroy_fiber(void* fiber) { __tsan_destroy_fiber(fiber); }
// Switching fibers orders nothing: only the collectives do, as on a GPU.
inline void switch_to(void* fiber) { __tsan_switch_to_fiber(fiber, __tsan_switch_to_fiber_no_sync); }
inline void release(char* token) { __tsan_release(token); }
inline void acquire(char* token) { __tsan_acquire(token); }
// The emulator's own state (the fibers' states, the meetings, the payloads) is handed from
// fiber to fiber by the scheduler, which nothing orders either: its accesses are not watched.
struct Bookkeeping {
    Bookkeeping() { __tsan_ignore_thread_begin(); }
    ~Bookkeeping() { __tsan_ignore_thread_end(); }
    Bookkeeping(const Bookkeeping&) = delete;
    Bookkeeping& operator=(const Bookkeeping&) = delete;
};
#else
inline void* current_fiber() { return nullptr; }
inline void* create_fiber() { return nullptr; }
inline void destroy_fiber(void*) {}
inline void switch_to(void*) {}
inline void release(char*) {}
inline void acquire(char*) {}
struct Bookkeeping {
    Bookkeeping() {}
};
#endif
}  // namespace fiber_race_check

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
    // __threadfence: this thread's writes are seen by every other block before its later ones.
    // Blocks run one after another, or in the race check on host threads, whose fence this is.
    __host__ __device__ void threadfence() { ON_EMULATOR_ONLY(__atomic_thread_fence(__ATOMIC_SEQ_CST), ); }
    template <class T>
    __host__ __device__ T shfl_sync(unsigned mask, T value, int src_lane) {
        ON_EMULATOR_ONLY(return host_shfl_sync(mask, value, src_lane), value);
    }
    template <class T>
    __host__ __device__ T shfl_up_sync(unsigned mask, T value, unsigned delta) {
        ON_EMULATOR_ONLY(return host_shfl_up_sync(mask, value, delta), value);
    }
    template <class T>
    __host__ __device__ T shfl_down_sync(unsigned mask, T value, unsigned delta,
                                         int width = kWarpSize) {
        ON_EMULATOR_ONLY(return host_shfl_down_sync(mask, value, delta, width), value);
    }
    __host__ __device__ unsigned ballot_sync(unsigned mask, bool predicate) {
        ON_EMULATOR_ONLY(return host_ballot_sync(mask, predicate), 0u);
    }
    template <class T>
    __host__ __device__ unsigned match_any_sync(unsigned mask, T key) {
        ON_EMULATOR_ONLY(return host_match_any_sync(mask, key), 0u);
    }
    // Fibers switch only at collectives, so in one block at a time a plain read-modify-write is
    // already atomic; the race check's blocks run at once, and its shim is a host atomic. An add
    // to the block's shared memory keeps subnormals, one to global memory flushes them, as on the
    // GPU (host_atomic_add).
    template <class T>
    __host__ __device__ T atomic_add(T* address, T value) {
        ON_EMULATOR_ONLY(return host_atomic_add(address, value, memory_of(address)), value);
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
    void check_width(int width, const char* what);
    const uint64_t* exchange(const char* what, unsigned mask, uint64_t payload);

    template <class T>
    T host_shfl_sync(unsigned mask, T value, int src_lane) {
        const uint64_t* all = exchange("__shfl_sync", mask, bits_of(value));
        return value_of<T>(all[source_lane(mask, src_lane % kWarpSize, "__shfl_sync")]);
    }
    template <class T>
    T host_shfl_up_sync(unsigned mask, T value, unsigned delta) {
        const uint64_t* all = exchange("__shfl_up_sync", mask, bits_of(value));
        const int source = lane() - static_cast<int>(delta);
        if (source < 0) return value;
        return value_of<T>(all[source_lane(mask, source, "__shfl_up_sync")]);
    }
    template <class T>
    T host_shfl_down_sync(unsigned mask, T value, unsigned delta, int width) {
        check_width(width, "__shfl_down_sync");
        const uint64_t* all = exchange("__shfl_down_sync", mask, bits_of(value));
        const unsigned source = lane() + delta;
        const unsigned segment_end = static_cast<unsigned>(lane() / width * width + width);
        if (source >= segment_end) return value;
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
    AtomicMemory memory_of(const void* address) const;
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

#ifndef __CUDACC__
// Without nvcc the kernels are compiled but never launched (common/cuda_without_toolkit.h): their
// bodies take the emulator's context, which is the only one there is.
using DeviceCuda = EmulatedCuda;
#endif

// The threads of a block that can go on, each at the position where the scheduler ranks it: a
// Fenwick tree of how many are ready at each position, so that marking one and finding the k-th
// ready one each take log T steps rather than a pass over the block's T threads at every switch.
class ReadyThreads {
public:
    explicit ReadyThreads(int size) : counts_(static_cast<size_t>(size) + 1), size_(size) {
        while (top_bit_ * 2 <= size_) top_bit_ *= 2;
    }

    // Every position ready, as at the start of a block.
    void fill() {
        for (int i = 1; i <= size_; ++i) counts_[i] = i & -i;
        ready_ = size_;
    }

    void mark(int position, bool ready) {
        const int change = ready ? 1 : -1;
        ready_ += change;
        for (int i = position + 1; i <= size_; i += i & -i) counts_[i] += change;
    }

    int count() const { return ready_; }

    // The position of the k-th ready one, counting from 0 in the order of positions.
    int kth(int k) const {
        int position = 0;
        for (int step = top_bit_; step > 0; step /= 2)
            if (position + step <= size_ && counts_[position + step] <= k) {
                position += step;
                k -= counts_[position];
            }
        return position;
    }

private:
    std::vector<int> counts_;
    int size_;
    int top_bit_ = 1;
    int ready_ = 0;
};

// A block's threads as fibers, run to completion one block at a time. The fibers are made once
// and serve every block that this object runs: each one's loop runs the body for its thread of
// the block, then waits for the next block.
class EmulatedBlock {
public:
    EmulatedBlock(const BlockGrid& grid, const ThreadOrder& order)
        : grid_(grid),
          rng_(order.scheduling_seed()),
          shuffled_(order.is_shuffled()),
          rank_(grid.threads),
          thread_at_(grid.threads),
          ready_(static_cast<int>(grid.threads)),
          shared_(grid.shared_bytes),
          fibers_(grid.threads) {
        const fiber_race_check::Bookkeeping bookkeeping;
        for (size_t t = 0; t < fibers_.size(); ++t) {
            Fiber& f = fibers_[t];
            f.stack.reset(new char[kStackBytes]);
            f.race_check_fiber = fiber_race_check::create_fiber();
            getcontext(&f.context);
            f.context.uc_stack.ss_sp = f.stack.get();
            f.context.uc_stack.ss_size = kStackBytes;
            f.context.uc_link = nullptr;
            makecontext(&f.context, reinterpret_cast<void (*)()>(&EmulatedBlock::fiber_main), 1,
                        static_cast<int>(t));
        }
        // Shuffled, the scheduler picks at random among the ready threads by index; otherwise
        // it takes the ready thread that comes first in the order.
        const std::vector<int> sequence =
            shuffled_ ? std::vector<int>() : order.sequence(grid.threads);
        for (size_t position = 0; position < fibers_.size(); ++position) {
            const int t = shuffled_ ? static_cast<int>(position) : sequence[position];
            rank_[t] = static_cast<int>(position);
            thread_at_[position] = t;
        }
    }
    ~EmulatedBlock() {
        for (Fiber& f : fibers_) fiber_race_check::destroy_fiber(f.race_check_fiber);
    }
    EmulatedBlock(const EmulatedBlock&) = delete;
    EmulatedBlock& operator=(const EmulatedBlock&) = delete;

    void run(unsigned block_index, const std::function<void(EmulatedCuda&)>& body) {
        const fiber_race_check::Bookkeeping bookkeeping;
        if (stopped_) throw std::logic_error("an emulated block is run again after it stopped");
        body_ = &body;
        live_ = static_cast<int>(fibers_.size());
        at_barrier_ = 0;
        open_.clear();
        tokens_used_ = 0;
        barrier_token_ = new_token();
        std::fill(shared_.begin(), shared_.end(), 0xA5);
        ready_.fill();
        for (size_t t = 0; t < fibers_.size(); ++t) {
            Fiber& f = fibers_[t];
            f.state = State::ready;
            f.cuda = EmulatedCuda();
            f.cuda.threadIdx = {static_cast<unsigned>(t), 0, 0};
            f.cuda.blockIdx = {block_index, 0, 0};
            f.cuda.blockDim = dim3(grid_.threads);
            f.cuda.gridDim = dim3(grid_.blocks);
            f.cuda.block_ = this;
            f.token_to_acquire = &block_start_token_;
        }
        fiber_race_check::release(&block_start_token_);
        scheduler_fiber_ = fiber_race_check::current_fiber();
        running_block() = this;
        while (live_ > 0 && error_.empty()) {
            if (ready_.count() == 0) {
                error_ = "no thread of block " + std::to_string(block_index) +
                         " can go on: " + waiting_summary();
                break;
            }
            const uint32_t ready = static_cast<uint32_t>(ready_.count());
            current_ = thread_at_[ready_.kth(shuffled_ ? static_cast<int>(rng_.below(ready)) : 0)];
            fiber_race_check::switch_to(fibers_[current_].race_check_fiber);
            swapcontext(&scheduler_, &fibers_[current_].context);
        }
        running_block() = nullptr;
        fiber_race_check::acquire(&block_end_token_);
        if (!error_.empty()) {
            stopped_ = true;
            throw std::logic_error("emulated block: " + error_);
        }
    }

    unsigned char* shared_base() { return shared_.data(); }
    size_t shared_bytes() const { return grid_.shared_bytes; }

    void barrier() {
        {
            const fiber_race_check::Bookkeeping bookkeeping;
            Fiber& f = fibers_[current_];
            set_state(current_, State::at_barrier);
            f.token_to_acquire = barrier_token_;
            fiber_race_check::release(barrier_token_);
            ++at_barrier_;
            release_barrier_if_complete();
        }
        yield();
    }

    // Every lane of `mask` in the warp of the current thread posts its payload; each gets all of
    // them once the last one has arrived.
    const uint64_t* exchange(const char* what, unsigned mask, uint64_t payload) {
        const int t = current_;
        {
            const fiber_race_check::Bookkeeping bookkeeping;
            post(what, mask, payload);
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
        {
            const fiber_race_check::Bookkeeping bookkeeping;
            fail(why);
        }
        yield();
        throw std::logic_error("an emulated thread resumed after its block stopped");
    }

private:
    // Under ThreadSanitizer a fiber also runs the sanitizer's own code, a report's included.
#ifdef SUITE_RACE_CHECK
    static constexpr size_t kStackBytes = 512 * 1024;
#else
    static constexpr size_t kStackBytes = 64 * 1024;
#endif
    enum class State { ready, at_barrier, in_warp_collective, done };
    struct Fiber {
        ucontext_t context;
        std::unique_ptr<char[]> stack;  // left uninitialised: a fiber writes before it reads
        void* race_check_fiber = nullptr;
        // What this fiber waited at (the block's start, a barrier, a warp collective): once it
        // goes on, the other threads' work before it is ordered before this one's after it.
        char* token_to_acquire = nullptr;
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
        char* token;
    };

    static EmulatedBlock*& running_block() {
        static thread_local EmulatedBlock* block = nullptr;
        return block;
    }

    static void fiber_main(int t) {
        EmulatedBlock* block = running_block();
        for (;;) {
            block->acquire_what_was_waited_for();
            (*block->body_)(block->fibers_[t].cuda);
            {
                const fiber_race_check::Bookkeeping bookkeeping;
                block->finish(t);
            }
            block->yield();
        }
    }

    void post(const char* what, unsigned mask, uint64_t payload) {
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
            open_.push_back(Meeting{warp, mask, what, 0, {}, new_token()});
            meeting = &open_.back();
        }
        meeting->payload[lane] = payload;
        meeting->arrived |= 1u << lane;
        fiber_race_check::release(meeting->token);
        set_state(t, State::in_warp_collective);
        if (meeting->arrived == mask) {
            for (int l = 0; l < kWarpSize; ++l) {
                if (!(mask >> l & 1u)) continue;
                const int lane_thread = warp * kWarpSize + l;
                Fiber& f = fibers_[lane_thread];
                std::copy(std::begin(meeting->payload), std::end(meeting->payload),
                          std::begin(f.received));
                f.token_to_acquire = meeting->token;
                set_state(lane_thread, State::ready);
            }
            open_.erase(open_.begin() + (meeting - open_.data()));
        }
    }

    // A thread that leaves counts as arrived at the block's barrier, as on the GPU; a warp that
    // still waits for it in a collective never completes.
    void finish(int t) {
        set_state(t, State::done);
        --live_;
        fiber_race_check::release(barrier_token_);
        fiber_race_check::release(&block_end_token_);
        for (const Meeting& m : open_)
            if (m.warp == t / kWarpSize && (m.mask >> (t % kWarpSize) & 1u))
                fail(thread_name(t) + " left the kernel while its warp waits for it in " + m.what);
        release_barrier_if_complete();
    }

    void release_barrier_if_complete() {
        if (at_barrier_ == 0 || at_barrier_ != live_) return;
        for (size_t t = 0; t < fibers_.size(); ++t)
            if (fibers_[t].state == State::at_barrier) set_state(static_cast<int>(t), State::ready);
        at_barrier_ = 0;
        barrier_token_ = new_token();
    }

    void set_state(int t, State state) {
        const bool was_ready = fibers_[t].state == State::ready;
        if (was_ready != (state == State::ready)) ready_.mark(rank_[t], !was_ready);
        fibers_[t].state = state;
    }

    void yield() {
        fiber_race_check::switch_to(scheduler_fiber_);
        swapcontext(&fibers_[current_].context, &scheduler_);
        acquire_what_was_waited_for();
    }

    void acquire_what_was_waited_for() {
        const fiber_race_check::Bookkeeping bookkeeping;
        Fiber& f = fibers_[current_];
        if (f.token_to_acquire != nullptr) fiber_race_check::acquire(f.token_to_acquire);
        f.token_to_acquire = nullptr;
    }

    // Each barrier and each warp collective of a block's run has a token of its own, which its
    // threads release as they arrive and acquire as they go on; a deque keeps the tokens where
    // they are as it grows.
    char* new_token() {
        if (tokens_used_ == tokens_.size()) tokens_.emplace_back();
        return &tokens_[tokens_used_++];
    }

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
    std::vector<int> rank_;       // each thread's position in the order the scheduler picks by
    std::vector<int> thread_at_;  // the thread at each position
    ReadyThreads ready_;
    std::vector<unsigned char> shared_;
    std::vector<Fiber> fibers_;
    std::vector<Meeting> open_;
    std::deque<char> tokens_;
    size_t tokens_used_ = 0;
    char* barrier_token_ = nullptr;
    char block_start_token_ = 0, block_end_token_ = 0;
    const std::function<void(EmulatedCuda&)>* body_ = nullptr;
    ucontext_t scheduler_;
    void* scheduler_fiber_ = nullptr;
    std::string error_;
    bool stopped_ = false;
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

// A shuffle's width must be a power of two up to the warp's 32 lanes; the GPU leaves any other
// undefined.
inline void EmulatedCuda::check_width(int width, const char* what) {
    if (width < 1 || width > kWarpSize || (width & (width - 1)) != 0)
        block_->fail_and_stop("lane " + std::to_string(lane()) + " calls " + what +
                              " with width " + std::to_string(width) +
                              ", which is not a power of two up to 32");
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

inline AtomicMemory EmulatedCuda::memory_of(const void* address) const {
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    const uintptr_t shared = reinterpret_cast<uintptr_t>(block_->shared_base());
    return at - shared < block_->shared_bytes() ? AtomicMemory::shared : AtomicMemory::global;
}

// The shared array that a body takes next: `float* sums = shared_array<float>(cuda, n);`
template <class T, class Cuda>
__host__ __device__ T* shared_array(Cuda& cuda, size_t count) {
    return cuda.template shared<T>(count);
}

// Every block of the grid, one after another (in a shuffled order where the order is shuffled),
// each block's threads as fibers scheduled by the emulator's order. In the race check a shuffled
// launch deals its blocks out to the workers, each with fibers of its own.
inline void emulate_blocks(const BlockGrid& grid, const ThreadOrder& order,
                           const std::function<void(EmulatedCuda&)>& body) {
    if (grid.blocks == 0 || grid.threads == 0) return;
    const std::vector<int> block_order = order.is_shuffled() ? order.sequence(grid.blocks)
                                                             : ThreadOrder::ascending().sequence(grid.blocks);
#ifdef SUITE_RACE_CHECK
    if (runs_threads_at_once(order)) {
        run_on_race_check_workers([&](unsigned w) {
            EmulatedBlock block(grid, ThreadOrder::shuffled(order.scheduling_seed() + w));
            for (size_t position = w; position < block_order.size(); position += kRaceCheckWorkers)
                block.run(static_cast<unsigned>(block_order[position]), body);
        });
        return;
    }
#endif
    EmulatedBlock block(grid, order);
    for (int b : block_order) block.run(static_cast<unsigned>(b), body);
}
