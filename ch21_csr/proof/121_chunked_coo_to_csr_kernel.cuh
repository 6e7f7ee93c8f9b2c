// 121's own proof: what it prints, checks and times over its lesson's chunked storage.
#pragma once
#include "sorted_coo_proof.cuh"

inline ProgramDescription chunked_coo_to_csr_program() {
    return ProgramDescription(
               "121 (21.3) kernel: sorted COO -> CSR over chunked storage, never concatenated",
               {"make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel",
                "build/121_chunked_coo_to_csr_kernel --scale 20"})
        .with_book_input("an 8-row example in 5 input and 3 output chunks, the card's, bad inputs")
        .with_memory({132, 28, 900e6});
}

template <class T>
std::vector<int> chunk_lengths(const std::vector<std::vector<T>>& chunks) {
    std::vector<int> lengths;
    for (const std::vector<T>& chunk : chunks) lengths.push_back(static_cast<int>(chunk.size()));
    return lengths;
}

// Gluing the chunks together is what the conversion avoids; the baseline and the checks may.
template <class T>
std::vector<T> joined(const std::vector<std::vector<T>>& chunks) {
    std::vector<T> all;
    for (const std::vector<T>& chunk : chunks) all.insert(all.end(), chunk.begin(), chunk.end());
    return all;
}

inline HostCoo joined_coo(const HostCooChunks& c) {
    return coo_of(c.num_rows, c.num_cols, joined(c.rows), joined(c.cols), joined(c.weights));
}

inline HostCsr joined_csr(const HostCsrChunks& c) {
    return {c.num_rows, c.num_cols, joined(c.row_offsets), joined(c.col_idx), joined(c.weights)};
}

// Cuts a COO into chunks of the given lengths (they must add up to its entry count).
inline HostCooChunks split_into_chunks(const HostCoo& a, const std::vector<int>& lengths) {
    const std::vector<int> bounds = chunk_bounds(lengths);
    if (static_cast<size_t>(bounds.back()) != a.nnz())
        throw std::invalid_argument("the chunk lengths add up to " + std::to_string(bounds.back()) +
                                    ", not to the " + std::to_string(a.nnz()) + " entries");
    HostCooChunks c{a.num_rows, a.num_cols, {}, {}, {}};
    for (size_t i = 0; i < lengths.size(); ++i) {
        c.rows.emplace_back(a.rows.begin() + bounds[i], a.rows.begin() + bounds[i + 1]);
        c.cols.emplace_back(a.cols.begin() + bounds[i], a.cols.begin() + bounds[i + 1]);
        c.weights.emplace_back(a.values.begin() + bounds[i], a.values.begin() + bounds[i + 1]);
    }
    return c;
}

// How many entries of `row` each input chunk holds: the length of the chunk's run of that row.
inline std::vector<int> row_share_by_chunk(const HostCooChunks& in, int row) {
    std::vector<int> share;
    for (const std::vector<int>& rows : in.rows) {
        const int n = static_cast<int>(rows.size());
        share.push_back(lower_bound_index(rows.data(), n, row + 1) -
                        lower_bound_index(rows.data(), n, row));
    }
    return share;
}

// `num_chunks` lengths adding up to `total`, cut at random places (two together: an empty one).
inline std::vector<int> random_chunk_lengths(int total, int num_chunks, SplitMix64& rng) {
    if (num_chunks < 1) throw std::invalid_argument("at least one chunk is needed");
    std::vector<int> cuts(num_chunks - 1);
    for (int& c : cuts) c = static_cast<int>(rng.below(static_cast<uint32_t>(total) + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(total);
    std::vector<int> lengths(num_chunks);
    for (int i = 0, start = 0; i < num_chunks; start = cuts[i++]) lengths[i] = cuts[i] - start;
    return lengths;
}

// The --scale and --matrix layout, seeded so every run cuts the same: 7 input chunks (the third
// empty), 5 output chunks, 5 offsets chunks (the second empty, for the kernel to pass over).
struct ChunkLayout {
    std::vector<int> input, output, row_offsets;
};

inline ChunkLayout chunked_program_layout(int nnz, int num_rows) {
    SplitMix64 rng(121);
    ChunkLayout layout{random_chunk_lengths(nnz, 6, rng), random_chunk_lengths(nnz, 5, rng),
                       random_chunk_lengths(num_rows + 1, 4, rng)};
    layout.input.insert(layout.input.begin() + 2, 0);
    layout.row_offsets.insert(layout.row_offsets.begin() + 1, 0);
    return layout;
}

// 8 rows, rows 0, 2, 5, 7 empty, (3, 2) stored twice; the input chunks cut row 3 three ways
// around an empty chunk, the outputs elsewhere; row 3's two offsets lie in different chunks.
inline HostCoo chunked_example_coo() {
    return coo_of(8, 5, {1, 1, 3, 3, 3, 3, 3, 4, 6, 6}, {0, 3, 2, 4, 2, 1, 0, 4, 1, 3},
                  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}
const std::vector<int> kExampleInputLengths = {3, 2, 0, 2, 3};
const std::vector<int> kExampleOffsetLengths = {4, 1, 0, 4};
const std::vector<int> kExampleOutputLengths = {4, 2, 4};
constexpr int kExampleSpanningRow = 3;
// The card's example cut as [ 0 | 0 1 2 | 2 ]: rows 0 and 2 both straddle a cut.
const std::vector<int> kCardInputLengths = {1, 3, 1};
const std::vector<int> kCardOffsetLengths = {3, 1};
const std::vector<int> kCardOutputLengths = {2, 3};

// An input in one piece (for cuSPARSE and the baseline) and in chunks, and the output's cuts.
struct ChunkedInput {
    enum Shown { example, card, layout };
    std::string name;
    HostCoo sorted;
    std::vector<int> in_lengths, offset_lengths, out_lengths;
    Shown shown;
    HostCooChunks chunks = split_into_chunks(sorted, in_lengths);
};

inline std::vector<ChunkedInput> chunked_inputs(const ProgramOptions& options, SelfCheck& check) {
    if (options.book_example())
        return {{"the example", chunked_example_coo(), kExampleInputLengths, kExampleOffsetLengths,
                 kExampleOutputLengths, ChunkedInput::example},
                {"the card's example", card_example(), kCardInputLengths, kCardOffsetLengths,
                 kCardOutputLengths, ChunkedInput::card}};
    HostCoo sorted = sorted_coo_inputs(options, check).front().coo;
    const ChunkLayout layout =
        chunked_program_layout(static_cast<int>(sorted.nnz()), sorted.num_rows);
    return {{options.chosen_input_name(), std::move(sorted), layout.input, layout.row_offsets,
             layout.output, ChunkedInput::layout}};
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

// How the input and the output are cut: in full for the example, by their lengths otherwise.
inline void show_chunked_input(const ChunkedInput& input) {
    const std::string output = "col_idx and weights in " +
                               counted(input.out_lengths.size(), "chunk") + " of lengths " +
                               bracketed(input.out_lengths) + ", row_offsets (" +
                               counted(input.chunks.num_rows + 1, "boundary", "boundaries") +
                               ") in " + counted(input.offset_lengths.size(), "chunk") +
                               " of lengths " + bracketed(input.offset_lengths);
    if (input.shown == ChunkedInput::card) {
        std::printf("\n");
        return print_wrapped("the reference card's example, rows cut as [ 0 | 0 1 2 | 2 ], " +
                             output + ":");
    }
    if (input.shown == ChunkedInput::example) show_input_chunks(input.chunks);
    if (input.shown == ChunkedInput::layout)
        print_wrapped("row-sorted, cut into " + counted(input.in_lengths.size(), "input chunk") +
                      " of lengths " + bracketed(input.in_lengths) + "; copies: " +
                      std::to_string(chunk_copies(input.in_lengths, input.out_lengths).size()));
    print_wrapped("output, allocated by the caller: " + output);
    std::printf("\n");
    if (input.sorted.nnz() >= kAnnouncedSize) announce("validating and converting the chunks");
}

// The chunks of one output array, each with the range of the logical array that it holds.
template <class T>
void show_chunks(const char* kind, const char* range, const char* name,
                 const std::vector<std::vector<T>>& chunks) {
    const std::vector<int> bounds = chunk_bounds(chunk_lengths(chunks));
    for (size_t j = 0; j < chunks.size(); ++j)
        std::printf("  %s chunk %zu, %s %-7s %s\n", kind, j, range,
                    range_text(bounds[j], bounds[j + 1]).c_str(),
                    chunks[j].empty() ? "(empty)"
                                      : (std::string(name) + " " + bracketed(chunks[j])).c_str());
}

// The card's offsets chunks; for the example, each boundary's sum and slot, the copies, chunks.
inline void show_chunked_conversion(const Here& here, const ChunkedInput& input,
                                    const HostCsrChunks& out) {
    const std::vector<int> offsets = joined(out.row_offsets);
    if (input.shown == ChunkedInput::layout) return;
    print_array("row_offsets", offsets);
    if (input.shown == ChunkedInput::card)
        return show_chunks("offsets", "boundaries", "row_offsets", out.row_offsets);
    std::printf(
        "row_offsets[r] = sum over the chunks of lower_bound(chunk rows, r), written to\n"
        "the offsets chunk that holds r:\n");
    for (int r = 0; r <= out.num_rows; ++r) {
        std::string terms;
        for (const std::vector<int>& rows : input.chunks.rows)
            terms +=
                (terms.empty() ? "" : " + ") +
                std::to_string(lower_bound_index(rows.data(), static_cast<int>(rows.size()), r));
        const ChunkPosition slot = locate_chunk_entry(input.offset_lengths, r);
        std::printf("  row_offsets[%d] = %s = %-2d -> offsets chunk %d [%d]\n", r, terms.c_str(),
                    offsets[r], slot.chunk, slot.position);
    }
    std::printf("copies of columns and weights (overlaps of input and output chunk ranges):\n");
    const std::vector<ChunkCopy> copies = chunk_copies(input.in_lengths, input.out_lengths);
    for (size_t n = 0; n < copies.size(); ++n) {
        const ChunkCopy& c = copies[n];
        std::printf("  copy %zu: entries %-7s input chunk %d %-7s -> output chunk %d %s\n", n,
                    range_text(c.global_start, c.global_start + c.count).c_str(), c.in_chunk,
                    range_text(c.in_position, c.in_position + c.count).c_str(), c.out_chunk,
                    range_text(c.out_position, c.out_position + c.count).c_str());
    }
    std::printf("output chunks (%s):\n", here.name());
    show_chunks("offsets", "boundaries", "row_offsets", out.row_offsets);
    show_chunks("output", "entries", "col_idx", out.col_idx);
    show_chunks("output", "entries", "weights", out.weights);
    std::printf("\n");
}

// The claims about the example's geometry: where row 3 lies, where the cuts fall, the duplicate.
inline void check_example_geometry(const ChunkedInput& input, const HostCsr& joined_out,
                                   SelfCheck& check) {
    const std::vector<int> share = row_share_by_chunk(input.chunks, kExampleSpanningRow);
    std::vector<int> holders;
    for (size_t i = 0; i < share.size(); ++i)
        if (share[i] > 0) holders.push_back(static_cast<int>(i));
    const auto rows = input.chunks.rows.begin();
    check.claim("row 3's entries lie in 3 input chunks, with an empty chunk among them",
                holders.size() == 3 &&
                    std::any_of(rows + holders.front(), rows + holders.back(),
                                [](const std::vector<int>& chunk) { return chunk.empty(); }));
    const std::vector<int> in_cuts = chunk_bounds(input.in_lengths);
    const std::vector<int> out_cuts = chunk_bounds(input.out_lengths);
    check.claim("the output chunks are cut where no input chunk is cut",
                std::find_first_of(out_cuts.begin() + 1, out_cuts.end() - 1, in_cuts.begin() + 1,
                                   in_cuts.end() - 1) == out_cuts.end() - 1);
    const ChunkPosition row_start = locate_chunk_entry(input.offset_lengths, kExampleSpanningRow);
    const ChunkPosition row_end = locate_chunk_entry(input.offset_lengths, kExampleSpanningRow + 1);
    check.claim(
        "row 3's two offsets lie in different row_offsets chunks, the second alone in its "
        "chunk; one row_offsets chunk is empty",
        row_start.chunk != row_end.chunk && input.offset_lengths[row_end.chunk] == 1 &&
            std::count(input.offset_lengths.begin(), input.offset_lengths.end(), 0) == 1);
    check.claim("the duplicate (3, 2) is kept twice, not merged",
                weights_at(joined_out, kExampleSpanningRow, 2).size() == 2);
}

inline void check_chunked_conversion(const ChunkedInput& input, int first_bad_cpu,
                                     const std::vector<int>& row_offsets_cpu,
                                     const std::vector<int>& one_piece_cpu,
                                     const ContractVerdict& verdict, const HostCsrChunks& out,
                                     SelfCheck& check) {
    const std::string& name = input.name;
    const int nnz = static_cast<int>(input.sorted.nnz());
    const HostCsr joined_out = joined_csr(out);
    check.claim(name +
                    ": accepted by the check: its smallest bad index is nnz, as the CPU "
                    "baseline's",
                verdict.holds() && verdict.first_bad == nnz && first_bad_cpu == nnz);
    check.claim(name + ": row_offsets, gathered from its " +
                    counted(input.offset_lengths.size(), "chunk") +
                    " of the lengths asked for, equal the CPU baseline's exactly, and 120's "
                    "one-piece baseline's on the glued rows",
                chunk_lengths(out.row_offsets) == input.offset_lengths &&
                    joined_out.row_offsets == row_offsets_cpu && row_offsets_cpu == one_piece_cpu);
    check.claim(name + ": col_idx and weights, gathered from their " +
                    counted(input.out_lengths.size(), "chunk") +
                    " of the lengths asked for, are the input's columns and weights in their "
                    "order, as 120's one-piece conversion copies them",
                chunk_lengths(out.col_idx) == input.out_lengths &&
                    joined_out.col_idx == input.sorted.cols &&
                    joined_out.values == input.sorted.values);
    const std::vector<ChunkCopy> copies = chunk_copies(input.in_lengths, input.out_lengths);
    int copied = 0;
    for (const ChunkCopy& c : copies) copied += c.count;
    const size_t copy_bound = input.in_lengths.size() + input.out_lengths.size() - 1;
    check.claim("the " + counted(copies.size(), "copy", "copies") + " cover the " +
                    counted(joined_out.nnz(), "entry", "entries") +
                    " once, and number at most K_in + K_out - 1 = " + std::to_string(copy_bound),
                copied == nnz && copies.size() <= copy_bound);
    if (input.shown == ChunkedInput::example) check_example_geometry(input, joined_out, check);
    if (input.shown == ChunkedInput::card)
        check.claim("the card's example gives row_offsets 0 2 3 5, as the card does",
                    joined_out.row_offsets == kCardRowOffsets);
}

using ChunkedLaunch = void (*)(const Here&, const DeviceCooChunks&, const std::vector<ChunkCopy>&,
                               DeviceCsrChunks&);

// cuSPARSE's coo2csr on the glued rows, checked, and at --scale timed, with the same copies so
// both do one job, beside the chunked and one-piece conversions (row-id reads not counted).
template <class ValidationState>
void compare_with_library(const KernelProgram& p, const ChunkedInput& input,
                          const std::vector<int>& row_offsets_cpu, SelfCheck& check,
                          void (*validate)(const Here&, const DeviceCooChunks&, ValidationState&),
                          ChunkedLaunch convert, ChunkedLaunch copy) {
    const std::string claim = "cuSPARSE's coo2csr on the glued rows gives the same row_offsets";
    if (!p.on_gpu()) return check.skip(claim);
    const HostCoo& sorted = input.sorted;
    const int nnz = static_cast<int>(sorted.nnz());
    if (nnz == 0) return check.skip(claim, "no entries");
#ifdef __CUDACC__
    check.claim(claim, offsets_by_cusparse(p.here, sorted) == row_offsets_cpu);
    if (p.options.scale <= 0) return;
    const Here& here = p.here;
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
               [&] { validate(here, d_in, validation); });
    const double chunked_ms =
        table.time("chunked_offsets_copies", "chunked: offsets kernel + copies", bytes,
                   [&] { convert(here, d_in, copies, d_out); });
    const double whole_ms =
        table.time("one_piece_offsets_copies", "one piece: same kernel, 1 chunk + 2 copies", bytes,
                   [&] { convert(here, whole, whole_copies, whole_out); });
    const double library_ms =
        table.time("cusparse_coo2csr_copies", "cuSPARSE coo2csr + 2 copies", bytes, [&] {
            launch_cusparse_offsets(handle, whole.rows[0].data(), nnz, sorted.num_rows,
                                    library_offsets);
            copy(here, whole, whole_copies, whole_out);
        });
    table.ratio("chunked / one piece", chunked_ms / whole_ms, "the chunked conversion is faster");
    table.ratio("cuSPARSE / chunked", library_ms / chunked_ms, "cuSPARSE is faster");
#endif
}

// Bad chunked inputs, with the layout of the outputs that they must leave poisoned.
struct ChunkedRefusal {
    std::string what;
    HostCooChunks in;
    std::vector<int> offset_lengths, out_lengths;
};

inline std::vector<ChunkedRefusal> chunked_refusals() {
    HostCooChunks unsorted{5, 4, {{0, 3}, {}, {2, 4}}, {{0, 1}, {}, {2, 3}}, {{1, 2}, {}, {3, 4}}};
    HostCooChunks out_of_range{3, 4, {{0, 1}, {1, 1, 2}}, {{0, 1}, {3, 9, 0}}, {{1, 2}, {3, 4, 5}}};
    return {{"rows out of order across a chunk boundary, an empty chunk between",
             unsorted,
             {2, 4},
             {3, 1}},
            {"a column id out of range", out_of_range, {1, 0, 3}, {1, 4}}};
}

// Refused where both CPU baselines refuse the glued entries, the output chunks still poisoned.
inline void check_chunked_refusal(const ChunkedRefusal& bad, const ContractVerdict& verdict,
                                  const HostCsrChunks& out, int one_piece, int first_bad_cpu,
                                  SelfCheck& check) {
    check.claim(bad.what + ": refused with: " + verdict.refusal,
                !verdict.holds() && verdict.first_bad == one_piece && first_bad_cpu == one_piece);
    check.claim(bad.what + ": the poisoned outputs are untouched", still_poisoned(joined_csr(out)));
}
