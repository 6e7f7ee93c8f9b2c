// 121 (21.3) kernel: 120's conversion when every array is cut into chunks, each its own
// allocation, and nothing is ever glued back together. Row boundary r is the number of entries
// whose row is below r; in a row-sorted input that count splits over the chunks, so thread r adds
// up one lower-bound search per chunk (an empty chunk adds 0; a row that spans chunks gets its
// share from each), and writes it into the row_offsets chunk that holds r, found by one more
// search. Columns and weights keep their order: the copies are the overlaps of the input's chunk
// ranges with the output's. Ids and order are checked first, across the cuts too.
//
// Build and run:  make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel
//                 build/121_chunked_coo_to_csr_kernel --scale 20

#ifndef CHUNKED_COO_TO_CSR_KERNEL_121  // the family proof keys its part for 121 on this guard
#define CHUNKED_COO_TO_CSR_KERNEL_121
#include <climits>
#include <stdexcept>
// 120's lesson: ValidationState, and the one-piece conversion that 121 is held to
#include "120_sorted_coo_to_csr_kernel.cu"

// Row-sorted COO in chunks: chunk i is (rows[i], cols[i], weights[i]), three separate arrays of
// one length. Read one after another, the chunks are the logical entry array; the position of an
// entry in that array is its global index. Any chunk may be empty.
struct HostCooChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<std::vector<int>> rows, cols;
    std::vector<std::vector<float>> weights;
    int num_chunks() const { return static_cast<int>(rows.size()); }
};

// CSR in chunks: the num_rows + 1 row_offsets (global entry indices) cut in one place, the
// columns and weights in another.
struct HostCsrChunks {
    int num_rows = 0;
    int num_cols = 0;
    std::vector<std::vector<int>> row_offsets, col_idx;
    std::vector<std::vector<float>> weights;
};

// The lengths of the chunks; a chunk whose three arrays disagree is a caller's bug.
inline std::vector<int> input_chunk_lengths(const HostCooChunks& a) {
    std::vector<int> lengths;
    for (int i = 0; i < a.num_chunks(); ++i) {
        const size_t n = a.rows[i].size();
        if (a.cols.size() != a.rows.size() || a.weights.size() != a.rows.size() ||
            a.cols[i].size() != n || a.weights[i].size() != n)
            throw std::invalid_argument("chunk " + std::to_string(i) +
                                        " has rows, columns and weights of different lengths");
        lengths.push_back(static_cast<int>(n));
    }
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

// The chunk that holds global index g, given where the num_chunks chunks start, in order: the
// last chunk that starts at or before g (any empty chunks starting at g come before it). That is
// the chunk before the first one that starts above g: the lower bound of g + 1 among the starts.
__host__ __device__ inline int chunk_holding(const int* starts, int num_chunks, int g) {
    return lower_bound_index(starts, num_chunks, g + 1) - 1;
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

// The CPU baseline of the offsets, in the kernel's shape: for each boundary in turn, the same
// sum of one lower-bound search per chunk. It keeps them in one array: the reference that the
// kernel's row_offsets chunks, read one after another, must equal.
inline std::vector<int> chunked_row_offsets_cpu(const HostCooChunks& in) {
    std::vector<int> row_offsets(static_cast<size_t>(in.num_rows) + 1, 0);
    for (int r = 0; r <= in.num_rows; ++r)
        for (const std::vector<int>& rows : in.rows)
            row_offsets[r] += lower_bound_index(rows.data(), static_cast<int>(rows.size()), r);
    return row_offsets;
}

// Thread r's work: row r starts after every entry of a smaller row, wherever those entries lie.
// In each chunk they are a prefix, of length lower_bound_index; the prefixes add up to the
// global position. An empty chunk's search reads nothing and gives 0.
// The offsets are cut at places of their own, so no division tells thread r where its slot is;
// but the chunks' starts are sorted, so the chunk that holds r is one lower-bound search away
// (chunk_holding, which also places a refused entry in its input chunk), and the search steps
// over empty chunks. The threads write distinct slots and share only reads.
__host__ __device__ inline void chunked_row_offsets_thread(int r, const RowChunk* chunks,
                                                           int num_chunks, RowOffsetChunks out) {
    int entries_before = 0;
    for (int i = 0; i < num_chunks; ++i)
        entries_before += lower_bound_index(chunks[i].rows, chunks[i].length, r);
    const int chunk = chunk_holding(out.starts, out.num_chunks, r);
    out.chunks[chunk][r - out.starts[chunk]] = entries_before;
}

__global__ void chunked_row_offsets_kernel(int num_boundaries, const RowChunk* chunks,
                                           int num_chunks, RowOffsetChunks out) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < num_boundaries) chunked_row_offsets_thread(r, chunks, num_chunks, out);
}

// The CPU baseline of the check, in the kernels' shape: chunk after chunk, entry after entry, the
// smallest bad global index kept. A chunk's first entry follows the last entry of the nearest
// earlier non-empty chunk.
inline int validate_chunk_cpu(const HostCooChunks& in) {
    int first_bad = chunk_bounds(input_chunk_lengths(in)).back(), chunk_start = 0;
    const int* earlier_last_row = nullptr;
    for (int i = 0; i < in.num_chunks(); ++i) {
        const std::vector<int>& rows = in.rows[i];
        const std::vector<int>& cols = in.cols[i];
        for (int k = 0; k < static_cast<int>(rows.size()); ++k) {
            const int* previous_row = k > 0 ? &rows[k - 1] : earlier_last_row;
            if (breaks_contract(rows[k], cols[k], previous_row, in.num_rows, in.num_cols))
                first_bad = std::min(first_bad, chunk_start + k);
        }
        if (!rows.empty()) earlier_last_row = &rows.back();
        chunk_start += static_cast<int>(rows.size());
    }
    return first_bad;
}

// Thread k of one chunk's check: entry k of this chunk, global index chunk_start + k. Its
// predecessor is the entry before it in this chunk, or, for the chunk's first entry, the last
// entry of the nearest earlier non-empty chunk (earlier_last_row; null when there is none).
// Threads of every chunk race only to lower one shared minimum, so the smallest bad global
// index wins whatever the order.
__host__ __device__ inline void validate_chunk_thread(int k, const int* rows, const int* cols,
                                                      int chunk_start, const int* earlier_last_row,
                                                      int num_rows, int num_cols, int* first_bad) {
    const int* previous_row = k > 0 ? &rows[k - 1] : earlier_last_row;
    if (breaks_contract(rows[k], cols[k], previous_row, num_rows, num_cols))
        atomic_min_shim(first_bad, chunk_start + k);
}

__global__ void validate_chunk_kernel(int length, const int* rows, const int* cols, int chunk_start,
                                      const int* earlier_last_row, int num_rows, int num_cols,
                                      int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < length)
        validate_chunk_thread(k, rows, cols, chunk_start, earlier_last_row, num_rows, num_cols,
                              first_bad);
}

// Chunked COO where the kernels run: one allocation per chunk and per array, and the chunks'
// row descriptors for the offsets kernel.
struct DeviceCooChunks {
    DeviceCooChunks(const Here& here, const HostCooChunks& h)
        : num_rows(h.num_rows),
          num_cols(h.num_cols),
          lengths(input_chunk_lengths(h)),
          bounds(chunk_bounds(lengths)) {
        std::vector<RowChunk> descriptors;
        for (int i = 0; i < h.num_chunks(); ++i) {
            rows.emplace_back(here, h.rows[i]);
            cols.emplace_back(here, h.cols[i]);
            weights.emplace_back(here, h.weights[i]);
            descriptors.push_back({rows[i].data(), lengths[i]});
        }
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

// The chunked CSR output, allocated by the caller: row_offsets in chunks of offset_lengths
// (adding up to rows + 1), columns and weights in chunks of entry_lengths, one allocation each,
// every byte 0xFF (as DeviceCsr's) until the conversion writes it; and the offsets' chunk starts
// and addresses, where the kernels run, for the offsets kernel.
struct DeviceCsrChunks {
    DeviceCsrChunks(const Here& here, int rows, int cols, const std::vector<int>& offset_lengths,
                    const std::vector<int>& entry_lengths)
        : num_rows(rows), num_cols(cols) {
        const std::vector<int> offset_bounds = chunk_bounds(offset_lengths);
        if (offset_bounds.back() != static_cast<long long>(rows) + 1)
            throw std::invalid_argument("the row_offsets chunks hold " +
                                        std::to_string(offset_bounds.back()) + " boundaries, " +
                                        std::to_string(rows) + " rows have one more");
        std::vector<int*> addresses;
        for (int n : offset_lengths) {
            row_offsets.emplace_back(here, static_cast<size_t>(n));
            row_offsets.back().fill_bytes(0xFF);
            addresses.push_back(row_offsets.back().data());
        }
        for (int n : entry_lengths) {
            col_idx.emplace_back(here, static_cast<size_t>(n));
            weights.emplace_back(here, static_cast<size_t>(n));
            col_idx.back().fill_bytes(0xFF);
            weights.back().fill_bytes(0xFF);
        }
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

// One launch per non-empty chunk, all lowering the same minimum. The predecessor of a chunk's
// first entry is handed over as an address where the kernels run, so the host never reads
// chunk data and nothing waits between the launches.
inline void launch_chunk_validation(const Here& here, const DeviceCooChunks& in,
                                    ValidationState& state) {
    copy_where_kernels_run(here, state.first_bad.data(), state.start.data(), 1);
    const int* earlier_last_row = nullptr;
    const unsigned threads = 256;  // one thread per entry of the chunk
    for (int i = 0; i < in.num_chunks(); ++i) {
        const int length = in.lengths[i];
        if (length == 0) continue;
        const unsigned blocks = (length + threads - 1) / threads;
        here.launch(blocks, threads, validate_chunk_kernel, validate_chunk_thread, length,
                    in.rows[i].data(), in.cols[i].data(), in.bounds[i], earlier_last_row,
                    in.num_rows, in.num_cols, state.first_bad.data());
        earlier_last_row = in.rows[i].data() + (length - 1);
    }
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

// One copy of columns and one of weights per overlap of the chunk ranges.
inline void copy_chunk_overlaps(const Here& here, const DeviceCooChunks& in,
                                const std::vector<ChunkCopy>& copies, DeviceCsrChunks& out) {
    for (const ChunkCopy& c : copies) {
        copy_where_kernels_run(here, out.col_idx[c.out_chunk].data() + c.out_position,
                               in.cols[c.in_chunk].data() + c.in_position, c.count);
        copy_where_kernels_run(here, out.weights[c.out_chunk].data() + c.out_position,
                               in.weights[c.in_chunk].data() + c.in_position, c.count);
    }
}

// For an input that passed the check: one launch for all num_rows + 1 boundaries (a thread
// each, in blocks of 256 threads), then the copies.
inline void launch_chunked_conversion(const Here& here, const DeviceCooChunks& in,
                                      const std::vector<ChunkCopy>& copies, DeviceCsrChunks& out) {
    const size_t boundaries = static_cast<size_t>(in.num_rows) + 1;
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((boundaries + threads - 1) / threads);
    here.launch(blocks, threads, chunked_row_offsets_kernel, chunked_row_offsets_thread, boundaries,
                in.row_chunks.data(), in.num_chunks(), out.offset_chunks());
    copy_chunk_overlaps(here, in, copies, out);
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

// A conversion's verdict, and the output chunks, which start poisoned and stay so when the input
// is refused.
struct ChunkedConversion {
    ContractVerdict verdict;
    HostCsrChunks csr;
};

// The check, then, if the input keeps the contract, the conversion into output chunks of the
// given lengths: row_offsets in chunks of offset_lengths, columns and weights in chunks of
// out_lengths. A layout that does not hold the input's rows or entries is a caller's error.
inline ChunkedConversion coo_chunks_to_csr(const Here& here, const HostCooChunks& in,
                                           const std::vector<int>& offset_lengths,
                                           const std::vector<int>& out_lengths) {
    const std::vector<ChunkCopy> copies = chunk_copies(input_chunk_lengths(in), out_lengths);
    const DeviceCooChunks d_in(here, in);
    DeviceCsrChunks d_out(here, in.num_rows, in.num_cols, offset_lengths, out_lengths);
    ValidationState validation(here, d_in.nnz());
    launch_chunk_validation(here, d_in, validation);
    ChunkedConversion result;
    result.verdict = chunk_contract_verdict(in, validation.first_bad.download()[0]);
    if (result.verdict.holds()) launch_chunked_conversion(here, d_in, copies, d_out);
    result.csr = d_out.download();
    return result;
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/121_chunked_coo_to_csr_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, chunked_coo_to_csr_program());
    SelfCheck check;
    for (const ChunkedInput& input : chunked_inputs(p.options, check)) {
        show_chunked_input(input);
        const ChunkedConversion got =
            coo_chunks_to_csr(p.here, input.chunks, input.offset_lengths, input.out_lengths);
        const int first_bad_cpu = validate_chunk_cpu(input.chunks);
        const std::vector<int> row_offsets_cpu = chunked_row_offsets_cpu(input.chunks);
        const std::vector<int> one_piece_cpu = row_boundary_cpu(input.sorted);
        show_chunked_conversion(p.here, input, got.csr);
        check_chunked_conversion(input, first_bad_cpu, row_offsets_cpu, one_piece_cpu, got.verdict,
                                 got.csr, check);
        compare_with_library(p, input, row_offsets_cpu, check, launch_chunk_validation,
                             launch_chunked_conversion, copy_chunk_overlaps);
    }
    if (!p.options.book_example()) return check.finish();
    show_refusals_heading(std::string("every byte of every output chunk is 0xFF before the ") +
                          p.here.name() + " check runs; a refusal must leave it so");
    for (const ChunkedRefusal& bad : chunked_refusals()) {
        show_input_chunks(bad.in);
        const ChunkedConversion got =
            coo_chunks_to_csr(p.here, bad.in, bad.offset_lengths, bad.out_lengths);
        const int one_piece = validate_sorted_coo(p.here, DeviceCoo(p.here, joined_coo(bad.in)));
        check_chunked_refusal(bad, got.verdict, got.csr, one_piece, validate_chunk_cpu(bad.in),
                              check);
    }
    return check.finish();
}
#endif
#endif  // CHUNKED_COO_TO_CSR_KERNEL_121
