// Sorted COO to CSR, kernel: the same conversion when every array is cut into chunks, each its
// own allocation, and nothing is ever glued back together. Row boundary r is the number of
// entries whose row is below r; in a row-sorted input that count splits over the chunks, so
// thread r adds up one lower-bound search per chunk (an empty chunk adds 0, a row that spans
// several chunks gets its share from each). Columns and values do not move relative to each
// other: the copies are the overlaps of the input's chunk ranges with the output's.
// Sortedness and ids are checked on the device first, across chunk boundaries too.
//
// Build and run:  make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel
//                 build/121_chunked_coo_to_csr_kernel --scale 20
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "row_search.cuh"

// Row-sorted COO in chunks: chunk i is (rows[i], cols[i], values[i]), three separate arrays of
// one length. Read one after another, the chunks are the logical entry array; the position of an
// entry in that array is its global index. Any chunk may be empty.
struct HostCooChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<std::vector<int>> rows, cols;
    std::vector<std::vector<float>> values;
    int num_chunks() const { return static_cast<int>(rows.size()); }
};

// CSR with one row_offsets array (global indices) and chunked columns and values.
struct HostCsrChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<int> row_offsets;
    std::vector<std::vector<int>> col_idx;
    std::vector<std::vector<float>> values;
};

// The lengths of the chunks; a chunk whose three arrays disagree is a caller's bug.
inline std::vector<int> input_chunk_lengths(const HostCooChunks& a) {
    if (a.cols.size() != a.rows.size() || a.values.size() != a.rows.size())
        throw std::invalid_argument("the chunk lists of rows, columns and values differ in number");
    std::vector<int> lengths;
    for (int i = 0; i < a.num_chunks(); ++i) {
        if (a.cols[i].size() != a.rows[i].size() || a.values[i].size() != a.rows[i].size())
            throw std::invalid_argument("chunk " + std::to_string(i) +
                                        " has rows, columns and values of different lengths");
        lengths.push_back(static_cast<int>(a.rows[i].size()));
    }
    return lengths;
}

inline std::vector<int> output_chunk_lengths(const HostCsrChunks& c) {
    std::vector<int> lengths;
    for (const auto& chunk : c.col_idx) lengths.push_back(static_cast<int>(chunk.size()));
    return lengths;
}

// Where each chunk starts in the logical array, plus the total at the end: chunk i covers the
// global range [bounds[i], bounds[i + 1]). Global indices are ints, as in the kernels.
inline std::vector<int> chunk_bounds(const std::vector<int>& lengths) {
    std::vector<int> bounds(lengths.size() + 1, 0);
    long long total = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        if (lengths[i] < 0) throw std::invalid_argument("a chunk length is negative");
        total += lengths[i];
        if (total > INT_MAX) throw std::invalid_argument("more entries than an int can index");
        bounds[i + 1] = static_cast<int>(total);
    }
    return bounds;
}

// Cuts a COO into chunks of the given lengths (they must add up to its entry count).
inline HostCooChunks split_into_chunks(const HostCoo& a, const std::vector<int>& lengths) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    if (static_cast<size_t>(bounds.back()) != a.nnz())
        throw std::invalid_argument("the chunk lengths add up to " + std::to_string(bounds.back()) +
                                    ", not to the " + std::to_string(a.nnz()) + " entries");
    HostCooChunks c;
    c.num_rows = a.num_rows;
    c.num_cols = a.num_cols;
    for (size_t i = 0; i < lengths.size(); ++i) {
        c.rows.emplace_back(a.rows.begin() + bounds[i], a.rows.begin() + bounds[i + 1]);
        c.cols.emplace_back(a.cols.begin() + bounds[i], a.cols.begin() + bounds[i + 1]);
        c.values.emplace_back(a.values.begin() + bounds[i], a.values.begin() + bounds[i + 1]);
    }
    return c;
}

// Gluing the chunks together is what the conversion avoids; the baseline and the checks may.
inline HostCoo joined_coo(const HostCooChunks& c) {
    HostCoo a;
    a.num_rows = c.num_rows;
    a.num_cols = c.num_cols;
    for (int i = 0; i < c.num_chunks(); ++i) {
        a.rows.insert(a.rows.end(), c.rows[i].begin(), c.rows[i].end());
        a.cols.insert(a.cols.end(), c.cols[i].begin(), c.cols[i].end());
        a.values.insert(a.values.end(), c.values[i].begin(), c.values[i].end());
    }
    return a;
}

inline HostCsr joined_csr(const HostCsrChunks& c) {
    HostCsr a;
    a.num_rows = c.num_rows;
    a.num_cols = c.num_cols;
    a.row_offsets = c.row_offsets;
    for (size_t j = 0; j < c.col_idx.size(); ++j) {
        a.col_idx.insert(a.col_idx.end(), c.col_idx[j].begin(), c.col_idx[j].end());
        a.values.insert(a.values.end(), c.values[j].begin(), c.values[j].end());
    }
    return a;
}

// Output chunks with every byte 0xFF (ints read -1, floats are NaN): a slot that the conversion
// forgot, or wrote on a refused input, cannot pass for a real offset, column or value.
inline HostCsrChunks poisoned_csr_chunks(int num_rows, int num_cols,
                                         const std::vector<int>& lengths) {
    HostCsrChunks c;
    c.num_rows = num_rows;
    c.num_cols = num_cols;
    c.row_offsets.assign(static_cast<size_t>(num_rows) + 1, -1);
    for (int n : lengths) {
        c.col_idx.emplace_back(n, -1);
        std::vector<float> v(n);
        std::memset(v.data(), 0xFF, v.size() * sizeof(float));
        c.values.push_back(std::move(v));
    }
    return c;
}

template <class T>
bool every_byte_is_poison(const std::vector<T>& a) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(a.data());
    return std::all_of(bytes, bytes + a.size() * sizeof(T),
                       [](unsigned char b) { return b == 0xFF; });
}

inline bool untouched_since_poisoned(const HostCsrChunks& c) {
    bool untouched = every_byte_is_poison(c.row_offsets);
    for (size_t j = 0; j < c.col_idx.size(); ++j)
        untouched = untouched && every_byte_is_poison(c.col_idx[j]) &&
                    every_byte_is_poison(c.values[j]);
    return untouched;
}

// The CPU baseline: glue the chunks into one sorted COO and convert it in one piece. Row r
// starts at the first entry whose row is not below r (std::lower_bound); columns and values are
// the COO's, in the same order.
inline HostCsr chunked_coo_to_csr_cpu_baseline(const HostCooChunks& chunks) {
    const HostCoo all = joined_coo(chunks);
    HostCsr c;
    c.num_rows = all.num_rows;
    c.num_cols = all.num_cols;
    c.row_offsets.resize(static_cast<size_t>(all.num_rows) + 1);
    for (int r = 0; r <= all.num_rows; ++r) {
        const auto first_not_below = std::lower_bound(all.rows.begin(), all.rows.end(), r);
        c.row_offsets[r] = static_cast<int>(first_not_below - all.rows.begin());
    }
    c.col_idx = all.cols;
    c.values = all.values;
    return c;
}

// The validation's baseline: a plain walk over the glued entries, stopping at the first entry
// whose row or column is out of range or whose row is below the one before it. nnz if none.
inline int first_bad_joined_entry_cpu(const HostCoo& a) {
    for (size_t k = 0; k < a.nnz(); ++k) {
        const bool row_out = a.rows[k] < 0 || a.rows[k] >= a.num_rows;
        const bool col_out = a.cols[k] < 0 || a.cols[k] >= a.num_cols;
        if (row_out || col_out || (k > 0 && a.rows[k - 1] > a.rows[k])) return static_cast<int>(k);
    }
    return static_cast<int>(a.nnz());
}

// One chunk of sorted row ids, as the offsets kernel sees it. The kernel gets an array of these
// in device memory, so one launch covers any number of chunks.
struct RowChunk {
    const int* rows;
    int length;
};

// Thread r's work: row r starts after every entry of a smaller row, wherever those entries lie.
// In each chunk they are a prefix, of length lower_bound_index; the prefixes add up to the
// global position. An empty chunk's search reads nothing and gives 0.
__host__ __device__ inline void chunked_row_offset_thread(int r, const RowChunk* chunks,
                                                          int num_chunks, int* row_offsets) {
    int entries_before = 0;
    for (int i = 0; i < num_chunks; ++i)
        entries_before += lower_bound_index(chunks[i].rows, chunks[i].length, r);
    row_offsets[r] = entries_before;
}

// Thread k of one chunk's validation: entry k of this chunk, global index chunk_start + k. Its
// predecessor is the entry before it in this chunk, or, for the chunk's first entry, the last
// entry of the nearest earlier non-empty chunk (earlier_last_row; null when there is none).
// Threads of every chunk race only to lower one shared minimum, so the smallest bad global
// index wins whatever the order.
__host__ __device__ inline void validate_chunk_entry_thread(int k, const int* rows, const int* cols,
                                                            int chunk_start,
                                                            const int* earlier_last_row,
                                                            int num_rows, int num_cols,
                                                            int* first_bad) {
    const int row = rows[k];
    const int col = cols[k];
    const int* previous_row = k > 0 ? &rows[k - 1] : earlier_last_row;
    const bool row_out = row < 0 || row >= num_rows;
    const bool col_out = col < 0 || col >= num_cols;
    const bool descends = previous_row != nullptr && *previous_row > row;
    if (row_out || col_out || descends) atomic_min_shim(first_bad, chunk_start + k);
}

__global__ void chunked_row_offsets_kernel(int num_rows, const RowChunk* chunks, int num_chunks,
                                           int* row_offsets) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r <= num_rows) chunked_row_offset_thread(r, chunks, num_chunks, row_offsets);
}

__global__ void validate_chunk_kernel(int length, const int* rows, const int* cols,
                                      int chunk_start, const int* earlier_last_row, int num_rows,
                                      int num_cols, int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < length)
        validate_chunk_entry_thread(k, rows, cols, chunk_start, earlier_last_row, num_rows,
                                    num_cols, first_bad);
}

// One copy of columns and values: the overlap of input chunk in_chunk with output chunk
// out_chunk, `count` entries starting at global index global_start.
struct ChunkCopy {
    int in_chunk, in_position;
    int out_chunk, out_position;
    int global_start, count;
};

// The non-empty overlaps, found by walking both lists of ranges at once, the way a merge does:
// after each step the range that ends first cannot meet anything further on. Each step moves
// past at least one chunk, so there are at most K_in + K_out - 1 copies.
inline std::vector<ChunkCopy> chunk_copies(const std::vector<int>& in_lengths,
                                           const std::vector<int>& out_lengths) {
    const std::vector<int> in = chunk_bounds(in_lengths), out = chunk_bounds(out_lengths);
    if (in.back() != out.back())
        throw std::invalid_argument("the output chunks hold " + std::to_string(out.back()) +
                                    " entries, the input has " + std::to_string(in.back()));
    std::vector<ChunkCopy> copies;
    size_t i = 0, j = 0;
    while (i < in_lengths.size() && j < out_lengths.size()) {
        const int start = std::max(in[i], out[j]);
        const int end = std::min(in[i + 1], out[j + 1]);
        if (start < end)
            copies.push_back({static_cast<int>(i), start - in[i], static_cast<int>(j),
                              start - out[j], start, end - start});
        const int in_end = in[i + 1], out_end = out[j + 1];
        if (in_end <= out_end) ++i;
        if (out_end <= in_end) ++j;
    }
    return copies;
}

// Global index g (one that exists) as a chunk and a position in it. The last chunk that starts
// at or before g holds it: any empty chunks starting at g come before it.
struct ChunkPosition {
    int chunk, position;
};

inline ChunkPosition locate_chunk_entry(const std::vector<int>& lengths, int g) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    const auto first_start_after = std::upper_bound(bounds.begin(), bounds.end() - 1, g);
    const int chunk = static_cast<int>(first_start_after - bounds.begin()) - 1;
    return {chunk, g - bounds[chunk]};
}

// The outcome of the check before a conversion: the first offending global index (nnz when
// there is none) and, on refusal, the sentence that says what is wrong with it.
struct ChunkedVerdict {
    int first_bad = 0;
    std::string refusal;
    bool accepted() const { return refusal.empty(); }
};

// The reason for refusing entry g; read_row and read_col fetch one id from a chunk position, on
// the host or from the device.
template <class ReadRow, class ReadCol>
std::string describe_bad_chunk_entry(int g, const std::vector<int>& lengths, int num_rows,
                                     int num_cols, ReadRow&& read_row, ReadCol&& read_col) {
    const ChunkPosition at = locate_chunk_entry(lengths, g);
    const int row = read_row(at), col = read_col(at);
    const std::string where = "entry " + std::to_string(g) + " (input chunk " +
                              std::to_string(at.chunk) + ", position " +
                              std::to_string(at.position) + "): ";
    if (row < 0 || row >= num_rows)
        return where + "row " + std::to_string(row) + " is not in [0, " +
               std::to_string(num_rows) + ")";
    if (col < 0 || col >= num_cols)
        return where + "column " + std::to_string(col) + " is not in [0, " +
               std::to_string(num_cols) + ")";
    const ChunkPosition before = locate_chunk_entry(lengths, g - 1);
    const std::string in_other_chunk =
        before.chunk == at.chunk ? ""
                                 : ", the last row of input chunk " + std::to_string(before.chunk);
    return where + "row " + std::to_string(row) + " comes after row " +
           std::to_string(read_row(before)) + in_other_chunk + " (rows must be non-decreasing)";
}

// ---- emulation: the same bodies, run by the host emulator over host chunks ----

inline std::vector<RowChunk> host_row_chunks(const HostCooChunks& in) {
    std::vector<RowChunk> chunks;
    for (const auto& rows : in.rows) chunks.push_back({rows.data(), static_cast<int>(rows.size())});
    return chunks;
}

inline ChunkedVerdict validate_chunks_emulated(const HostCooChunks& in, const ThreadOrder& order) {
    const std::vector<int> lengths = input_chunk_lengths(in);
    const std::vector<int> bounds = chunk_bounds(lengths);
    ChunkedVerdict verdict;
    verdict.first_bad = bounds.back();
    const int* earlier_last_row = nullptr;
    for (int i = 0; i < in.num_chunks(); ++i) {
        if (lengths[i] == 0) continue;
        emulate_threads(lengths[i], order, [&](int k) {
            validate_chunk_entry_thread(k, in.rows[i].data(), in.cols[i].data(), bounds[i],
                                        earlier_last_row, in.num_rows, in.num_cols,
                                        &verdict.first_bad);
        });
        earlier_last_row = &in.rows[i].back();
    }
    if (verdict.first_bad < bounds.back())
        verdict.refusal = describe_bad_chunk_entry(
            verdict.first_bad, lengths, in.num_rows, in.num_cols,
            [&](ChunkPosition p) { return in.rows[p.chunk][p.position]; },
            [&](ChunkPosition p) { return in.cols[p.chunk][p.position]; });
    return verdict;
}

// Offsets by the per-thread body; the copies, cudaMemcpyAsync calls on the GPU, are host copies.
inline void convert_chunks_emulated(const HostCooChunks& in, HostCsrChunks& out,
                                    const ThreadOrder& order) {
    const std::vector<RowChunk> chunks = host_row_chunks(in);
    emulate_threads(static_cast<size_t>(in.num_rows) + 1, order, [&](int r) {
        chunked_row_offset_thread(r, chunks.data(), in.num_chunks(), out.row_offsets.data());
    });
    for (const ChunkCopy& c : chunk_copies(input_chunk_lengths(in), output_chunk_lengths(out))) {
        std::copy_n(in.cols[c.in_chunk].begin() + c.in_position, c.count,
                    out.col_idx[c.out_chunk].begin() + c.out_position);
        std::copy_n(in.values[c.in_chunk].begin() + c.in_position, c.count,
                    out.values[c.out_chunk].begin() + c.out_position);
    }
}

// A conversion's outcome: the verdict, and the output chunks, which start poisoned and stay so
// when the input is refused.
struct ChunkedConversion {
    ChunkedVerdict verdict;
    HostCsrChunks csr;
};

inline ChunkedConversion coo_chunks_to_csr_emulated(const HostCooChunks& in,
                                                    const std::vector<int>& out_lengths,
                                                    const ThreadOrder& order) {
    chunk_copies(input_chunk_lengths(in), out_lengths);  // refuses a layout of the wrong size
    ChunkedConversion result;
    result.csr = poisoned_csr_chunks(in.num_rows, in.num_cols, out_lengths);
    result.verdict = validate_chunks_emulated(in, order);
    if (result.verdict.accepted()) convert_chunks_emulated(in, result.csr, order);
    return result;
}

// ---- the GPU: one device allocation per chunk ----

struct DeviceCooChunks {
    explicit DeviceCooChunks(const HostCooChunks& h)
        : num_rows(h.num_rows), num_cols(h.num_cols), lengths(input_chunk_lengths(h)),
          bounds(chunk_bounds(lengths)), entry_count(std::vector<int>{bounds.back()}) {
        std::vector<RowChunk> descriptors;
        for (int i = 0; i < h.num_chunks(); ++i) {
            rows.emplace_back(h.rows[i]);
            cols.emplace_back(h.cols[i]);
            values.emplace_back(h.values[i]);
            descriptors.push_back({rows.back().data(), lengths[i]});
        }
        row_chunks = DeviceBuffer<RowChunk>(descriptors);
    }
    int nnz() const { return bounds.back(); }
    int num_chunks() const { return static_cast<int>(lengths.size()); }

    int num_rows, num_cols;
    std::vector<int> lengths, bounds;
    std::vector<DeviceBuffer<int>> rows, cols;
    std::vector<DeviceBuffer<float>> values;
    DeviceBuffer<RowChunk> row_chunks;
    DeviceBuffer<int> entry_count;  // nnz, kept on the device to reset the validation's minimum
};

struct DeviceCsrChunks {
    DeviceCsrChunks(int rows, int cols, const std::vector<int>& chunk_lengths)
        : num_rows(rows), num_cols(cols), lengths(chunk_lengths),
          row_offsets(static_cast<size_t>(rows) + 1) {
        for (int n : lengths) {
            col_idx.emplace_back(n);
            values.emplace_back(n);
        }
    }
    void poison() {
        row_offsets.fill_bytes(0xFF);
        for (auto& c : col_idx) c.fill_bytes(0xFF);
        for (auto& v : values) v.fill_bytes(0xFF);
    }
    HostCsrChunks download() const {
        HostCsrChunks c;
        c.num_rows = num_rows;
        c.num_cols = num_cols;
        c.row_offsets = row_offsets.download();
        for (size_t j = 0; j < lengths.size(); ++j) {
            c.col_idx.push_back(col_idx[j].download());
            c.values.push_back(values[j].download());
        }
        return c;
    }

    int num_rows, num_cols;
    std::vector<int> lengths;
    DeviceBuffer<int> row_offsets;
    std::vector<DeviceBuffer<int>> col_idx;
    std::vector<DeviceBuffer<float>> values;
};

// One launch per non-empty chunk, all lowering the same minimum. The predecessor of a chunk's
// first entry is handed over as a device address, so the host never reads chunk data and
// nothing waits between the launches.
inline void launch_chunk_validation(const DeviceCooChunks& in, DeviceBuffer<int>& first_bad) {
    CUDA_CHECK(cudaMemcpyAsync(first_bad.data(), in.entry_count.data(), sizeof(int),
                               cudaMemcpyDeviceToDevice));
    const int* earlier_last_row = nullptr;
    for (int i = 0; i < in.num_chunks(); ++i) {
        const int length = in.lengths[i];
        if (length == 0) continue;
        validate_chunk_kernel<<<blocks_for(length), kThreadsPerBlock>>>(
            length, in.rows[i].data(), in.cols[i].data(), in.bounds[i], earlier_last_row,
            in.num_rows, in.num_cols, first_bad.data());
        CUDA_CHECK_LAUNCH();
        earlier_last_row = in.rows[i].data() + (length - 1);
    }
}

inline int read_chunk_id_from_device(const int* address) {
    int value = 0;
    CUDA_CHECK(cudaMemcpy(&value, address, sizeof(int), cudaMemcpyDeviceToHost));
    return value;
}

inline ChunkedVerdict validate_chunks_gpu(const DeviceCooChunks& in) {
    DeviceBuffer<int> first_bad(1);
    launch_chunk_validation(in, first_bad);
    ChunkedVerdict verdict;
    verdict.first_bad = first_bad.download()[0];
    if (verdict.first_bad < in.nnz())
        verdict.refusal = describe_bad_chunk_entry(
            verdict.first_bad, in.lengths, in.num_rows, in.num_cols,
            [&](ChunkPosition p) {
                return read_chunk_id_from_device(in.rows[p.chunk].data() + p.position);
            },
            [&](ChunkPosition p) {
                return read_chunk_id_from_device(in.cols[p.chunk].data() + p.position);
            });
    return verdict;
}

// The conversion proper, for an input that passed validation: one launch for all num_rows + 1
// boundaries (never 0 threads, since there is always boundary 0), then one device-to-device copy
// of columns and one of values per overlap.
inline void launch_chunked_conversion(const DeviceCooChunks& in,
                                      const std::vector<ChunkCopy>& copies, DeviceCsrChunks& out) {
    chunked_row_offsets_kernel<<<blocks_for(static_cast<size_t>(in.num_rows) + 1),
                                 kThreadsPerBlock>>>(in.num_rows, in.row_chunks.data(),
                                                     in.num_chunks(), out.row_offsets.data());
    CUDA_CHECK_LAUNCH();
    for (const ChunkCopy& c : copies) {
        CUDA_CHECK(cudaMemcpyAsync(out.col_idx[c.out_chunk].data() + c.out_position,
                                   in.cols[c.in_chunk].data() + c.in_position,
                                   c.count * sizeof(int), cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(out.values[c.out_chunk].data() + c.out_position,
                                   in.values[c.in_chunk].data() + c.in_position,
                                   c.count * sizeof(float), cudaMemcpyDeviceToDevice));
    }
}

inline ChunkedConversion coo_chunks_to_csr_gpu(const HostCooChunks& in,
                                               const std::vector<int>& out_lengths) {
    const std::vector<ChunkCopy> copies = chunk_copies(input_chunk_lengths(in), out_lengths);
    DeviceCooChunks d_in(in);
    DeviceCsrChunks d_out(in.num_rows, in.num_cols, out_lengths);
    d_out.poison();
    ChunkedConversion result;
    result.verdict = validate_chunks_gpu(d_in);
    if (result.verdict.accepted()) launch_chunked_conversion(d_in, copies, d_out);
    result.csr = d_out.download();
    return result;
}

// How many entries of `row` each input chunk holds: the difference of two lower bounds, the
// same searches that the offsets kernel makes.
inline std::vector<int> row_share_by_chunk(const HostCooChunks& in, int row) {
    std::vector<int> share;
    for (const auto& rows : in.rows) {
        const int n = static_cast<int>(rows.size());
        share.push_back(lower_bound_index(rows.data(), n, row + 1) -
                        lower_bound_index(rows.data(), n, row));
    }
    return share;
}

// `num_chunks` lengths adding up to `total`, cut at uniformly random places; where two cuts
// fall together a chunk is empty.
inline std::vector<int> random_chunk_lengths(int total, int num_chunks, SplitMix64& rng) {
    if (num_chunks < 1) throw std::invalid_argument("at least one chunk is needed");
    std::vector<int> cuts(num_chunks - 1);
    for (int& c : cuts) c = static_cast<int>(rng.below(static_cast<uint32_t>(total) + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(total);
    std::vector<int> lengths(num_chunks);
    int start = 0;
    for (int i = 0; i < num_chunks; ++i) {
        lengths[i] = cuts[i] - start;
        start = cuts[i];
    }
    return lengths;
}

// The small example: 8 rows, 5 columns, 10 entries. Rows 0, 2, 5 and 7 are empty (first,
// middle, last); (3, 2) is stored twice, with values 3 and 5. The input chunks cut row 3 three
// ways, with an empty chunk inside it; the output chunks are cut elsewhere.
inline HostCoo chunked_example_coo() {
    HostCoo a;
    a.num_rows = 8;
    a.num_cols = 5;
    a.rows = {1, 1, 3, 3, 3, 3, 3, 4, 6, 6};
    a.cols = {0, 3, 2, 4, 2, 1, 0, 4, 1, 3};
    a.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    return a;
}
const std::vector<int> kExampleInputLengths = {3, 2, 0, 2, 3};
const std::vector<int> kExampleOutputLengths = {4, 2, 4};
constexpr int kExampleSpanningRow = 3;

// The reference card's example: rows 0 0 1 2 2 give offsets 0 2 3 5 (columns and values are
// this suite's own choice). Cut as [0 | 0 1 2 | 2], rows 0 and 2 both straddle a cut.
inline HostCoo chunked_card_example_coo() {
    HostCoo a;
    a.num_rows = a.num_cols = 3;
    a.rows = {0, 0, 1, 2, 2};
    a.cols = {0, 2, 1, 0, 2};
    a.values = {1, 2, 3, 4, 5};
    return a;
}
const std::vector<int> kCardRowOffsets = {0, 2, 3, 5};
const std::vector<int> kCardInputLengths = {1, 3, 1};

// --scale and --matrix inputs: 7 input chunks of random lengths, the third forced empty, and 5
// output chunks cut independently; a fixed seed, so every run cuts the same way.
constexpr uint64_t kChunkingSeed = 121;
struct ChunkLayout {
    std::vector<int> input, output;
};

inline ChunkLayout chunked_program_layout(int nnz) {
    SplitMix64 rng(kChunkingSeed);
    ChunkLayout layout;
    layout.input = random_chunk_lengths(nnz, 6, rng);
    layout.input.insert(layout.input.begin() + 2, 0);
    layout.output = random_chunk_lengths(nnz, 5, rng);
    return layout;
}

#ifndef LESSON_WITHOUT_MAIN
namespace {

template <class T>
std::string bracketed(const std::vector<T>& a) {
    std::string s = "[ ";
    for (const T& x : a) {
        char number[32];
        if constexpr (std::is_floating_point_v<T>)
            std::snprintf(number, sizeof number, "%g ", static_cast<double>(x));
        else
            std::snprintf(number, sizeof number, "%lld ", static_cast<long long>(x));
        s += number;
    }
    return s + "]";
}

std::string range_text(int start, int end) {
    return "[" + std::to_string(start) + "," + std::to_string(end) + ")";
}

void print_input_chunks(const HostCooChunks& in) {
    const std::vector<int> bounds = chunk_bounds(input_chunk_lengths(in));
    std::printf("input: %d rows x %d columns, %d entries in %d chunks, each its own allocation:\n",
                in.num_rows, in.num_cols, bounds.back(), in.num_chunks());
    for (int i = 0; i < in.num_chunks(); ++i) {
        std::printf("  chunk %d, entries %-7s", i, range_text(bounds[i], bounds[i + 1]).c_str());
        if (in.rows[i].empty())
            std::printf(" (empty)\n");
        else
            std::printf(" rows %s  cols %s  values %s\n", bracketed(in.rows[i]).c_str(),
                        bracketed(in.cols[i]).c_str(), bracketed(in.values[i]).c_str());
    }
}

void print_output_chunks(const HostCsrChunks& out) {
    const std::vector<int> bounds = chunk_bounds(output_chunk_lengths(out));
    for (size_t j = 0; j < out.col_idx.size(); ++j)
        std::printf("  output chunk %zu, entries %-7s col_idx %s  values %s\n", j,
                    range_text(bounds[j], bounds[j + 1]).c_str(), bracketed(out.col_idx[j]).c_str(),
                    bracketed(out.values[j]).c_str());
}

// Each boundary as the sum that its thread computes, and each row's entries by chunk.
void print_offset_sums(const HostCooChunks& in, const std::vector<int>& offsets) {
    std::printf("row_offsets[r] = sum over the chunks of lower_bound(chunk rows, r):\n");
    for (int r = 0; r <= in.num_rows; ++r) {
        std::string terms;
        for (const auto& rows : in.rows) {
            const int bound = lower_bound_index(rows.data(), static_cast<int>(rows.size()), r);
            terms += (terms.empty() ? "" : " + ") + std::to_string(bound);
        }
        std::printf("  row_offsets[%d] = %s = %d\n", r, terms.c_str(), offsets[r]);
    }
    std::printf("each row's entries, by the input chunk that holds them:\n");
    for (int r = 0; r < in.num_rows; ++r) {
        const std::vector<int> share = row_share_by_chunk(in, r);
        std::string parts;
        for (size_t i = 0; i < share.size(); ++i)
            if (share[i] > 0)
                parts += (parts.empty() ? "" : ", ") + std::to_string(share[i]) + " from chunk " +
                         std::to_string(i);
        const int length = offsets[r + 1] - offsets[r];
        if (parts.empty())
            std::printf("  row %d: empty\n", r);
        else
            std::printf("  row %d: %d entr%s: %s\n", r, length, length == 1 ? "y" : "ies",
                        parts.c_str());
    }
}

void print_copies(const std::vector<ChunkCopy>& copies) {
    std::printf("copies of columns and values (overlaps of input and output chunk ranges):\n");
    for (size_t n = 0; n < copies.size(); ++n) {
        const ChunkCopy& c = copies[n];
        std::printf("  copy %zu: entries %-7s input chunk %d %-7s -> output chunk %d %s\n", n,
                    range_text(c.global_start, c.global_start + c.count).c_str(), c.in_chunk,
                    range_text(c.in_position, c.in_position + c.count).c_str(), c.out_chunk,
                    range_text(c.out_position, c.out_position + c.count).c_str());
    }
}

// The places where a layout cuts the entry array, as global indices; an empty chunk adds no
// new place.
std::vector<int> interior_cuts(const std::vector<int>& lengths) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    if (bounds.size() < 2) return {};
    std::vector<int> cuts(bounds.begin() + 1, bounds.end() - 1);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

ChunkedConversion convert(const KernelProgram& p, const HostCooChunks& in,
                          const std::vector<int>& out_lengths) {
    return p.on_gpu() ? coo_chunks_to_csr_gpu(in, out_lengths)
                      : coo_chunks_to_csr_emulated(in, out_lengths, p.shuffled_order());
}

// The claims that every accepted conversion makes, whatever its input.
void claim_conversion(SelfCheck& check, const std::string& what, const HostCooChunks& in,
                      const ChunkedConversion& got) {
    const HostCsr expected = chunked_coo_to_csr_cpu_baseline(in);
    const HostCsr joined = joined_csr(got.csr);
    check.claim(what + ": accepted by the validation", got.verdict.accepted());
    check.claim(what + ": row_offsets equal the one-piece baseline's exactly",
                got.csr.row_offsets == expected.row_offsets);
    check.claim(what + ": the output chunks, read one after another, hold the input's columns "
                       "and values in their order",
                joined.col_idx == expected.col_idx && joined.values == expected.values);
}

void print_timing(const char* label, double ms, double bytes, double copy_gbs) {
    std::printf("  %-44s %8.3f ms  %6.0f GB/s (%.0f%% of copy)\n", label, ms, gb_per_s(bytes, ms),
                100 * gb_per_s(bytes, ms) / copy_gbs);
}

// cuSPARSE's coo2csr computes the offsets of the glued rows; the two copies that complete a
// conversion are added to its time so that both sides do the same job.
void compare_on_gpu(const KernelProgram& p, SelfCheck& check, const HostCoo& sorted,
                    const HostCooChunks& in, const ChunkLayout& layout, const HostCsr& expected) {
    const int nnz = static_cast<int>(sorted.nnz());
    if (nnz == 0) {
        check.skip("cuSPARSE's coo2csr gives the same row_offsets", "no entries");
        return;
    }
    const HostCooChunks whole = split_into_chunks(sorted, {nnz});  // the glued copy, for comparison
    DeviceCooChunks d_whole(whole);
    DeviceCsrChunks whole_out(sorted.num_rows, sorted.num_cols, {nnz});
    CusparseHandle handle;
    DeviceBuffer<int> library_offsets(static_cast<size_t>(sorted.num_rows) + 1);
    library_offsets.fill_bytes(0xFF);
    auto run_library = [&] {
        CUSPARSE_CHECK(cusparseXcoo2csr(handle, d_whole.rows[0].data(), nnz, sorted.num_rows,
                                        library_offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
        CUDA_CHECK(cudaMemcpyAsync(whole_out.col_idx[0].data(), d_whole.cols[0].data(),
                                   nnz * sizeof(int), cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(whole_out.values[0].data(), d_whole.values[0].data(),
                                   nnz * sizeof(float), cudaMemcpyDeviceToDevice));
    };
    run_library();
    check.claim("cuSPARSE's coo2csr gives the same row_offsets",
                library_offsets.download() == expected.row_offsets);
    if (p.options.scale == 0) return;

    DeviceCooChunks d_in(in);
    DeviceCsrChunks d_out(sorted.num_rows, sorted.num_cols, layout.output);
    const std::vector<ChunkCopy> copies = chunk_copies(layout.input, layout.output);
    const std::vector<ChunkCopy> whole_copies = chunk_copies({nnz}, {nnz});
    DeviceBuffer<int> first_bad(1);
    const double copy_gbs = measure_copy_gbs();
    const double validate_ms = median_gpu_ms([&] { launch_chunk_validation(d_in, first_bad); });
    const double chunked_ms =
        median_gpu_ms([&] { launch_chunked_conversion(d_in, copies, d_out); });
    const double whole_ms =
        median_gpu_ms([&] { launch_chunked_conversion(d_whole, whole_copies, whole_out); });
    const double library_ms = median_gpu_ms(run_library);
    // Bytes that a conversion must move: columns and values read and written, offsets written.
    // The searches' reads of the row ids are not counted; the validation reads rows and columns.
    const double bytes = 16.0 * nnz + 4.0 * (sorted.num_rows + 1);
    std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n",
                p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs);
    print_timing("validation, one launch per chunk", validate_ms, 8.0 * nnz, copy_gbs);
    print_timing("chunked: offsets kernel + copies", chunked_ms, bytes, copy_gbs);
    print_timing("one piece: the same kernel on 1 chunk + 2 copies", whole_ms, bytes, copy_gbs);
    print_timing("cuSPARSE coo2csr + 2 copies", library_ms, bytes, copy_gbs);
    std::printf("  ratio chunked / one piece: %.2f; cuSPARSE / chunked: %.2f\n",
                chunked_ms / whole_ms, library_ms / chunked_ms);
}

void run_examples(const KernelProgram& p, SelfCheck& check) {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    print_input_chunks(in);
    std::printf("output: %zu chunks of lengths %s, allocated by the caller\n\n",
                kExampleOutputLengths.size(), bracketed(kExampleOutputLengths).c_str());

    const ChunkedConversion got = convert(p, in, kExampleOutputLengths);
    const std::vector<ChunkCopy> copies = chunk_copies(kExampleInputLengths, kExampleOutputLengths);
    print_array("row_offsets", got.csr.row_offsets);
    print_offset_sums(in, got.csr.row_offsets);
    std::printf("\n");
    print_copies(copies);
    std::printf("output chunks (%s):\n", p.on_gpu() ? "GPU" : "emulated");
    print_output_chunks(got.csr);
    std::printf("\n");

    claim_conversion(check, "the example", in, got);
    const std::vector<int> share = row_share_by_chunk(in, kExampleSpanningRow);
    std::vector<int> holders;
    for (size_t i = 0; i < share.size(); ++i)
        if (share[i] > 0) holders.push_back(static_cast<int>(i));
    bool empty_chunk_inside = false;
    if (!holders.empty())
        for (int i = holders.front(); i <= holders.back(); ++i)
            empty_chunk_inside = empty_chunk_inside || in.rows[i].empty();
    check.claim("row 3's entries lie in 3 input chunks, with an empty chunk among them",
                holders.size() == 3 && empty_chunk_inside);
    const std::vector<int> in_cuts = interior_cuts(kExampleInputLengths),
                           out_cuts = interior_cuts(kExampleOutputLengths);
    check.claim("the output chunks are cut where no input chunk is cut",
                std::none_of(out_cuts.begin(), out_cuts.end(), [&](int cut) {
                    return std::count(in_cuts.begin(), in_cuts.end(), cut) > 0;
                }));
    const HostCsr joined = joined_csr(got.csr);
    int duplicates = 0;
    for (int k = joined.row_offsets[3]; k < joined.row_offsets[4]; ++k)
        duplicates += joined.col_idx[k] == 2;
    check.claim("the duplicate (3, 2) is kept twice, not merged", duplicates == 2);
    int copied = 0;
    for (const ChunkCopy& c : copies) copied += c.count;
    const size_t copy_bound = kExampleInputLengths.size() + kExampleOutputLengths.size() - 1;
    check.claim("the " + std::to_string(copies.size()) + " copies cover the " +
                    std::to_string(joined.nnz()) + " entries once, and number at most K_in + "
                    "K_out - 1 = " + std::to_string(copy_bound),
                static_cast<size_t>(copied) == joined.nnz() && copies.size() <= copy_bound);

    const HostCooChunks card = split_into_chunks(chunked_card_example_coo(), kCardInputLengths);
    const ChunkedConversion card_got = convert(p, card, {2, 3});
    std::printf("\nthe reference card's example, rows cut as [ 0 | 0 1 2 | 2 ], output in 2 "
                "chunks:\n");
    print_array("row_offsets", card_got.csr.row_offsets);
    check.claim("the card's example gives row_offsets 0 2 3 5, as the card does",
                card_got.verdict.accepted() && card_got.csr.row_offsets == kCardRowOffsets);
    if (p.on_gpu())
        compare_on_gpu(p, check, chunked_example_coo(), in,
                       {kExampleInputLengths, kExampleOutputLengths},
                       chunked_coo_to_csr_cpu_baseline(in));
    else
        check.skip("cuSPARSE's coo2csr gives the same row_offsets");
}

// A refusal demo: the input is rejected with the first offending global index (the one a plain
// walk over the glued entries finds) and the output chunks keep their poison.
void claim_refusal(const KernelProgram& p, SelfCheck& check, const std::string& what,
                   const HostCooChunks& in, const std::vector<int>& out_lengths) {
    const ChunkedConversion got = convert(p, in, out_lengths);
    print_input_chunks(in);
    const int expected = first_bad_joined_entry_cpu(joined_coo(in));
    check.claim(what + ": refused with: " + got.verdict.refusal,
                !got.verdict.accepted() && got.verdict.first_bad == expected);
    check.claim(what + ": the poisoned outputs are untouched", untouched_since_poisoned(got.csr));
}

void run_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("\nbad inputs, refused before anything is written:\n");
    HostCooChunks unsorted;
    unsorted.num_rows = 5;
    unsorted.num_cols = 4;
    unsorted.rows = {{0, 3}, {}, {2, 4}};
    unsorted.cols = {{0, 1}, {}, {2, 3}};
    unsorted.values = {{1, 2}, {}, {3, 4}};
    claim_refusal(p, check, "rows out of order across a chunk boundary, an empty chunk between",
                  unsorted, {3, 1});

    HostCooChunks out_of_range;
    out_of_range.num_rows = 3;
    out_of_range.num_cols = 4;
    out_of_range.rows = {{0, 1}, {1, 1, 2}};
    out_of_range.cols = {{0, 1}, {3, 9, 0}};
    out_of_range.values = {{1, 2}, {3, 4, 5}};
    claim_refusal(p, check, "a column id out of range", out_of_range, {1, 4});
}

void run_large(const KernelProgram& p, SelfCheck& check, const HostCoo& input) {
    const HostCoo sorted = sorted_by_row(input);
    const int nnz = static_cast<int>(sorted.nnz());
    const ChunkLayout layout = chunked_program_layout(nnz);
    const HostCooChunks in = split_into_chunks(sorted, layout.input);
    std::printf("row-sorted, cut into %zu input chunks of lengths %s\n", layout.input.size(),
                bracketed(layout.input).c_str());
    std::printf("output in %zu chunks of lengths %s\n", layout.output.size(),
                bracketed(layout.output).c_str());
    const std::vector<int> in_cuts = interior_cuts(layout.input);
    const std::vector<int> out_cuts = interior_cuts(layout.output);
    const long shared_cuts = std::count_if(out_cuts.begin(), out_cuts.end(), [&](int cut) {
        return std::count(in_cuts.begin(), in_cuts.end(), cut) > 0;
    });
    int rows_across_cuts = 0;
    for (int cut : in_cuts)
        rows_across_cuts += cut > 0 && cut < nnz && sorted.rows[cut - 1] == sorted.rows[cut];
    const std::vector<ChunkCopy> copies = chunk_copies(layout.input, layout.output);
    std::printf("%ld output cut(s) fall on an input cut; %d input cut(s) split a row; "
                "%zu copies\n\n", shared_cuts, rows_across_cuts, copies.size());

    ChunkedConversion got;
    const double ms = host_ms([&] { got = convert(p, in, layout.output); });
    claim_conversion(check, p.options.scale > 0 ? "R-MAT" : p.options.matrix, in, got);
    const size_t copy_bound = layout.input.size() + layout.output.size() - 1;
    check.claim("the copies number at most K_in + K_out - 1 = " + std::to_string(copy_bound),
                copies.size() <= copy_bound);
    if (!p.on_gpu()) {
        if (p.options.scale > 0)
            std::printf("time: %.1f ms on the host for validation and conversion (emulation: not a "
                        "GPU time)\n", ms);
        check.skip("cuSPARSE's coo2csr gives the same row_offsets");
        return;
    }
    compare_on_gpu(p, check, sorted, in, layout, chunked_coo_to_csr_cpu_baseline(in));
}

}  // namespace

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{132, 28, 900e6};

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv, "121 kernel: sorted COO -> CSR over chunked storage, never concatenated");
    SelfCheck check;
    if (p.options.book_example()) {
        run_examples(p, check);
        run_refusals(p, check);
        return check.finish();
    }
    const HostCoo input = chapter_input(p.options, kMemory);
    if (!p.options.matrix.empty()) check.end_with(result_line(input));
    run_large(p, check, input);
    return check.finish();
}
#endif
