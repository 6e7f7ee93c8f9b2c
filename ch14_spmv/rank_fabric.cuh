// Where 149's ranks live and how their pieces move between them. With no GPU, the ranks run in
// the emulator and an all-gather or an all-reduce is a host copy or a host sum. With more ranks
// than GPUs, or a build without NCCL, or where one place is asked for, every rank lives on GPU 0
// and the exchanges are device-to-device copies and a sum on the host. Otherwise rank k lives on
// GPU k, with one NCCL communicator per GPU (ncclCommInitAll, one process), and the exchanges
// are ncclAllGather and ncclAllReduce; one rank on one GPU takes that road too, so that a
// machine with a single GPU runs NCCL's calls as well.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "../common/here.cuh"
#ifdef SUITE_HAVE_NCCL
#include <nccl.h>

#define NCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        const ncclResult_t nccl_result = (call);                                                   \
        if (nccl_result != ncclSuccess)                                                            \
            throw std::runtime_error(std::string(#call) + ": " + ncclGetErrorString(nccl_result)); \
    } while (0)
#endif

class RankFabric {
public:
    enum class Kind { emulated, one_gpu, gpu_per_rank };
    enum class Placement { one_place, gpu_per_rank_where_possible };

    RankFabric(const Here& here, int ranks,
               [[maybe_unused]] Placement placement = Placement::gpu_per_rank_where_possible)
        : here_(here), ranks_(ranks) {
        kind_ = here.on_gpu() ? Kind::one_gpu : Kind::emulated;
#ifdef SUITE_HAVE_NCCL
        int devices = 0;
        if (here.on_gpu()) CUDA_CHECK(cudaGetDeviceCount(&devices));
        if (placement == Placement::gpu_per_rank_where_possible && here.on_gpu() &&
            ranks <= devices) {
            kind_ = Kind::gpu_per_rank;
            comms_.resize(ranks);
            std::vector<int> device_ids(ranks);
            for (int k = 0; k < ranks; ++k) device_ids[k] = k;
            NCCL_CHECK(ncclCommInitAll(comms_.data(), ranks, device_ids.data()));
        }
#endif
    }
    RankFabric(const RankFabric&) = delete;
    RankFabric& operator=(const RankFabric&) = delete;
    ~RankFabric() {
#ifdef SUITE_HAVE_NCCL
        for (ncclComm_t c : comms_) ncclCommDestroy(c);
        if (kind_ == Kind::gpu_per_rank) cudaSetDevice(0);
#endif
    }

    Kind kind() const {
        return kind_;
    }
    int ranks() const {
        return ranks_;
    }
    const Here& here() const {
        return here_;
    }

    std::string describe() const {
        switch (kind_) {
            case Kind::emulated:
                return "in the emulator: gathers and sums are host copies and host sums";
            case Kind::one_gpu:
#ifdef SUITE_HAVE_NCCL
                return "all on GPU 0: gathers are device copies, sums are added on the host";
#else
                return "all on GPU 0 (built without NCCL): gathers are device copies, sums are "
                       "added on the host";
#endif
            case Kind::gpu_per_rank:
                return "rank k on GPU k, one NCCL communicator each: ncclAllGather, ncclAllReduce";
        }
        return "";
    }

    // Makes rank k's GPU current, before anything of rank k is allocated or launched.
    void on(int rank) const {
        if (kind_ == Kind::gpu_per_rank) CUDA_CHECK(cudaSetDevice(rank));
    }

    // work(k) for every rank k in turn, with rank k's GPU current; rank 0's again afterwards.
    template <class Work>
    void each_rank(Work work) const {
        for (int k = 0; k < ranks_; ++k) {
            on(k);
            work(k);
        }
        on(0);
    }

    // Rank k's piece (piece floats) into every rank's whole (ranks * piece floats) at k * piece.
    // A piece may already lie in its own rank's whole, at its place.
    void all_gather(const std::vector<const float*>& pieces, const std::vector<float*>& wholes,
                    int piece) const {
        if (piece == 0) return;
#ifdef SUITE_HAVE_NCCL
        if (kind_ == Kind::gpu_per_rank) {
            NCCL_CHECK(ncclGroupStart());
            for (int k = 0; k < ranks_; ++k)
                NCCL_CHECK(ncclAllGather(pieces[k], wholes[k], piece, ncclFloat, comms_[k], 0));
            NCCL_CHECK(ncclGroupEnd());
            return;
        }
#endif
        for (int to = 0; to < ranks_; ++to)
            for (int k = 0; k < ranks_; ++k) {
                float* place = wholes[to] + static_cast<size_t>(k) * piece;
                if (place != pieces[k]) copy_where_kernels_run(here_, place, pieces[k], piece);
            }
    }

    // Each rank's double at slots[k] (where rank k's kernels run) becomes the sum over ranks.
    void all_reduce_sum(const std::vector<double*>& slots) const {
#ifdef SUITE_HAVE_NCCL
        if (kind_ == Kind::gpu_per_rank) {
            NCCL_CHECK(ncclGroupStart());
            for (int k = 0; k < ranks_; ++k)
                NCCL_CHECK(ncclAllReduce(slots[k], slots[k], 1, ncclDouble, ncclSum, comms_[k], 0));
            NCCL_CHECK(ncclGroupEnd());
            return;
        }
#endif
        double total = 0;
        for (double* slot : slots) total += read(slot);
        for (double* slot : slots) write(slot, total);
    }

    // Waits for every rank's work: the end of a timed step. The current GPU is left as it was,
    // so that a step timed on one rank's GPU keeps launching there.
    void synchronize() const {
        if (!here_.on_gpu()) return;
        int current = 0;
        CUDA_CHECK(cudaGetDevice(&current));
        for (int k = 0; k < (kind_ == Kind::gpu_per_rank ? ranks_ : 1); ++k) {
            on(k);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        CUDA_CHECK(cudaSetDevice(current));
    }

private:
    double read(const double* slot) const {
        double value = 0;
        if (here_.on_gpu())
            CUDA_CHECK(cudaMemcpy(&value, slot, sizeof value, cudaMemcpyDeviceToHost));
        else
            value = *slot;
        return value;
    }
    void write(double* slot, double value) const {
        if (here_.on_gpu())
            CUDA_CHECK(cudaMemcpy(slot, &value, sizeof value, cudaMemcpyHostToDevice));
        else
            *slot = value;
    }

    Here here_;
    int ranks_;
    Kind kind_;
#ifdef SUITE_HAVE_NCCL
    std::vector<ncclComm_t> comms_;
#endif
};
