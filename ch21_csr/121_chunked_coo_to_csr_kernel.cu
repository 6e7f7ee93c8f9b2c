// 121, kernel: 120's conversion when every array is cut into chunks, each its own allocation,
// and nothing is ever glued back together. Row boundary r is the number of entries whose row is
// below r; in a row-sorted input that count splits over the chunks, so thread r adds up one
// lower-bound search per chunk (an empty chunk adds 0; a row that spans chunks gets its share
// from each). Columns and values keep their order: the copies are the overlaps of the input's
// chunk ranges with the output's. Ids and order are checked first, across chunk boundaries too.
//
// Build and run:  make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel
//                 build/121_chunked_coo_to_csr_kernel --scale 20
#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>
#include "chunk_geometry.h"
// 120's lesson without its main: its copies, refusal words, cuSPARSE route and CPU baseline.
#include "120_sorted_coo_to_csr_kernel.cu"

// One chunk of sorted row ids, as the offsets kernel sees it. The kernel gets an array of these
// where the kernels run, so one launch covers any number of chunks.
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

__global__ void chunked_row_offsets_kernel(int num_boundaries, const RowChunk* chunks,
                                           int num_chunks, int* row_offsets) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < num_boundaries) chunked_row_offset_thread(r, chunks, num_chunks, row_offsets);
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
    const int row = rows[k], col = cols[k];
    const int* previous_row = k > 0 ? &rows[k - 1] : earlier_last_row;
    const bool descends = previous_row != nullptr && *previous_row > row;
    if (row < 0 || row >= num_rows || col < 0 || col >= num_cols || descends)
        atomic_min_shim(first_bad, chunk_start + k);
}

__global__ void validate_chunk_kernel(int length, const int* rows, const int* cols, int chunk_start,
                                      const int* earlier_last_row, int num_rows, int num_cols,
                                      int* first_bad) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < length)
        validate_chunk_entry_thread(k, rows, cols, chunk_start, earlier_last_row, num_rows,
                                    num_cols, first_bad);
}

// The CPU baseline: glue the chunks into one sorted COO, which the kernels never do, and
// convert it in one piece by 120's count and scan.
inline HostCsr chunked_coo_to_csr_cpu_baseline(const HostCooChunks& chunks) {
    return sorted_coo_to_csr_cpu(joined_coo(chunks));
}

// Chunked COO where the kernels run: one allocation per chunk and per array, and the chunks'
// row descriptors for the offsets kernel.
struct DeviceCooChunks {
    DeviceCooChunks(const Here& here, const HostCooChunks& h)
        : num_rows(h.num_rows),
          num_cols(h.num_cols),
          lengths(input_chunk_lengths(h)),
          bounds(chunk_bounds(lengths)),
          entry_count(here, std::vector<int>{bounds.back()}) {
        for (int i = 0; i < h.num_chunks(); ++i) {
            rows.emplace_back(here, h.rows[i]);
            cols.emplace_back(here, h.cols[i]);
            values.emplace_back(here, h.values[i]);
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
    DeviceArray<int> entry_count;  // nnz, where the kernels run, to reset the validation's minimum
    std::vector<DeviceArray<int>> rows, cols;
    std::vector<DeviceArray<float>> values;
    DeviceArray<RowChunk> row_chunks;
};

// The chunked CSR output: one offsets array, and columns and values in chunks of the caller's
// lengths, every byte 0xFF (as DeviceCsr's output) until the conversion writes it.
struct DeviceCsrChunks {
    DeviceCsrChunks(const Here& here, int rows, int cols, const std::vector<int>& lengths)
        : num_rows(rows), num_cols(cols), row_offsets(here, static_cast<size_t>(rows) + 1) {
        row_offsets.fill_bytes(0xFF);
        for (int n : lengths) {
            col_idx.emplace_back(here, static_cast<size_t>(n));
            values.emplace_back(here, static_cast<size_t>(n));
            col_idx.back().fill_bytes(0xFF);
            values.back().fill_bytes(0xFF);
        }
    }
    HostCsrChunks download() const {
        HostCsrChunks c;
        c.num_rows = num_rows;
        c.num_cols = num_cols;
        c.row_offsets = row_offsets.download();
        for (size_t j = 0; j < col_idx.size(); ++j) {
            c.col_idx.push_back(col_idx[j].download());
            c.values.push_back(values[j].download());
        }
        return c;
    }

    int num_rows, num_cols;
    DeviceArray<int> row_offsets;
    std::vector<DeviceArray<int>> col_idx;
    std::vector<DeviceArray<float>> values;
};

// One launch per non-empty chunk, all lowering the same minimum. The predecessor of a chunk's
// first entry is handed over as an address where the kernels run, so the host never reads
// chunk data and nothing waits between the launches.
inline void launch_chunk_validation(const Here& here, const DeviceCooChunks& in,
                                    DeviceArray<int>& first_bad) {
    copy_where_kernels_run(here, first_bad.data(), in.entry_count.data(), 1);
    const int* earlier_last_row = nullptr;
    for (int i = 0; i < in.num_chunks(); ++i) {
        const int length = in.lengths[i];
        if (length == 0) continue;
        here.launch(length, validate_chunk_kernel, validate_chunk_entry_thread, in.rows[i].data(),
                    in.cols[i].data(), in.bounds[i], earlier_last_row, in.num_rows, in.num_cols,
                    first_bad.data());
        earlier_last_row = in.rows[i].data() + (length - 1);
    }
}

// One copy of columns and one of values per overlap of the chunk ranges.
inline void copy_chunk_overlaps(const Here& here, const DeviceCooChunks& in,
                                const std::vector<ChunkCopy>& copies, DeviceCsrChunks& out) {
    for (const ChunkCopy& c : copies) {
        copy_where_kernels_run(here, out.col_idx[c.out_chunk].data() + c.out_position,
                               in.cols[c.in_chunk].data() + c.in_position, c.count);
        copy_where_kernels_run(here, out.values[c.out_chunk].data() + c.out_position,
                               in.values[c.in_chunk].data() + c.in_position, c.count);
    }
}

// The conversion proper, for an input that passed validation: one launch for all num_rows + 1
// boundaries, then the copies.
inline void launch_chunked_conversion(const Here& here, const DeviceCooChunks& in,
                                      const std::vector<ChunkCopy>& copies, DeviceCsrChunks& out) {
    here.launch(static_cast<size_t>(in.num_rows) + 1, chunked_row_offsets_kernel,
                chunked_row_offset_thread, in.row_chunks.data(), in.num_chunks(),
                out.row_offsets.data());
    copy_chunk_overlaps(here, in, copies, out);
}

// The outcome of the check before a conversion: the first offending global index (nnz when
// there is none) and, on refusal, the sentence that says what is wrong with it.
struct ChunkedVerdict {
    int first_bad = 0;
    std::string refusal;
    bool accepted() const { return refusal.empty(); }
};

// The reason for refusing entry g, from the few ids that explain it, fetched one at a time.
inline std::string describe_bad_chunk_entry(const Here& here, const DeviceCooChunks& in, int g) {
    auto row_at = [&](ChunkPosition p) {
        return fetch_one(here, in.rows[p.chunk].data() + p.position);
    };
    const ChunkPosition at = locate_chunk_entry(in.lengths, g);
    const int row = row_at(at), col = fetch_one(here, in.cols[at.chunk].data() + at.position);
    const std::string where = "entry " + std::to_string(g) + " (input chunk " +
                              std::to_string(at.chunk) + ", position " +
                              std::to_string(at.position) + "): ";
    if (row < 0 || row >= in.num_rows)
        return where + "row " + std::to_string(row) + " is not in [0, " +
               std::to_string(in.num_rows) + ")";
    if (col < 0 || col >= in.num_cols)
        return where + "column " + std::to_string(col) + " is not in [0, " +
               std::to_string(in.num_cols) + ")";
    const ChunkPosition before = locate_chunk_entry(in.lengths, g - 1);
    const std::string in_other_chunk =
        before.chunk == at.chunk ? ""
                                 : ", the last row of input chunk " + std::to_string(before.chunk);
    return where + "row " + std::to_string(row) + " comes after row " +
           std::to_string(row_at(before)) + in_other_chunk + " (rows must be non-decreasing)";
}

inline ChunkedVerdict validate_chunks(const Here& here, const DeviceCooChunks& in) {
    DeviceArray<int> first_bad(here, size_t{1});
    launch_chunk_validation(here, in, first_bad);
    ChunkedVerdict verdict;
    verdict.first_bad = first_bad.download()[0];
    if (verdict.first_bad < in.nnz())
        verdict.refusal = describe_bad_chunk_entry(here, in, verdict.first_bad);
    return verdict;
}

// A conversion's outcome: the verdict, and the output chunks, which start poisoned and stay so
// when the input is refused.
struct ChunkedConversion {
    ChunkedVerdict verdict;
    HostCsrChunks csr;
};

// Validation, then, if the input keeps the contract, the conversion into output chunks of the
// given lengths. A layout that does not hold the input's entries is a caller's error.
inline ChunkedConversion coo_chunks_to_csr(const Here& here, const HostCooChunks& in,
                                           const std::vector<int>& out_lengths) {
    const std::vector<ChunkCopy> copies = chunk_copies(input_chunk_lengths(in), out_lengths);
    const DeviceCooChunks d_in(here, in);
    DeviceCsrChunks d_out(here, in.num_rows, in.num_cols, out_lengths);
    ChunkedConversion result;
    result.verdict = validate_chunks(here, d_in);
    if (result.verdict.accepted()) launch_chunked_conversion(here, d_in, copies, d_out);
    result.csr = d_out.download();
    return result;
}

// The small example: 8 rows, 5 columns, 10 entries. Rows 0, 2, 5 and 7 are empty (first,
// middle, last); (3, 2) is stored twice, with values 3 and 5. The input chunks cut row 3 three
// ways, with an empty chunk inside it; the output chunks are cut elsewhere.
inline HostCoo chunked_example_coo() {
    return coo_of(8, 5, {1, 1, 3, 3, 3, 3, 3, 4, 6, 6}, {0, 3, 2, 4, 2, 1, 0, 4, 1, 3},
                  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}
const std::vector<int> kExampleInputLengths = {3, 2, 0, 2, 3};
const std::vector<int> kExampleOutputLengths = {4, 2, 4};
constexpr int kExampleSpanningRow = 3;
// The card's example (sorted_coo_contract.h) cut as [ 0 | 0 1 2 | 2 ]: rows 0 and 2 both
// straddle a cut.
const std::vector<int> kCardInputLengths = {1, 3, 1};

inline std::string range_text(int start, int end) {
    return "[" + std::to_string(start) + "," + std::to_string(end) + ")";
}

inline void show_input_chunks(const HostCooChunks& in) {
    const std::vector<int> bounds = chunk_bounds(input_chunk_lengths(in));
    print_wrapped("input: " + counted(in.num_rows, "row") + " x " + counted(in.num_cols, "column") +
                  ", " + counted(bounds.back(), "entry", "entries") + " in " +
                  counted(in.num_chunks(), "chunk") + ", each its own allocation:");
    for (int i = 0; i < in.num_chunks(); ++i) {
        std::printf("  chunk %d, entries %-7s", i, range_text(bounds[i], bounds[i + 1]).c_str());
        if (in.rows[i].empty())
            std::printf(" (empty)\n");
        else
            std::printf(" rows %s  cols %s  values %s\n", bracketed(in.rows[i]).c_str(),
                        bracketed(in.cols[i]).c_str(), bracketed(in.values[i]).c_str());
    }
}

inline void show_output_chunks(const Here& here, const HostCsrChunks& out) {
    const std::vector<int> bounds = chunk_bounds(output_chunk_lengths(out));
    std::printf("output chunks (%s):\n", here.name());
    for (size_t j = 0; j < out.col_idx.size(); ++j)
        std::printf("  output chunk %zu, entries %-7s col_idx %s  values %s\n", j,
                    range_text(bounds[j], bounds[j + 1]).c_str(), bracketed(out.col_idx[j]).c_str(),
                    bracketed(out.values[j]).c_str());
    std::printf("\n");
}

// Each boundary as the sum that its thread computes, and each row's entries by chunk.
inline void show_offset_sums(const HostCooChunks& in, const std::vector<int>& offsets) {
    print_array("row_offsets", offsets);
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
        std::printf(
            "  row %d: %s\n", r,
            parts.empty() ? "empty" : (counted(length, "entry", "entries") + ": " + parts).c_str());
    }
    std::printf("\n");
}

inline void show_copies(const std::vector<ChunkCopy>& copies) {
    std::printf("copies of columns and values (overlaps of input and output chunk ranges):\n");
    for (size_t n = 0; n < copies.size(); ++n) {
        const ChunkCopy& c = copies[n];
        std::printf("  copy %zu: entries %-7s input chunk %d %-7s -> output chunk %d %s\n", n,
                    range_text(c.global_start, c.global_start + c.count).c_str(), c.in_chunk,
                    range_text(c.in_position, c.in_position + c.count).c_str(), c.out_chunk,
                    range_text(c.out_position, c.out_position + c.count).c_str());
    }
}

// The claims that every accepted conversion makes, whatever its input.
inline void check_accepted(SelfCheck& check, const std::string& what, const HostCooChunks& in,
                           const ChunkedConversion& got) {
    const HostCsr expected = chunked_coo_to_csr_cpu_baseline(in);
    const HostCsr joined = joined_csr(got.csr);
    check.claim(what + ": accepted by the validation", got.verdict.accepted());
    check.claim(what + ": row_offsets equal the one-piece baseline's exactly",
                got.csr.row_offsets == expected.row_offsets);
    check.claim(what +
                    ": the output chunks, read one after another, hold the input's columns "
                    "and values in their order",
                joined.col_idx == expected.col_idx && joined.values == expected.values);
}

inline bool no_shared_cut(const std::vector<int>& in_lengths, const std::vector<int>& out_lengths) {
    const std::vector<int> in_cuts = interior_cuts(in_lengths);
    for (int cut : interior_cuts(out_lengths))
        if (std::count(in_cuts.begin(), in_cuts.end(), cut) > 0) return false;
    return true;
}

// The claims about the example's geometry: where row 3 lies, where the cuts fall, the
// duplicate, and the copies.
inline void check_example_geometry(const HostCooChunks& in, const ChunkedConversion& got,
                                   const std::vector<ChunkCopy>& copies, SelfCheck& check) {
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
    check.claim("the output chunks are cut where no input chunk is cut",
                no_shared_cut(kExampleInputLengths, kExampleOutputLengths));
    const HostCsr joined = joined_csr(got.csr);
    int duplicates = 0;
    for (int k = joined.row_offsets[3]; k < joined.row_offsets[4]; ++k)
        duplicates += joined.col_idx[k] == 2;
    check.claim("the duplicate (3, 2) is kept twice, not merged", duplicates == 2);
    int copied = 0;
    for (const ChunkCopy& c : copies) copied += c.count;
    const size_t copy_bound = kExampleInputLengths.size() + kExampleOutputLengths.size() - 1;
    check.claim("the " + counted(copies.size(), "copy", "copies") + " cover the " +
                    counted(joined.nnz(), "entry", "entries") +
                    " once, and number at most K_in + K_out - 1 = " + std::to_string(copy_bound),
                static_cast<size_t>(copied) == joined.nnz() && copies.size() <= copy_bound);
}

// Bytes that a conversion must move: columns and values read and written, offsets written; the
// searches' reads of the row ids are not counted. The validation reads rows and columns. The
// library's offsets are completed by the same two copies, so that both sides do the same job.
inline void time_chunked_routes(const KernelProgram& p, const HostCoo& sorted,
                                const HostCooChunks& in, const ChunkLayout& layout) {
    const Here& here = p.here;
    const int nnz = static_cast<int>(sorted.nnz());
    const DeviceCooChunks d_in(here, in), whole(here, split_into_chunks(sorted, {nnz}));
    DeviceCsrChunks d_out(here, sorted.num_rows, sorted.num_cols, layout.output);
    DeviceCsrChunks whole_out(here, sorted.num_rows, sorted.num_cols, {nnz});
    const std::vector<ChunkCopy> copies = chunk_copies(layout.input, layout.output);
    const std::vector<ChunkCopy> whole_copies = chunk_copies({nnz}, {nnz});
    DeviceArray<int> first_bad(here, size_t{1});
    DeviceArray<int> library_offsets(here, static_cast<size_t>(sorted.num_rows) + 1);
    CusparseHandle handle;
    const double bytes = 16.0 * nnz + 4.0 * (sorted.num_rows + 1);
    TimingTable table(p, "121", p.options.skew,
                      "bytes: columns and values read and written, offsets written; the "
                      "validation reads rows and columns");
    table.time("validate_chunks", "validation, one launch per chunk", 8.0 * nnz,
               [&] { launch_chunk_validation(here, d_in, first_bad); });
    const double chunked_ms =
        table.time("chunked_offsets_copies", "chunked: offsets kernel + copies", bytes,
                   [&] { launch_chunked_conversion(here, d_in, copies, d_out); });
    const double whole_ms =
        table.time("one_piece_offsets_copies", "one piece: same kernel, 1 chunk + 2 copies", bytes,
                   [&] { launch_chunked_conversion(here, whole, whole_copies, whole_out); });
    const double library_ms =
        table.time("cusparse_coo2csr_copies", "cuSPARSE coo2csr + 2 copies", bytes, [&] {
            launch_cusparse_offsets(handle, whole.rows[0].data(), nnz, sorted.num_rows,
                                    library_offsets);
            copy_chunk_overlaps(here, whole, whole_copies, whole_out);
        });
    table.ratio("chunked / one piece", chunked_ms / whole_ms, "the chunked conversion is faster");
    table.ratio("cuSPARSE / chunked", library_ms / chunked_ms, "cuSPARSE is faster");
}

// cuSPARSE's coo2csr on the glued rows: checked, and at --scale timed beside the chunked
// conversion.
inline void compare_with_cusparse(const KernelProgram& p, const HostCoo& sorted,
                                  const HostCooChunks& in, const ChunkLayout& layout,
                                  SelfCheck& check) {
    const std::string claim = "cuSPARSE's coo2csr on the glued rows gives the same row_offsets";
    if (!p.on_gpu()) return check.skip(claim);
    if (sorted.nnz() == 0) return check.skip(claim, "no entries");
    check.claim(claim, offsets_by_cusparse(p.here, sorted) ==
                           chunked_coo_to_csr_cpu_baseline(in).row_offsets);
    if (p.options.scale > 0) time_chunked_routes(p, sorted, in, layout);
}

inline void check_chunked_example(const KernelProgram& p, SelfCheck& check) {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    show_input_chunks(in);
    std::printf("output: %s of lengths %s, allocated by the caller\n\n",
                counted(kExampleOutputLengths.size(), "chunk").c_str(),
                bracketed(kExampleOutputLengths).c_str());
    const ChunkedConversion got = coo_chunks_to_csr(p.here, in, kExampleOutputLengths);
    const std::vector<ChunkCopy> copies = chunk_copies(kExampleInputLengths, kExampleOutputLengths);
    show_offset_sums(in, got.csr.row_offsets);
    show_copies(copies);
    show_output_chunks(p.here, got.csr);
    check_accepted(check, "the example", in, got);
    check_example_geometry(in, got, copies, check);
    compare_with_cusparse(p, chunked_example_coo(), in,
                          {kExampleInputLengths, kExampleOutputLengths}, check);
}

inline void check_card_example_in_chunks(const KernelProgram& p, SelfCheck& check) {
    const HostCooChunks card = split_into_chunks(card_example(), kCardInputLengths);
    const ChunkedConversion got = coo_chunks_to_csr(p.here, card, {2, 3});
    std::printf(
        "\nthe reference card's example, rows cut as [ 0 | 0 1 2 | 2 ], output in 2 "
        "chunks:\n");
    print_array("row_offsets", got.csr.row_offsets);
    check.claim("the card's example gives row_offsets 0 2 3 5, as the card does",
                got.verdict.accepted() && got.csr.row_offsets == kCardRowOffsets);
}

// A bad input is refused at the first offending global index, the one where 120's one-piece
// validation refuses the glued entries, and the output chunks keep their poison.
inline void check_refusal(const KernelProgram& p, const std::string& what, const HostCooChunks& in,
                          const std::vector<int>& out_lengths, SelfCheck& check) {
    show_input_chunks(in);
    const ChunkedConversion got = coo_chunks_to_csr(p.here, in, out_lengths);
    check.claim(what + ": refused with: " + got.verdict.refusal,
                !got.verdict.accepted() &&
                    got.verdict.first_bad == validate_sorted_coo(p.here, joined_coo(in)));
    check.claim(what + ": the poisoned outputs are untouched", still_poisoned(joined_csr(got.csr)));
}

inline void check_chunked_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("\nbad inputs, refused before anything is written:\n");
    HostCooChunks unsorted;
    unsorted.num_rows = 5;
    unsorted.num_cols = 4;
    unsorted.rows = {{0, 3}, {}, {2, 4}};
    unsorted.cols = {{0, 1}, {}, {2, 3}};
    unsorted.values = {{1, 2}, {}, {3, 4}};
    check_refusal(p, "rows out of order across a chunk boundary, an empty chunk between", unsorted,
                  {3, 1}, check);

    HostCooChunks out_of_range;
    out_of_range.num_rows = 3;
    out_of_range.num_cols = 4;
    out_of_range.rows = {{0, 1}, {1, 1, 2}};
    out_of_range.cols = {{0, 1}, {3, 9, 0}};
    out_of_range.values = {{1, 2}, {3, 4, 5}};
    check_refusal(p, "a column id out of range", out_of_range, {1, 4}, check);
}

// How a large input is cut, and how the cuts relate to each other and to the rows.
inline void show_layout(const HostCoo& sorted, const ChunkLayout& layout) {
    print_wrapped("row-sorted, cut into " + counted(layout.input.size(), "input chunk") +
                  " of lengths " + bracketed(layout.input));
    print_wrapped("output in " + counted(layout.output.size(), "chunk") + " of lengths " +
                  bracketed(layout.output));
    const std::vector<int> in_cuts = interior_cuts(layout.input);
    const std::vector<int> out_cuts = interior_cuts(layout.output);
    size_t shared_cuts = 0, rows_across_cuts = 0;
    for (int cut : out_cuts) shared_cuts += std::count(in_cuts.begin(), in_cuts.end(), cut);
    for (int cut : in_cuts)
        rows_across_cuts += cut > 0 && static_cast<size_t>(cut) < sorted.nnz() &&
                            sorted.rows[cut - 1] == sorted.rows[cut];
    print_wrapped("output cuts on an input cut: " + std::to_string(shared_cuts) + " of " +
                  std::to_string(out_cuts.size()) + "; input cuts inside a row: " +
                  std::to_string(rows_across_cuts) + " of " + std::to_string(in_cuts.size()) +
                  "; copies: " + std::to_string(chunk_copies(layout.input, layout.output).size()));
    std::printf("\n");
}

inline void check_chunked_conversion(const KernelProgram& p, const std::string& name,
                                     const HostCooChunks& in, const ChunkLayout& layout,
                                     SelfCheck& check) {
    if (static_cast<size_t>(chunk_bounds(layout.input).back()) >= kAnnouncedSize)
        announce(std::string("validating and converting the chunks (") + p.here.name() + ")");
    const ChunkedConversion got = coo_chunks_to_csr(p.here, in, layout.output);
    check_accepted(check, name, in, got);
    const size_t copy_bound = layout.input.size() + layout.output.size() - 1;
    check.claim("the copies number at most K_in + K_out - 1 = " + std::to_string(copy_bound),
                chunk_copies(layout.input, layout.output).size() <= copy_bound);
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "121 kernel: sorted COO -> CSR over chunked storage, never concatenated",
            {"make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel",
             "build/121_chunked_coo_to_csr_kernel --scale 20"})
            .with_book_input("an 8-row example in 5 input and 3 output chunks, the card's, bad "
                             "inputs")
            .with_memory({132, 28, 900e6}));
    SelfCheck check;
    if (p.options.book_example()) {
        check_chunked_example(p, check);
        check_card_example_in_chunks(p, check);
        check_chunked_refusals(p, check);
        return check.finish();
    }
    const HostCoo input = chapter_input(p.options);
    check.end_with(result_line(input));
    const HostCoo sorted = row_sorted_input(input);
    const ChunkLayout layout = chunked_program_layout(static_cast<int>(sorted.nnz()));
    const HostCooChunks in = split_into_chunks(sorted, layout.input);
    show_layout(sorted, layout);
    check_chunked_conversion(p, p.options.scale > 0 ? "R-MAT" : p.options.matrix, in, layout,
                             check);
    compare_with_cusparse(p, sorted, in, layout, check);
    return check.finish();
}
#endif
