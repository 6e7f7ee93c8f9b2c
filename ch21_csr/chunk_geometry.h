// The geometry of chunked storage, for 121: a COO whose three arrays are each cut into chunks,
// a CSR whose row_offsets are cut into chunks of their own and whose columns and weights are cut
// into chunks of other lengths, the arithmetic that relates a global index to a chunk and a
// position in it, the words of a refused chunked entry, and the same chunks where the kernels
// run. The kernels that work over chunks are 121's lesson. Any chunk may be empty.
#pragma once
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>
#include "../common/binary_search.h"
#include "../common/here.cuh"
#include "../common/random.h"
#include "../common/sparse_host.h"
#include "sorted_coo_contract.h"

// Row-sorted COO in chunks: chunk i is (rows[i], cols[i], weights[i]), three separate arrays of
// one length. Read one after another, the chunks are the logical entry array; the position of an
// entry in that array is its global index.
struct HostCooChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<std::vector<int>> rows, cols;
    std::vector<std::vector<float>> weights;
    int num_chunks() const { return static_cast<int>(rows.size()); }
};

// CSR in chunks: the num_rows + 1 row_offsets (global entry indices) cut in one place, the
// columns and weights in another. Read one after another, the offsets' chunks are the logical
// row_offsets array, and the columns' chunks the logical col_idx.
struct HostCsrChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<std::vector<int>> row_offsets;
    std::vector<std::vector<int>> col_idx;
    std::vector<std::vector<float>> weights;
};

// The lengths of the chunks; a chunk whose three arrays disagree is a caller's bug.
inline std::vector<int> input_chunk_lengths(const HostCooChunks& a) {
    if (a.cols.size() != a.rows.size() || a.weights.size() != a.rows.size())
        throw std::invalid_argument(
            "the chunk lists of rows, columns and weights differ in number");
    std::vector<int> lengths;
    for (int i = 0; i < a.num_chunks(); ++i) {
        if (a.cols[i].size() != a.rows[i].size() || a.weights[i].size() != a.rows[i].size())
            throw std::invalid_argument("chunk " + std::to_string(i) +
                                        " has rows, columns and weights of different lengths");
        lengths.push_back(static_cast<int>(a.rows[i].size()));
    }
    return lengths;
}

inline std::vector<int> output_chunk_lengths(const HostCsrChunks& c) {
    std::vector<int> lengths;
    for (const auto& chunk : c.col_idx) lengths.push_back(static_cast<int>(chunk.size()));
    return lengths;
}

inline std::vector<int> offset_chunk_lengths(const HostCsrChunks& c) {
    std::vector<int> lengths;
    for (const auto& chunk : c.row_offsets) lengths.push_back(static_cast<int>(chunk.size()));
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
        c.weights.emplace_back(a.values.begin() + bounds[i], a.values.begin() + bounds[i + 1]);
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
        a.values.insert(a.values.end(), c.weights[i].begin(), c.weights[i].end());
    }
    return a;
}

inline HostCsr joined_csr(const HostCsrChunks& c) {
    HostCsr a;
    a.num_rows = c.num_rows;
    a.num_cols = c.num_cols;
    for (const std::vector<int>& chunk : c.row_offsets)
        a.row_offsets.insert(a.row_offsets.end(), chunk.begin(), chunk.end());
    for (size_t j = 0; j < c.col_idx.size(); ++j) {
        a.col_idx.insert(a.col_idx.end(), c.col_idx[j].begin(), c.col_idx[j].end());
        a.values.insert(a.values.end(), c.weights[j].begin(), c.weights[j].end());
    }
    return a;
}

// One copy of columns and weights: the overlap of input chunk in_chunk with output chunk
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

// The chunk that holds global index g (one that exists), given where the num_chunks chunks
// start, in order. The last chunk that starts at or before g holds it: any empty chunks starting
// at g come before it. That is the chunk before the first one that starts above g, and the
// starts are sorted, so the first start above g is the lower bound of g + 1 among them.
__host__ __device__ inline int chunk_holding(const int* starts, int num_chunks, int g) {
    return lower_bound_index(starts, num_chunks, g + 1) - 1;
}

// Global index g as a chunk and a position in it.
struct ChunkPosition {
    int chunk, position;
};

inline ChunkPosition locate_chunk_entry(const std::vector<int>& lengths, int g) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    const int chunk = chunk_holding(bounds.data(), static_cast<int>(lengths.size()), g);
    return {chunk, g - bounds[chunk]};
}

// The places where a layout cuts the entry array, as global indices; an empty chunk adds no
// new place.
inline std::vector<int> interior_cuts(const std::vector<int>& lengths) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    if (bounds.size() < 2) return {};
    std::vector<int> cuts(bounds.begin() + 1, bounds.end() - 1);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

// How many entries of `row` each input chunk holds, in a row-sorted input: the length of the
// chunk's run of that row.
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

// The layout of the --scale and --matrix inputs: 7 input chunks of random lengths, the third
// forced empty; 5 chunks of columns and weights cut independently; and the num_rows + 1 offsets
// in 5 chunks cut independently again, the second forced empty, so that the offsets kernel
// always has an empty chunk to pass over. A fixed seed, so every run cuts the same.
struct ChunkLayout {
    std::vector<int> input, output, row_offsets;
};

constexpr uint64_t kChunkingSeed = 121;

inline ChunkLayout chunked_program_layout(int nnz, int num_rows) {
    SplitMix64 rng(kChunkingSeed);
    ChunkLayout layout;
    layout.input = random_chunk_lengths(nnz, 6, rng);
    layout.input.insert(layout.input.begin() + 2, 0);
    layout.output = random_chunk_lengths(nnz, 5, rng);
    layout.row_offsets = random_chunk_lengths(num_rows + 1, 4, rng);
    layout.row_offsets.insert(layout.row_offsets.begin() + 1, 0);
    return layout;
}

// The verdict on a chunked input whose first bad global index is `first_bad` (nnz when there is
// none), in the contract's words, with the chunk and the position of the entry, and the chunk of
// the entry before it when that is another one.
inline ContractVerdict chunk_contract_verdict(const HostCooChunks& in, int first_bad) {
    const std::vector<int> lengths = input_chunk_lengths(in);
    ContractVerdict verdict;
    verdict.first_bad = first_bad;
    if (first_bad >= chunk_bounds(lengths).back()) return verdict;
    const ChunkPosition at = locate_chunk_entry(lengths, first_bad);
    const std::string place = " (input chunk " + std::to_string(at.chunk) + ", position " +
                              std::to_string(at.position) + ")";
    int previous_row = 0;
    std::string previous_place;
    if (first_bad > 0) {
        const ChunkPosition before = locate_chunk_entry(lengths, first_bad - 1);
        previous_row = in.rows[before.chunk][before.position];
        if (before.chunk != at.chunk)
            previous_place = ", the last row of input chunk " + std::to_string(before.chunk);
    }
    verdict.refusal = describe_bad_entry(first_bad, previous_row, in.rows[at.chunk][at.position],
                                         in.cols[at.chunk][at.position], in.num_rows, in.num_cols,
                                         place, previous_place);
    return verdict;
}

// One chunk of sorted row ids, as the offsets kernel sees it. The kernel gets an array of these
// where the kernels run, so one launch covers any number of chunks.
struct RowChunk {
    const int* rows;
    int length;
};

// The offsets' chunks as the offsets kernel sees them: chunk j holds boundaries
// [starts[j], starts[j + 1]) in its own allocation, chunks[j]. Passed by value, it is three
// words; the two arrays that it points to are where the kernels run.
struct RowOffsetChunks {
    const int* starts;
    int* const* chunks;
    int num_chunks;
};

// Chunked COO where the kernels run: one allocation per chunk and per array, and the chunks'
// row descriptors for the offsets kernel.
struct DeviceCooChunks {
    DeviceCooChunks(const Here& here, const HostCooChunks& h)
        : num_rows(h.num_rows),
          num_cols(h.num_cols),
          lengths(input_chunk_lengths(h)),
          bounds(chunk_bounds(lengths)) {
        for (int i = 0; i < h.num_chunks(); ++i) {
            rows.emplace_back(here, h.rows[i]);
            cols.emplace_back(here, h.cols[i]);
            weights.emplace_back(here, h.weights[i]);
        }
        std::vector<RowChunk> descriptors;
        for (int i = 0; i < h.num_chunks(); ++i)
            descriptors.push_back({rows[i].data(), lengths[i]});
        row_chunks = DeviceArray<RowChunk>(here, descriptors);
    }
    int nnz() const { return bounds.back(); }
    int num_chunks() const { return static_cast<int>(lengths.size()); }

    int num_rows, num_cols;
    std::vector<int> lengths, bounds;
    std::vector<DeviceArray<int>> rows, cols;
    std::vector<DeviceArray<float>> weights;
    DeviceArray<RowChunk> row_chunks;
};

// The chunked CSR output: row_offsets in chunks of the caller's offset_lengths (adding up to
// rows + 1), columns and weights in chunks of entry_lengths, one allocation each, every byte 0xFF
// (as DeviceCsr's output) until the conversion writes it; and the offsets' chunk starts and
// addresses, where the kernels run, for the offsets kernel.
struct DeviceCsrChunks {
    DeviceCsrChunks(const Here& here, int rows, int cols, const std::vector<int>& offset_lengths,
                    const std::vector<int>& entry_lengths)
        : num_rows(rows), num_cols(cols) {
        const std::vector<int> offset_bounds = chunk_bounds(offset_lengths);
        const long long num_boundaries = static_cast<long long>(rows) + 1;
        if (offset_bounds.back() != num_boundaries)
            throw std::invalid_argument("the row_offsets chunks hold " +
                                        std::to_string(offset_bounds.back()) + " boundaries, " +
                                        std::to_string(rows) + " rows have " +
                                        std::to_string(num_boundaries));
        for (int n : offset_lengths) {
            row_offsets.emplace_back(here, static_cast<size_t>(n));
            row_offsets.back().fill_bytes(0xFF);
        }
        for (int n : entry_lengths) {
            col_idx.emplace_back(here, static_cast<size_t>(n));
            weights.emplace_back(here, static_cast<size_t>(n));
            col_idx.back().fill_bytes(0xFF);
            weights.back().fill_bytes(0xFF);
        }
        std::vector<int*> addresses;
        for (DeviceArray<int>& chunk : row_offsets) addresses.push_back(chunk.data());
        offset_starts = DeviceArray<int>(here, offset_bounds);
        offset_addresses = DeviceArray<int*>(here, addresses);
    }
    RowOffsetChunks offset_chunks() {
        return {offset_starts.data(), offset_addresses.data(),
                static_cast<int>(row_offsets.size())};
    }
    HostCsrChunks download() const {
        HostCsrChunks c;
        c.num_rows = num_rows;
        c.num_cols = num_cols;
        for (const DeviceArray<int>& chunk : row_offsets) c.row_offsets.push_back(chunk.download());
        for (size_t j = 0; j < col_idx.size(); ++j) {
            c.col_idx.push_back(col_idx[j].download());
            c.weights.push_back(weights[j].download());
        }
        return c;
    }

    int num_rows, num_cols;
    std::vector<DeviceArray<int>> row_offsets, col_idx;
    std::vector<DeviceArray<float>> weights;
    DeviceArray<int> offset_starts;
    DeviceArray<int*> offset_addresses;
};
