// Which element of its entry array each thread of an SpMV kernel reads, step by step, computed
// from the matrix for each way of assigning threads to entries. On a small matrix it is printed
// as a table (the notes' table for CSR is the first one); on any matrix it is summed up per
// warp request, the unit in which the hardware serves loads:
//   sectors     distinct 32-byte sectors that the request's active lanes touch (the array holds
//               4-byte elements, so 8 to a sector, and cudaMalloc aligns it to 256 bytes);
//               32 lanes reading 32 consecutive elements touch 4, 32 scattered lanes touch 32
//   fetched/used bytes of the touched sectors per byte asked for: 1 when contiguous, 8 when
//               every 4-byte read has a sector to itself
//   contiguous  every active lane l reads element base + l for one base: the coalesced case
//   lanes busy  active lanes over the lanes of the warp: the rest wait (divergence)
// The model follows one array, the values; a kernel reads its column indices in the same
// pattern, and its x and y accesses are not modelled.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "../common/host_threads.h"
#include "../common/text.h"
#include "../common/warp.h"

constexpr long long kDone = -1;  // in a table: this thread has no more entries
constexpr int kElementBytes = 4;
constexpr int kSectorBytes = 32;

// The notes' table for Fig. 14.1 and the CSR kernel, one thread per row: reads[i][t] is the
// index into values[] that thread t reads in step i.
const std::vector<std::vector<long long>> kNotesCsrAccessTable = {
    {0, 2, 5, 7}, {1, 3, 6, kDone}, {kDone, 4, kDone, kDone}};
// And the COO kernel's, one thread per entry: thread t reads values[t], all in one step.
const std::vector<std::vector<long long>> kNotesCooAccessTable = {{0, 1, 2, 3, 4, 5, 6, 7}};

// Each mapping says how many threads there are, for how many steps thread t is active (it
// stops after its last entry), and which element it reads in step i.

// The chapter's CSR kernel: thread t walks its row's slice, one entry per step. Neighbouring
// threads start a whole row apart: strided.
class CsrThreadPerRow {
public:
    explicit CsrThreadPerRow(const std::vector<int>& row_offsets) : row_offsets_(row_offsets) {}
    size_t num_threads() const { return row_offsets_.empty() ? 0 : row_offsets_.size() - 1; }
    int length(size_t t) const { return row_offsets_[t + 1] - row_offsets_[t]; }
    long long element(size_t t, int i) const { return row_offsets_[t] + static_cast<long long>(i); }

private:
    const std::vector<int>& row_offsets_;
};

// The chapter's COO kernel: thread t reads entry t, once.
class CooThreadPerEntry {
public:
    explicit CooThreadPerEntry(size_t nnz) : nnz_(nnz) {}
    size_t num_threads() const { return nnz_; }
    int length(size_t) const { return 1; }
    long long element(size_t t, int) const { return static_cast<long long>(t); }

private:
    size_t nnz_;
};

// CSR with one warp per row: lane l of warp w reads entries l, l + 32, l + 64, ... of row w.
class CsrWarpPerRow {
public:
    explicit CsrWarpPerRow(const std::vector<int>& row_offsets) : row_offsets_(row_offsets) {}
    size_t num_threads() const {
        return row_offsets_.empty() ? 0 : kWarpSize * (row_offsets_.size() - 1);
    }
    int length(size_t t) const {
        const int row_length = row_offsets_[t / kWarpSize + 1] - row_offsets_[t / kWarpSize];
        const int lane = static_cast<int>(t % kWarpSize);
        return row_length > lane ? (row_length - lane + kWarpSize - 1) / kWarpSize : 0;
    }
    long long element(size_t t, int i) const {
        return row_offsets_[t / kWarpSize] + static_cast<long long>(t % kWarpSize) +
               static_cast<long long>(i) * kWarpSize;
    }

private:
    const std::vector<int>& row_offsets_;
};

// ELL stored column-major, one thread per row: thread t reads slot i * num_rows + t in step i,
// so in each step the warp reads consecutive slots. Only the row lengths are needed, so the
// pattern can be computed even where ELL's padding is too large to build.
class EllThreadPerRow {
public:
    explicit EllThreadPerRow(const std::vector<int>& nnz_per_row) : nnz_per_row_(nnz_per_row) {}
    size_t num_threads() const { return nnz_per_row_.size(); }
    int length(size_t t) const { return nnz_per_row_[t]; }
    long long element(size_t t, int i) const {
        return static_cast<long long>(i) * static_cast<long long>(nnz_per_row_.size()) +
               static_cast<long long>(t);
    }

private:
    const std::vector<int>& nnz_per_row_;
};

// JDS, one thread per sorted position: thread t reads diag_ptrs[d] + t in step d, while
// diagonal d is longer than t.
class JdsThreadPerPosition {
public:
    JdsThreadPerPosition(const std::vector<int>& diag_ptrs, int num_rows)
        : diag_ptrs_(diag_ptrs), lengths_(num_rows, 0) {
        for (size_t d = 0; d + 1 < diag_ptrs.size(); ++d)
            for (int t = 0; t < diag_ptrs[d + 1] - diag_ptrs[d]; ++t) ++lengths_[t];
    }
    size_t num_threads() const { return lengths_.size(); }
    int length(size_t t) const { return lengths_[t]; }
    long long element(size_t t, int i) const { return diag_ptrs_[i] + static_cast<long long>(t); }

private:
    const std::vector<int>& diag_ptrs_;
    std::vector<int> lengths_;
};

// reads[i][t]: the element thread t reads in step i, or kDone. It has as many steps as the
// busiest thread, so it is for small inputs only.
struct AccessTable {
    size_t num_threads = 0;
    std::vector<std::vector<long long>> reads;
    int num_steps() const { return static_cast<int>(reads.size()); }
};

template <class Mapping>
AccessTable access_table(const Mapping& m) {
    AccessTable table;
    table.num_threads = m.num_threads();
    int steps = 0;
    for (size_t t = 0; t < table.num_threads; ++t) steps = std::max(steps, m.length(t));
    table.reads.assign(steps, std::vector<long long>(table.num_threads, kDone));
    for (size_t t = 0; t < table.num_threads; ++t)
        for (int i = 0; i < m.length(t); ++i) table.reads[i][t] = m.element(t, i);
    return table;
}

// One line per step, "t3->values[7]" or "t3 done", in columns, wrapped at 100 columns under the
// first cell. Past 8 threads (a warp per row has 32 per row) only the active threads are listed,
// with a count of the idle ones.
inline void print_access_table(const AccessTable& table, const std::string& array) {
    constexpr size_t kMaxThreadsInFull = 8;
    const bool in_full = table.num_threads <= kMaxThreadsInFull;
    auto cell = [&](size_t t, long long e) {
        return "t" + std::to_string(t) +
               (e == kDone ? std::string(" done") : "->" + array + "[" + std::to_string(e) + "]");
    };
    size_t width = 0;
    for (const auto& step : table.reads)
        for (size_t t = 0; t < table.num_threads; ++t)
            width = std::max(width, cell(t, step[t]).size());
    const size_t label_width = std::to_string(table.num_steps() - 1).size() + 8;
    for (int i = 0; i < table.num_steps(); ++i) {
        std::string label = "  step " + std::to_string(i) + ":";
        label.resize(label_width, ' ');
        std::vector<std::string> cells;
        size_t idle = 0;
        for (size_t t = 0; t < table.num_threads; ++t) {
            const long long e = table.reads[i][t];
            if (e == kDone && !in_full)
                ++idle;
            else
                cells.push_back(cell(t, e));
        }
        if (idle > 0) cells.push_back("(" + counted(idle, "thread") + " idle)");
        std::string line = label;
        for (const std::string& c : cells) {
            const std::string text =
                "  " + c + std::string(width > c.size() ? width - c.size() : 0, ' ');
            if (line.size() > label.size() && line.size() + 2 + c.size() > kOutputColumns) {
                while (line.back() == ' ') line.pop_back();
                std::printf("%s\n", line.c_str());
                line = std::string(label.size(), ' ');
            }
            line += text;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::printf("%s\n", line.c_str());
    }
}

// True when the mapping reads every stored entry exactly once and nothing else: is_entry[e]
// says whether element e holds an entry (1) or is padding (0), and a read outside the array,
// of padding, or of an entry already read makes it false. The threads are shared among the
// cores; each read of an element counts it atomically, so that a second read is seen however the
// reads interleave.
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

// The per-request model, summed over all warps and steps, and the work of each thread.
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
    // Bytes that the touched sectors hold per byte that a lane asked for: 1 when contiguous.
    double fetched_per_used() const {
        return reads ? double(sectors) * kSectorBytes / (double(reads) * kElementBytes) : 0.0;
    }
    double lanes_busy() const { return lane_slots ? double(reads) / lane_slots : 1.0; }
    double mean_work() const { return threads ? double(reads) / threads : 0.0; }
    // Coefficient of variation of the work per thread: 0 when every thread does the same.
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

// One warp's requests, step by step, over its lanes still active, added to s.
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
            // Insertion sort: the ids nearly always arrive in order already.
            const long long id = e * kElementBytes / kSectorBytes;
            int k = count++;
            for (; k > 0 && sector_ids[k - 1] > id; --k) sector_ids[k] = sector_ids[k - 1];
            sector_ids[k] = id;
        }
        for (int k = 0; k < count; ++k)
            s.sectors += k == 0 || sector_ids[k] != sector_ids[k - 1];
        s.contiguous_requests += contiguous;
        size_t kept = 0;
        for (int lane : active)
            if (m.length(warp_start + lane) > i + 1) active[kept++] = lane;
        active.resize(kept);
    }
}

// Warp by warp: the cost is the number of reads plus the number of requests, so it runs on
// matrices with millions of rows, the warps shared among the cores. The sums are of whole
// numbers (work_squares too, exactly, below 2^53), so they come out the same however the warps
// are shared.
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
