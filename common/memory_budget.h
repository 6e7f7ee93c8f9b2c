// The memory budget: every program estimates what an input will cost before it allocates for
// it, and refuses (exit 2, with the bytes needed and the budget) rather than swap, crash or be
// killed. A size line or a --scale costs a few bytes to write and can ask for gigabytes.
#pragma once
#include <sys/resource.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#ifdef __GLIBC__  // mallopt is glibc's; a Mac's allocator keeps to its own ways
#include <malloc.h>
#endif
#include <fstream>
#include <new>
#include <string>
#include "text.h"

// What a program allocates for an input, host and device together, as bytes per stored entry
// and per row or column (whichever is more), plus what a GPU run costs whatever the input (the
// CUDA context, the library handles, the buffers that measure copy bandwidth). Each program
// states its own, measured on its largest runs, so that the estimate is an upper bound with a
// margin, not a guess.
struct MemoryModel {
    double per_entry = 0;
    double per_dimension = 0;
    double gpu_fixed = 0;
};

// The most rows that a program's kernels take, where that is fewer than an int can number
// (0: no limit of its own), and what limits them.
struct RowLimit {
    uint64_t max_rows = 0;
    std::string why;
};

inline std::string row_limit_problem(const RowLimit& limit, uint64_t rows) {
    if (limit.max_rows == 0 || rows <= limit.max_rows) return "";
    return limit.why + "; this input has " + with_separators(rows) + " rows";
}

inline double estimated_bytes(const MemoryModel& m, uint64_t rows, uint64_t cols, uint64_t entries,
                              bool on_gpu) {
    return (on_gpu ? m.gpu_fixed : 0.0) + m.per_entry * static_cast<double>(entries) +
           m.per_dimension * static_cast<double>(std::max(rows, cols));
}

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kDefaultBudgetCap = 4 * kGiB;

// The budget in bytes and where it came from, in words, for the refusal message.
struct MemoryBudget {
    uint64_t bytes = kDefaultBudgetCap;
    std::string origin = "the default";
    bool on_gpu = false;  // whether the kernels run on a GPU, which costs gpu_fixed more
};

// MemAvailable from /proc/meminfo (what can be had without swapping), or 0 if unknown (a Mac has
// no /proc: the budget is then the default's cap).
inline uint64_t available_host_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kilobytes = 0;
    std::string unit;
    while (meminfo >> key >> kilobytes >> unit)
        if (key == "MemAvailable:") return kilobytes * 1024;
    return 0;
}

// The default: 4 GiB or half of the free host memory, whichever is smaller; with a GPU, also no
// more than its free memory (free_device_bytes = 0 means no GPU).
inline MemoryBudget default_memory_budget(uint64_t free_device_bytes) {
    MemoryBudget b;
    b.bytes = kDefaultBudgetCap;
    b.origin = "the default, 4 GiB";
    const uint64_t host = available_host_bytes();
    if (host > 0 && host / 2 < b.bytes) {
        b.bytes = host / 2;
        b.origin = "the default, half of the " + readable_bytes(static_cast<double>(host)) +
                   " of free host memory";
    }
    b.on_gpu = free_device_bytes > 0;
    if (free_device_bytes > 0 && free_device_bytes < b.bytes) {
        b.bytes = free_device_bytes;
        b.origin = "the default, the GPU's free memory";
    }
    return b;
}

// The smallest --max-memory value, in whole G or M, that covers `bytes`.
inline std::string max_memory_flag_for(double bytes) {
    const double gib = bytes / static_cast<double>(kGiB);
    char text[48];
    if (gib >= 1)
        std::snprintf(text, sizeof text, "--max-memory %.0fG", std::ceil(gib * 1.05));
    else
        std::snprintf(text, sizeof text, "--max-memory %.0fM", std::ceil(gib * 1024 * 1.05));
    return text;
}

// "" when the input fits the budget; otherwise the reason, for a refusal.
inline std::string over_budget_problem(const MemoryModel& model, const MemoryBudget& budget,
                                       uint64_t rows, uint64_t cols, uint64_t entries) {
    const double need = estimated_bytes(model, rows, cols, entries, budget.on_gpu);
    if (need <= static_cast<double>(budget.bytes)) return "";
    return "this program would need about " + readable_bytes(need) + " for " +
           with_separators(rows) + " x " + with_separators(cols) + " with " +
           with_separators(entries) + (entries == 1 ? " entry" : " entries") +
           ", more than its memory budget of " + readable_bytes(static_cast<double>(budget.bytes)) +
           " (" + budget.origin + "); give " + max_memory_flag_for(need) + " to allow it";
}

// The estimate of the run in progress, so that an allocation that fails anyway can say what
// was expected of it.
inline double g_estimated_bytes = 0;
inline MemoryBudget g_memory_budget;

inline void note_estimate(const MemoryModel& model, uint64_t rows, uint64_t cols,
                          uint64_t entries) {
    g_estimated_bytes = estimated_bytes(model, rows, cols, entries, g_memory_budget.on_gpu);
}

// Host allocations that fail are reported here, the one place, as bad input (exit 2): the
// machine has less memory than the budget assumed, or another process took it.
[[noreturn]] inline void report_host_out_of_memory() {
    std::fprintf(stderr,
                 "error: out of host memory: an allocation failed although the input was "
                 "estimated at %s, within the budget of %s (%s); %s of host memory is free now\n",
                 readable_bytes(g_estimated_bytes).c_str(),
                 readable_bytes(static_cast<double>(g_memory_budget.bytes)).c_str(),
                 g_memory_budget.origin.c_str(),
                 readable_bytes(static_cast<double>(available_host_bytes())).c_str());
    std::exit(2);
}

inline void install_out_of_memory_handler() {
    std::set_new_handler(report_host_out_of_memory);
}

// Device bytes held now and at most, kept by DeviceBuffer, so that a run can set what it used
// beside what was estimated.
inline size_t g_device_bytes_now = 0;
inline size_t g_device_bytes_peak = 0;

inline void count_device_allocation(size_t bytes) {
    g_device_bytes_now += bytes;
    g_device_bytes_peak = std::max(g_device_bytes_peak, g_device_bytes_now);
}
inline void count_device_release(size_t bytes) {
    g_device_bytes_now -= bytes;
}

// A --scale run makes and drops arrays of hundreds of megabytes many times over: the input and
// its copies, each conversion and each check's own arrays. Kept in the heap once freed, instead
// of handed back to the system, each next array takes pages that are mapped already, where fresh
// ones cost a page fault and the system's zeroing every 4 KB: a gigabyte took three times as
// long to make. The peak that print_memory_use reports is still the largest resident set.
inline void keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

// The largest resident set of this process so far, in bytes (macOS counts ru_maxrss in bytes,
// Linux in kilobytes).
inline double host_peak_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
#ifdef __APPLE__
    return static_cast<double>(usage.ru_maxrss);
#else
    return static_cast<double>(usage.ru_maxrss) * 1024.0;
#endif
}

// One line that sets the estimate beside the use, for runs on large inputs.
inline void print_memory_use() {
    print_wrapped("memory: estimated " + readable_bytes(g_estimated_bytes) + " (budget " +
                  readable_bytes(static_cast<double>(g_memory_budget.bytes)) + ", " +
                  g_memory_budget.origin + "); used at most " + readable_bytes(host_peak_bytes()) +
                  " on the host and " + readable_bytes(static_cast<double>(g_device_bytes_peak)) +
                  " on the device");
}
