// What 121 prints, checks and times around its lesson (121_chunked_coo_to_csr_kernel.cu): the
// chunks, each boundary's sum, the copies, the claims against the CPU baselines and 120's one-piece
// conversion, cuSPARSE beside it, and the refusals.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "../../common/timing_table.cuh"
#include "sorted_coo_proof.cuh"

inline ProgramDescription chunked_coo_to_csr_program() {
    return ProgramDescription(
               "121 (21.3) kernel: sorted COO -> CSR over chunked storage, never concatenated",
               {"make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel",
                "build/121_chunked_coo_to_csr_kernel --scale 20"})
        .with_book_input("an 8-row example in 5 input and 3 output chunks, the card's, bad inputs")
        .with_memory({132, 28, 900e6});
}

// The small example: 8 rows, 5 columns, 10 entries. Rows 0, 2, 5 and 7 are empty (first,
// middle, last); (3, 2) is stored twice, with weights 3 and 5. The input chunks cut row 3 three
// ways, with an empty chunk inside it; the output chunks are cut elsewhere. The nine row_offsets
// are cut so that row 3's two offsets lie in different chunks, the second alone in its chunk,
// and an empty chunk starts where the last chunk does.
inline HostCoo chunked_example_coo() {
    return coo_of(8, 5, {1, 1, 3, 3, 3, 3, 3, 4, 6, 6}, {0, 3, 2, 4, 2, 1, 0, 4, 1, 3},
                  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}
const std::vector<int> kExampleInputLengths = {3, 2, 0, 2, 3};
const std::vector<int> kExampleOffsetLengths = {4, 1, 0, 4};
const std::vector<int> kExampleOutputLengths = {4, 2, 4};
constexpr int kExampleSpanningRow = 3;
// The card's example (sorted_coo_contract.h) cut as [ 0 | 0 1 2 | 2 ]: rows 0 and 2 both
// straddle a cut.
const std::vector<int> kCardInputLengths = {1, 3, 1};
const std::vector<int> kCardOffsetLengths = {3, 1};
const std::vector<int> kCardOutputLengths = {2, 3};

// An input to convert in chunks: its row-sorted entries in one piece (for cuSPARSE and the
// one-piece checks), the same entries in chunks, the output's chunk lengths (row_offsets', and
// col_idx's and weights'), and how much of the conversion is shown.
struct ChunkedInput {
    enum Shown { example, card, layout };
    std::string name;
    HostCoo sorted;
    std::vector<int> in_lengths, offset_lengths, out_lengths;
    Shown shown;
    HostCooChunks chunks;
};

inline ChunkedInput chunked_input(std::string name, HostCoo sorted, std::vector<int> in_lengths,
                                  std::vector<int> offset_lengths, std::vector<int> out_lengths,
                                  ChunkedInput::Shown shown) {
    HostCooChunks chunks = split_into_chunks(sorted, in_lengths);
    return {std::move(name),           std::move(sorted),      std::move(in_lengths),
            std::move(offset_lengths), std::move(out_lengths), shown,
            std::move(chunks)};
}

// The example and the card's, or the chapter's input (--scale or --matrix) sorted by row and cut
// as chunked_program_layout says, whose result: line ends the run.
inline std::vector<ChunkedInput> chunked_inputs(const ProgramOptions& options, SelfCheck& check) {
    std::vector<ChunkedInput> inputs;
    if (options.book_example()) {
        inputs.push_back(chunked_input("the example", chunked_example_coo(), kExampleInputLengths,
                                       kExampleOffsetLengths, kExampleOutputLengths,
                                       ChunkedInput::example));
        inputs.push_back(chunked_input("the card's example", card_example(), kCardInputLengths,
                                       kCardOffsetLengths, kCardOutputLengths, ChunkedInput::card));
        return inputs;
    }
    HostCoo sorted;
    {
        const HostCoo input = chapter_input(options);
        check.end_with(result_line(input));
        sorted = row_sorted_input(input);
    }
    const ChunkLayout layout =
        chunked_program_layout(static_cast<int>(sorted.nnz()), sorted.num_rows);
    inputs.push_back(chunked_input(options.chosen_input_name(), std::move(sorted), layout.input,
                                   layout.row_offsets, layout.output, ChunkedInput::layout));
    return inputs;
}

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
            std::printf(" rows %s  cols %s  weights %s\n", bracketed(in.rows[i]).c_str(),
                        bracketed(in.cols[i]).c_str(), bracketed(in.weights[i]).c_str());
    }
}

// How a large input is cut, and how the cuts relate to each other and to the rows.
inline void show_layout(const ChunkedInput& input) {
    print_wrapped("row-sorted, cut into " + counted(input.in_lengths.size(), "input chunk") +
                  " of lengths " + bracketed(input.in_lengths));
    print_wrapped("output: col_idx and weights in " + counted(input.out_lengths.size(), "chunk") +
                  " of lengths " + bracketed(input.out_lengths) + "; row_offsets in " +
                  counted(input.offset_lengths.size(), "chunk") + " of lengths " +
                  bracketed(input.offset_lengths));
    const std::vector<int> in_cuts = interior_cuts(input.in_lengths);
    const std::vector<int> out_cuts = interior_cuts(input.out_lengths);
    size_t shared_cuts = 0, rows_across_cuts = 0;
    for (int cut : out_cuts) shared_cuts += std::count(in_cuts.begin(), in_cuts.end(), cut);
    for (int cut : in_cuts)
        rows_across_cuts += cut > 0 && static_cast<size_t>(cut) < input.sorted.nnz() &&
                            input.sorted.rows[cut - 1] == input.sorted.rows[cut];
    print_wrapped("output cuts on an input cut: " + std::to_string(shared_cuts) + " of " +
                  std::to_string(out_cuts.size()) +
                  "; input cuts inside a row: " + std::to_string(rows_across_cuts) + " of " +
                  std::to_string(in_cuts.size()) + "; copies: " +
                  std::to_string(chunk_copies(input.in_lengths, input.out_lengths).size()));
    std::printf("\n");
    if (input.sorted.nnz() >= kAnnouncedSize) announce("validating and converting the chunks");
}

inline void show_chunked_input(const ChunkedInput& input) {
    if (input.shown == ChunkedInput::layout) return show_layout(input);
    if (input.shown == ChunkedInput::card) {
        std::printf("\n");
        const std::string output =
            "col_idx and weights in " + counted(input.out_lengths.size(), "chunk") +
            ", row_offsets in " + counted(input.offset_lengths.size(), "chunk");
        print_wrapped("the reference card's example, rows cut as [ 0 | 0 1 2 | 2 ], " + output +
                      ":");
        return;
    }
    show_input_chunks(input.chunks);
    std::printf(
        "output, allocated by the caller: col_idx and weights in %s of lengths %s,\n"
        "  row_offsets (%s) in %s of lengths %s\n\n",
        counted(input.out_lengths.size(), "chunk").c_str(), bracketed(input.out_lengths).c_str(),
        counted(input.chunks.num_rows + 1, "boundary", "boundaries").c_str(),
        counted(input.offset_lengths.size(), "chunk").c_str(),
        bracketed(input.offset_lengths).c_str());
}

// Each boundary as the sum that its thread computes, and the slot of the row_offsets chunk that
// it goes to; then each row's entries by chunk.
inline void show_offset_sums(const HostCooChunks& in, const std::vector<int>& offset_lengths,
                             const std::vector<int>& offsets) {
    print_array("row_offsets", offsets);
    std::printf(
        "row_offsets[r] = sum over the chunks of lower_bound(chunk rows, r), written to\n"
        "the offsets chunk that holds r:\n");
    for (int r = 0; r <= in.num_rows; ++r) {
        std::string terms;
        for (const auto& rows : in.rows) {
            const int bound = lower_bound_index(rows.data(), static_cast<int>(rows.size()), r);
            terms += (terms.empty() ? "" : " + ") + std::to_string(bound);
        }
        const ChunkPosition slot = locate_chunk_entry(offset_lengths, r);
        std::printf("  row_offsets[%d] = %s = %-2d -> offsets chunk %d [%d]\n", r, terms.c_str(),
                    offsets[r], slot.chunk, slot.position);
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
    std::printf("copies of columns and weights (overlaps of input and output chunk ranges):\n");
    for (size_t n = 0; n < copies.size(); ++n) {
        const ChunkCopy& c = copies[n];
        std::printf("  copy %zu: entries %-7s input chunk %d %-7s -> output chunk %d %s\n", n,
                    range_text(c.global_start, c.global_start + c.count).c_str(), c.in_chunk,
                    range_text(c.in_position, c.in_position + c.count).c_str(), c.out_chunk,
                    range_text(c.out_position, c.out_position + c.count).c_str());
    }
}

// The row_offsets chunks, each with the range of boundaries that it holds.
inline void show_offset_chunks(const HostCsrChunks& out) {
    const std::vector<int> bounds = chunk_bounds(offset_chunk_lengths(out));
    for (size_t j = 0; j < out.row_offsets.size(); ++j) {
        const std::string held =
            out.row_offsets[j].empty() ? "(empty)" : "row_offsets " + bracketed(out.row_offsets[j]);
        std::printf("  offsets chunk %zu, boundaries %-7s %s\n", j,
                    range_text(bounds[j], bounds[j + 1]).c_str(), held.c_str());
    }
}

inline void show_output_chunks(const Here& here, const HostCsrChunks& out) {
    const std::vector<int> bounds = chunk_bounds(output_chunk_lengths(out));
    std::printf("output chunks (%s):\n", here.name());
    show_offset_chunks(out);
    for (size_t j = 0; j < out.col_idx.size(); ++j)
        std::printf("  output chunk %zu, entries %-7s col_idx %s  weights %s\n", j,
                    range_text(bounds[j], bounds[j + 1]).c_str(), bracketed(out.col_idx[j]).c_str(),
                    bracketed(out.weights[j]).c_str());
    std::printf("\n");
}

inline void show_chunked_conversion(const Here& here, const ChunkedInput& input,
                                    const ChunkedConversion& got) {
    if (input.shown == ChunkedInput::card) {
        print_array("row_offsets", joined_csr(got.csr).row_offsets);
        show_offset_chunks(got.csr);
    }
    if (input.shown != ChunkedInput::example) return;
    show_offset_sums(input.chunks, input.offset_lengths, joined_csr(got.csr).row_offsets);
    show_copies(chunk_copies(input.in_lengths, input.out_lengths));
    show_output_chunks(here, got.csr);
}

inline bool no_shared_cut(const std::vector<int>& in_lengths, const std::vector<int>& out_lengths) {
    const std::vector<int> in_cuts = interior_cuts(in_lengths);
    for (int cut : interior_cuts(out_lengths))
        if (std::count(in_cuts.begin(), in_cuts.end(), cut) > 0) return false;
    return true;
}

// The claims about the example's geometry: where row 3 lies, where the cuts fall, and the
// duplicate.
inline void check_example_geometry(const ChunkedInput& input, const ChunkedConversion& got,
                                   SelfCheck& check) {
    const std::vector<int> share = row_share_by_chunk(input.chunks, kExampleSpanningRow);
    std::vector<int> holders;
    for (size_t i = 0; i < share.size(); ++i)
        if (share[i] > 0) holders.push_back(static_cast<int>(i));
    bool empty_chunk_inside = false;
    if (!holders.empty())
        for (int i = holders.front(); i <= holders.back(); ++i)
            empty_chunk_inside = empty_chunk_inside || input.chunks.rows[i].empty();
    check.claim("row 3's entries lie in 3 input chunks, with an empty chunk among them",
                holders.size() == 3 && empty_chunk_inside);
    check.claim("the output chunks are cut where no input chunk is cut",
                no_shared_cut(input.in_lengths, input.out_lengths));
    const ChunkPosition row_start = locate_chunk_entry(input.offset_lengths, kExampleSpanningRow);
    const ChunkPosition row_end = locate_chunk_entry(input.offset_lengths, kExampleSpanningRow + 1);
    check.claim(
        "row 3's two offsets lie in different row_offsets chunks, the second alone in its "
        "chunk; one row_offsets chunk is empty",
        row_start.chunk != row_end.chunk && input.offset_lengths[row_end.chunk] == 1 &&
            std::count(input.offset_lengths.begin(), input.offset_lengths.end(), 0) == 1);
    const HostCsr joined = joined_csr(got.csr);
    int duplicates = 0;
    for (int k = joined.row_offsets[3]; k < joined.row_offsets[4]; ++k)
        duplicates += joined.col_idx[k] == 2;
    check.claim("the duplicate (3, 2) is kept twice, not merged", duplicates == 2);
}

// The claims that every conversion of an input that keeps the contract makes: the kernels
// against the CPU baselines and against 120's baseline on the glued rows, the columns and weights
// in their order, the copies; then the example's and the card's own.
inline void check_chunked_conversion(const ChunkedInput& input, int first_bad_cpu,
                                     const std::vector<int>& row_offsets_cpu,
                                     const ChunkedConversion& got, SelfCheck& check) {
    const std::string& name = input.name;
    const int nnz = static_cast<int>(input.sorted.nnz());
    const HostCsr joined = joined_csr(got.csr);
    check.claim(name +
                    ": accepted by the check: its smallest bad index is nnz, as the CPU "
                    "baseline's",
                got.verdict.holds() && got.verdict.first_bad == nnz && first_bad_cpu == nnz);
    check.claim(name + ": row_offsets, gathered from its " +
                    counted(input.offset_lengths.size(), "chunk") +
                    " of the lengths asked for, equal the CPU baseline's exactly, and 120's "
                    "one-piece baseline's on the glued rows",
                offset_chunk_lengths(got.csr) == input.offset_lengths &&
                    joined.row_offsets == row_offsets_cpu &&
                    row_offsets_cpu == row_boundary_cpu(input.sorted));
    check.claim(name + ": col_idx and weights, gathered from their " +
                    counted(input.out_lengths.size(), "chunk") +
                    " of the lengths asked for, are the input's columns and weights in their "
                    "order, as 120's one-piece conversion copies them",
                output_chunk_lengths(got.csr) == input.out_lengths &&
                    joined.col_idx == input.sorted.cols && joined.values == input.sorted.values);
    const std::vector<ChunkCopy> copies = chunk_copies(input.in_lengths, input.out_lengths);
    int copied = 0;
    for (const ChunkCopy& c : copies) copied += c.count;
    const size_t copy_bound = input.in_lengths.size() + input.out_lengths.size() - 1;
    check.claim("the " + counted(copies.size(), "copy", "copies") + " cover the " +
                    counted(joined.nnz(), "entry", "entries") +
                    " once, and number at most K_in + K_out - 1 = " + std::to_string(copy_bound),
                copied == nnz && copies.size() <= copy_bound);
    if (input.shown == ChunkedInput::example) check_example_geometry(input, got, check);
    if (input.shown == ChunkedInput::card)
        check.claim("the card's example gives row_offsets 0 2 3 5, as the card does",
                    joined.row_offsets == kCardRowOffsets);
}

// Bytes that a conversion must move: columns and weights read and written, offsets written; the
// searches' reads of the row ids are not counted. The check reads rows and columns. The
// library's offsets are completed by the same two copies, so that both sides do the same job.
inline void time_chunked_routes(const KernelProgram& p, const ChunkedInput& input) {
    const Here& here = p.here;
    const HostCoo& sorted = input.sorted;
    const int nnz = static_cast<int>(sorted.nnz());
    const DeviceCooChunks d_in(here, input.chunks), whole(here, split_into_chunks(sorted, {nnz}));
    DeviceCsrChunks d_out(here, sorted.num_rows, sorted.num_cols, input.offset_lengths,
                          input.out_lengths);
    DeviceCsrChunks whole_out(here, sorted.num_rows, sorted.num_cols, {sorted.num_rows + 1}, {nnz});
    const std::vector<ChunkCopy> copies = chunk_copies(input.in_lengths, input.out_lengths);
    const std::vector<ChunkCopy> whole_copies = chunk_copies({nnz}, {nnz});
    ValidationState validation(here, nnz);
    DeviceArray<int> library_offsets(here, static_cast<size_t>(sorted.num_rows) + 1);
    CusparseHandle handle;
    const double bytes = 16.0 * nnz + 4.0 * (sorted.num_rows + 1);
    TimingTable table(p, "121", p.options.skew,
                      "bytes: columns and weights read and written, offsets written; the "
                      "validation reads rows and columns");
    table.time("validate_chunks", "validation, one launch per chunk", 8.0 * nnz,
               [&] { launch_chunk_validation(here, d_in, validation); });
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
inline void compare_with_cusparse(const KernelProgram& p, const ChunkedInput& input,
                                  SelfCheck& check) {
    const std::string claim = "cuSPARSE's coo2csr on the glued rows gives the same row_offsets";
    if (!p.on_gpu()) return check.skip(claim);
    if (input.sorted.nnz() == 0) return check.skip(claim, "no entries");
    check.claim(claim,
                offsets_by_cusparse(p.here, input.sorted) == chunked_row_offsets_cpu(input.chunks));
    if (p.options.scale > 0) time_chunked_routes(p, input);
}

// A bad input is refused at the first offending global index, the one where the CPU baseline
// and 120's one-piece check refuse the glued entries, and the output chunks keep their poison.
inline void check_refusal(const KernelProgram& p, const std::string& what, const HostCooChunks& in,
                          const std::vector<int>& offset_lengths,
                          const std::vector<int>& out_lengths, SelfCheck& check) {
    show_input_chunks(in);
    const ChunkedConversion got = coo_chunks_to_csr(p.here, in, offset_lengths, out_lengths);
    const int one_piece = validate_sorted_coo(p.here, DeviceCoo(p.here, joined_coo(in)));
    check.claim(what + ": refused with: " + got.verdict.refusal,
                !got.verdict.holds() && got.verdict.first_bad == one_piece &&
                    validate_chunk_cpu(in) == one_piece);
    check.claim(what + ": the poisoned outputs are untouched", still_poisoned(joined_csr(got.csr)));
}

inline void check_chunked_refusals(const KernelProgram& p, SelfCheck& check) {
    std::printf("\nbad inputs, refused before anything is written:\n");
    HostCooChunks unsorted;
    unsorted.num_rows = 5;
    unsorted.num_cols = 4;
    unsorted.rows = {{0, 3}, {}, {2, 4}};
    unsorted.cols = {{0, 1}, {}, {2, 3}};
    unsorted.weights = {{1, 2}, {}, {3, 4}};
    check_refusal(p, "rows out of order across a chunk boundary, an empty chunk between", unsorted,
                  {2, 4}, {3, 1}, check);

    HostCooChunks out_of_range;
    out_of_range.num_rows = 3;
    out_of_range.num_cols = 4;
    out_of_range.rows = {{0, 1}, {1, 1, 2}};
    out_of_range.cols = {{0, 1}, {3, 9, 0}};
    out_of_range.weights = {{1, 2}, {3, 4, 5}};
    check_refusal(p, "a column id out of range", out_of_range, {1, 0, 3}, {1, 4}, check);
}
