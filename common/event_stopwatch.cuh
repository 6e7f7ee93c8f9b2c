// Events around each of many short stretches of GPU work inside a longer run (each SpMV of 147's
// CG solve), read when the host next waits anyway, so that timing them adds no wait of its own:
// their sum is those stretches' share of the run. Off (in emulation, or untimed), it does nothing.
#pragma once
#include "cuda_support.cuh"

class EventStopwatch {
public:
    explicit EventStopwatch(bool on) : on_(on) {
        if (!on_) return;
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~EventStopwatch() {
        if (!on_) return;
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventStopwatch(const EventStopwatch&) = delete;
    EventStopwatch& operator=(const EventStopwatch&) = delete;

    void start() {
        collect();
        if (on_) CUDA_CHECK(cudaEventRecord(start_));
    }
    void stop() {
        if (!on_) return;
        CUDA_CHECK(cudaEventRecord(stop_));
        pending_ = true;
    }
    // Adds the last stretch's time once the GPU has finished it.
    void collect() {
        if (!pending_) return;
        float ms = 0;
        CUDA_CHECK(cudaEventSynchronize(stop_));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        total_ms += ms;
        pending_ = false;
    }
    double total_ms = 0;

private:
    bool on_, pending_ = false;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};
