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

// 120's lesson: ValidationState, and the one-piece baseline and check that 121 is held to
#include "120_sorted_coo_to_csr_kernel.cu"
#include "chunk_geometry.h"

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
    here.launch(blocks, threads, chunked_row_offsets_kernel, chunked_row_offsets_thread,
                boundaries, in.row_chunks.data(), in.num_chunks(), out.offset_chunks());
    copy_chunk_overlaps(here, in, copies, out);
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
        const int first_bad_cpu = validate_chunk_cpu(input.chunks);
        const std::vector<int> row_offsets_cpu = chunked_row_offsets_cpu(input.chunks);
        const ChunkedConversion got =
            coo_chunks_to_csr(p.here, input.chunks, input.offset_lengths, input.out_lengths);
        show_chunked_conversion(p.here, input, got);
        check_chunked_conversion(input, first_bad_cpu, row_offsets_cpu, got, check);
        compare_with_cusparse(p, input, check);
    }
    if (p.options.book_example()) check_chunked_refusals(p, check);
    return check.finish();
}
#endif
