// The warp requests of a mapping's reads of the values (which element each thread reads in each
// step; 144's and 145's lessons define the mappings), the unit in which the hardware serves loads:
//   sectors      distinct 32-byte sectors that the active lanes touch (32 consecutive floats: 4)
//   fetched/used bytes of the touched sectors per byte asked for: 1 when contiguous, up to 8
//   contiguous   every active lane l reads element base + l: the coalesced case
//   lanes busy   active lanes over the warp's lanes: the rest wait (divergence)
// Column indices follow the same pattern; x and y are not modelled.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/host_threads.h"
#include "../common/warp.h"

constexpr int kElementBytes = 4;
constexpr int kSectorBytes = 32;

// True when the mapping reads every entry (is_entry[e] == 1) exactly once and nothing else; the
// counts are atomic, so that a second read is seen however the cores interleave.
template <class Mapping>
bool reads_each_entry_once(const Mapping& m, const std::vector<char>& is_entry) {
    std::vector<unsigned char> times_read(is_entry.size(), 0);
    size_t reads = 0, wrong = 0;
    const long long threads = static_cast<long long>(m.num_threads());
#pragma omp parallel for reduction(+ : reads, wrong) schedule(dynamic, 4096) \
    if (is_entry.size() >= kParallelSize)
    for (long long t = 0; t < threads; ++t)
        for (int i = 0; i < m.length(t); ++i) {
            const long long e = m.element(t, i);
            if (e < 0 || static_cast<size_t>(e) >= is_entry.size() || !is_entry[e]) {
                ++wrong;
                continue;
            }
            unsigned char before;
#pragma omp atomic capture
            before = times_read[e]++;
            wrong += before != 0;
            ++reads;
        }
    return wrong == 0 &&
           reads == static_cast<size_t>(std::count(is_entry.begin(), is_entry.end(), 1));
}

// The model summed over all warps and steps, and the work of each thread.
struct AccessStats {
    size_t threads = 0;
    size_t requests = 0;  // (warp, step) pairs in which at least one lane of the warp reads
    size_t sectors = 0;
    size_t contiguous_requests = 0;
    size_t reads = 0;       // elements read: each stored entry once, for a correct mapping
    size_t lane_slots = 0;  // lanes of the warps of all requests, busy or not
    size_t max_work = 0;    // the most steps that one thread takes
    double work_squares = 0;

    double sectors_per_request() const { return requests ? double(sectors) / requests : 0.0; }
    double contiguous_fraction() const {
        return requests ? double(contiguous_requests) / requests : 1.0;
    }
    double fetched_per_used() const {
        return reads ? double(sectors) * kSectorBytes / (double(reads) * kElementBytes) : 0.0;
    }
    double lanes_busy() const { return lane_slots ? double(reads) / lane_slots : 1.0; }
    double mean_work() const { return threads ? double(reads) / threads : 0.0; }
    // 0 when every thread does the same work.
    double work_cv() const {
        if (threads == 0 || reads == 0) return 0.0;
        const double mean = mean_work();
        return std::sqrt(std::max(0.0, work_squares / threads - mean * mean)) / mean;
    }
};

// Two launches one after the other, such as HYB's ELL part and COO part.
inline AccessStats combined(const AccessStats& a, const AccessStats& b) {
    AccessStats c;
    c.threads = a.threads + b.threads;
    c.requests = a.requests + b.requests;
    c.sectors = a.sectors + b.sectors;
    c.contiguous_requests = a.contiguous_requests + b.contiguous_requests;
    c.reads = a.reads + b.reads;
    c.lane_slots = a.lane_slots + b.lane_slots;
    c.max_work = std::max(a.max_work, b.max_work);
    c.work_squares = a.work_squares + b.work_squares;
    return c;
}

// One warp's requests, step by step over its lanes still active, added to s.
template <class Mapping>
void add_warp_requests(const Mapping& m, size_t warp_start, AccessStats& s,
                       std::vector<int>& active) {
    long long sector_ids[kWarpSize];
    const int lanes = static_cast<int>(std::min<size_t>(kWarpSize, m.num_threads() - warp_start));
    active.clear();
    for (int lane = 0; lane < lanes; ++lane) {
        const size_t work = static_cast<size_t>(m.length(warp_start + lane));
        s.max_work = std::max(s.max_work, work);
        s.work_squares += static_cast<double>(work) * static_cast<double>(work);
        if (work > 0) active.push_back(lane);
    }
    for (int i = 0; !active.empty(); ++i) {
        ++s.requests;
        s.lane_slots += lanes;
        s.reads += active.size();
        const long long base = m.element(warp_start + active[0], i) - active[0];
        bool contiguous = true;
        int count = 0;
        for (int lane : active) {
            const long long e = m.element(warp_start + lane, i);
            contiguous = contiguous && e - lane == base;
            sector_ids[count++] = e * kElementBytes / kSectorBytes;
        }
        std::sort(sector_ids, sector_ids + count);
        s.sectors += std::unique(sector_ids, sector_ids + count) - sector_ids;
        s.contiguous_requests += contiguous;
        active.erase(std::remove_if(active.begin(), active.end(),
                                    [&](int lane) { return m.length(warp_start + lane) <= i + 1; }),
                     active.end());
    }
}

// Warp by warp, the warps shared among the cores: the sums are of whole numbers (work_squares
// exactly, below 2^53), so they come out the same however the warps are shared.
template <class Mapping>
AccessStats access_stats(const Mapping& m) {
    const size_t threads = m.num_threads();
    const long long warps = static_cast<long long>((threads + kWarpSize - 1) / kWarpSize);
    AccessStats s;
#pragma omp parallel if (threads >= kParallelSize)
    {
        AccessStats mine;
        std::vector<int> active;
#pragma omp for schedule(dynamic, 1024)
        for (long long w = 0; w < warps; ++w)
            add_warp_requests(m, static_cast<size_t>(w) * kWarpSize, mine, active);
#pragma omp critical
        s = combined(s, mine);
    }
    s.threads = threads;
    return s;
}
