// Tests of 121: sorted COO to CSR over chunked storage, in emulation and on the GPU, against the
// one-piece conversion made by an independent route (csr_from_coo_by_stable_sort walks the
// sorted rows once; the kernel searches chunk by chunk), on hand-made chunkings, thousands of
// random ones, the real matrices, and every kind of bad input.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>
#include "../ch21_csr/121_chunked_coo_to_csr_kernel.cu"
#include "../ch21_csr/proof/121_chunked_coo_to_csr_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"

namespace {

constexpr uint64_t kSeed121 = 121121;

// Random chunk lengths for a test: 1 to 8 chunks, about a quarter of them forced empty, the
// entries spread over the others at random cuts.
std::vector<int> random_test_lengths(int nnz, SplitMix64& rng) {
    const int k = 1 + static_cast<int>(rng.below(8));
    std::vector<bool> forced_empty(k);
    int open = 0;
    for (int i = 0; i < k; ++i) {
        forced_empty[i] = rng.below(4) == 0;
        open += !forced_empty[i];
    }
    if (open == 0) {
        forced_empty[rng.below(k)] = false;
        open = 1;
    }
    const std::vector<int> parts = random_chunk_lengths(nnz, open, rng);
    std::vector<int> lengths;
    size_t next = 0;
    for (int i = 0; i < k; ++i) lengths.push_back(forced_empty[i] ? 0 : parts[next++]);
    return lengths;
}

// Every entry in one chunk, among 1 to 8 that are otherwise empty.
std::vector<int> all_in_one_chunk(int nnz, SplitMix64& rng) {
    std::vector<int> lengths(1 + rng.below(8), 0);
    lengths[rng.below(static_cast<uint32_t>(lengths.size()))] = nnz;
    return lengths;
}

// One entry per chunk, with one empty chunk slipped in somewhere.
std::vector<int> one_entry_per_chunk(int nnz, SplitMix64& rng) {
    std::vector<int> lengths(nnz, 1);
    lengths.insert(lengths.begin() + rng.below(static_cast<uint32_t>(nnz) + 1), 0);
    return lengths;
}

std::vector<int> test_lengths(int mode, int nnz, SplitMix64& rng) {
    if (mode == 3) return all_in_one_chunk(nnz, rng);
    if (mode == 4) return one_entry_per_chunk(nnz, rng);
    return random_test_lengths(nnz, rng);
}

// The copies tile [0, nnz) in order, each one non-empty and inside both of its chunks.
bool copies_tile_the_entries(const std::vector<int>& in_lengths,
                             const std::vector<int>& out_lengths) {
    const std::vector<ChunkCopy> copies = chunk_copies(in_lengths, out_lengths);
    const std::vector<int> in = chunk_bounds(in_lengths), out = chunk_bounds(out_lengths);
    int next = 0;
    for (const ChunkCopy& c : copies) {
        if (c.count <= 0 || c.global_start != next) return false;
        if (in[c.in_chunk] + c.in_position != c.global_start ||
            out[c.out_chunk] + c.out_position != c.global_start)
            return false;
        if (c.in_position + c.count > in_lengths[c.in_chunk] ||
            c.out_position + c.count > out_lengths[c.out_chunk])
            return false;
        next += c.count;
    }
    return next == in.back() && copies.size() + 1 <= in_lengths.size() + out_lengths.size();
}

// An accepted conversion of the row-sorted `sorted`, its three outputs gathered from their
// chunks, equals, exactly, the CSR that a stable sort and one walk over the rows build; the
// output chunks have the lengths that were asked for.
bool converts_like_one_piece(const ChunkedConversion& got, const HostCoo& sorted,
                             const std::vector<int>& offset_lengths,
                             const std::vector<int>& out_lengths) {
    const HostCsr expected = csr_from_coo_by_stable_sort(sorted);
    const HostCsr joined = joined_csr(got.csr);
    return got.verdict.holds() && got.verdict.first_bad == static_cast<int>(sorted.nnz()) &&
           chunk_lengths(got.csr.row_offsets) == offset_lengths &&
           joined.row_offsets == expected.row_offsets &&
           chunk_lengths(got.csr.col_idx) == out_lengths && joined.col_idx == expected.col_idx &&
           joined.values == expected.values && same_row_multisets(joined, sorted);
}

ChunkedConversion emulated(const HostCooChunks& in, const std::vector<int>& offset_lengths,
                           const std::vector<int>& out_lengths, uint64_t seed = 1) {
    return coo_chunks_to_csr(Here::emulated(ThreadOrder::shuffled(seed)), in, offset_lengths,
                             out_lengths);
}

ChunkedConversion on_gpu(const HostCooChunks& in, const std::vector<int>& offset_lengths,
                         const std::vector<int>& out_lengths) {
    return coo_chunks_to_csr(Here::gpu(), in, offset_lengths, out_lengths);
}

// The offsets of `num_rows` rows in two halves with an empty chunk between them, for the inputs
// whose offsets are not the point.
std::vector<int> offsets_halved(int num_rows) {
    const int boundaries = num_rows + 1;
    return {boundaries / 2, 0, boundaries - boundaries / 2};
}

// Every output byte still 0xFF, as the conversion found it.
bool untouched_since_poisoned(const HostCsrChunks& c) {
    return still_poisoned(joined_csr(c));
}

HostCooChunks chunks_of_rows(int num_rows, int num_cols, std::vector<std::vector<int>> rows,
                             std::vector<std::vector<int>> cols) {
    HostCooChunks c;
    c.num_rows = num_rows;
    c.num_cols = num_cols;
    for (size_t i = 0; i < rows.size(); ++i) {
        std::vector<float> weights(rows[i].size());
        for (size_t k = 0; k < weights.size(); ++k) weights[k] = static_cast<float>(10 * i + k + 1);
        c.weights.push_back(weights);
    }
    c.rows = std::move(rows);
    c.cols = std::move(cols);
    return c;
}

// The bad inputs, each with the global index of its first offending entry and the refusal.
struct BadCase {
    const char* what;
    HostCooChunks in;
    std::vector<int> out_lengths;
    int first_bad;
    std::string refusal;
};

std::vector<BadCase> bad_cases() {
    return {
        {"unsorted inside a chunk",
         chunks_of_rows(4, 4, {{0, 2, 1}, {3}}, {{0, 0, 0}, {0}}),
         {2, 2},
         2,
         "entry 2 (input chunk 0, position 2): row 1 comes after row 2 (rows must be "
         "non-decreasing)"},
        {"unsorted across a boundary, an empty chunk between",
         chunks_of_rows(5, 4, {{0, 3}, {}, {2, 4}}, {{0, 1}, {}, {2, 3}}),
         {1, 3},
         2,
         "entry 2 (input chunk 2, position 0): row 2 comes after row 3, the last row of input "
         "chunk 0 (rows must be non-decreasing)"},
        {"unsorted across several empty chunks, the first chunk empty",
         chunks_of_rows(3, 3, {{}, {1, 2}, {}, {}, {0}}, {{}, {0, 0}, {}, {}, {0}}),
         {3},
         2,
         "entry 2 (input chunk 4, position 0): row 0 comes after row 2, the last row of input "
         "chunk 1 (rows must be non-decreasing)"},
        {"row above the range",
         chunks_of_rows(3, 3, {{0}, {1, 3}}, {{0}, {0, 0}}),
         {3},
         2,
         "entry 2 (input chunk 1, position 1): row 3 is not in [0, 3)"},
        {"negative row, first entry of all",
         chunks_of_rows(3, 3, {{}, {-1, 0}}, {{}, {0, 0}}),
         {1, 1},
         0,
         "entry 0 (input chunk 1, position 0): row -1 is not in [0, 3)"},
        {"column above the range",
         chunks_of_rows(3, 4, {{0, 1}, {1, 1, 2}}, {{0, 1}, {3, 9, 0}}),
         {5},
         3,
         "entry 3 (input chunk 1, position 1): column 9 is not in [0, 4)"},
        {"negative column",
         chunks_of_rows(3, 4, {{0, 0}, {}, {2}}, {{0, 1}, {}, {-2}}),
         {3},
         2,
         "entry 2 (input chunk 2, position 0): column -2 is not in [0, 4)"},
        {"the earlier of two faults wins",
         chunks_of_rows(6, 6, {{0, 1}, {4, 2}, {5, 5}}, {{0, 0}, {0, 0}, {7, 0}}),
         {4, 2},
         3,
         "entry 3 (input chunk 1, position 1): row 2 comes after row 4 (rows must be "
         "non-decreasing)"},
        {"an out-of-range row before a boundary is reported, not the descent after it",
         chunks_of_rows(5, 5, {{0, 9}, {1}}, {{0, 0}, {0}}),
         {3},
         1,
         "entry 1 (input chunk 0, position 1): row 9 is not in [0, 5)"},
        {"any entry at all when there are no rows",
         chunks_of_rows(0, 2, {{}, {0}}, {{}, {0}}),
         {1},
         0,
         "entry 0 (input chunk 1, position 0): row 0 is not in [0, 0)"},
    };
}

// The first bad entry, found here by one plain walk over the glued entries.
int first_bad_by_walking(const HostCoo& a) {
    int previous = INT_MIN;
    for (size_t k = 0; k < a.nnz(); ++k) {
        if (a.rows[k] < 0 || a.rows[k] >= a.num_rows || a.cols[k] < 0 || a.cols[k] >= a.num_cols ||
            a.rows[k] < previous)
            return static_cast<int>(k);
        previous = a.rows[k];
    }
    return static_cast<int>(a.nnz());
}

// A sorted sweep graph with one entry spoiled: its row pushed out of range or below its
// predecessor's, or its column out of range.
HostCoo spoiled(const HostCoo& sorted, SplitMix64& rng) {
    HostCoo a = sorted;
    const size_t k = rng.below(static_cast<uint32_t>(a.nnz()));
    switch (rng.below(4)) {
        case 0:
            a.rows[k] = a.num_rows + static_cast<int>(rng.below(3));
            break;
        case 1:
            a.rows[k] = -1 - static_cast<int>(rng.below(3));
            break;
        case 2:
            a.cols[k] = rng.below(2) ? -1 : a.num_cols;
            break;
        default:
            if (k > 0 && a.rows[k - 1] > 0)
                a.rows[k] = a.rows[k - 1] - 1;
            else
                a.rows[k] = -1;
    }
    return a;
}

const std::vector<int> kExampleOffsets = {0, 0, 2, 2, 7, 8, 8, 10, 10};
// kExampleOffsets cut as kExampleOffsetLengths (4, 1, 0, 4) says, by hand.
const std::vector<std::vector<int>> kExampleOffsetChunks = {{0, 0, 2, 2}, {7}, {}, {8, 8, 10, 10}};
const std::vector<std::vector<int>> kExampleOutputCols = {{0, 3, 2, 4}, {2, 1}, {0, 4, 1, 3}};
const std::vector<std::vector<float>> kExampleOutputWeights = {{1, 2, 3, 4}, {5, 6}, {7, 8, 9, 10}};

// The example's offsets cut in ways that put boundaries on the edges of row_offsets chunks, each
// with its chunks worked out by hand from kExampleOffsets (0 0 2 2 7 8 8 10 10).
struct OffsetCut {
    const char* what;
    std::vector<int> lengths;
    std::vector<std::vector<int>> chunks;
};

std::vector<OffsetCut> offset_cuts_on_edges() {
    return {
        {"row 3 starts in the last slot of chunk 0; row 4 starts in the first slot of chunk 1",
         {4, 5},
         {{0, 0, 2, 2}, {7, 8, 8, 10, 10}}},
        {"every boundary alone in a chunk of one",
         {1, 1, 1, 1, 1, 1, 1, 1, 1},
         {{0}, {0}, {2}, {2}, {7}, {8}, {8}, {10}, {10}}},
        {"a chunk of one between empty chunks, and empty chunks at both ends",
         {0, 4, 0, 0, 1, 4, 0},
         {{}, {0, 0, 2, 2}, {}, {}, {7}, {8, 8, 10, 10}, {}}},
        {"the last boundary, nnz, alone in the last chunk",
         {8, 1},
         {{0, 0, 2, 2, 7, 8, 8, 10}, {10}}},
    };
}

}  // namespace

TEST_CASE("121: the small example, emulated in several thread orders", "[121][emulation]") {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    for (uint64_t seed : {1u, 2u, 3u, 121u}) {
        CAPTURE(seed);
        const ChunkedConversion got =
            emulated(in, kExampleOffsetLengths, kExampleOutputLengths, seed);
        CHECK(got.verdict.holds());
        CHECK(got.verdict.first_bad == 10);
        CHECK(got.csr.row_offsets == kExampleOffsetChunks);
        CHECK(joined_csr(got.csr).row_offsets == kExampleOffsets);
        CHECK(got.csr.col_idx == kExampleOutputCols);
        CHECK(got.csr.weights == kExampleOutputWeights);
        CHECK(converts_like_one_piece(got, chunked_example_coo(), kExampleOffsetLengths,
                                      kExampleOutputLengths));
    }
    CHECK(chunked_row_offsets_cpu(in) == kExampleOffsets);
    CHECK(row_share_by_chunk(in, kExampleSpanningRow) == std::vector<int>{1, 2, 0, 2, 0});
    CHECK(row_share_by_chunk(in, 0) == std::vector<int>{0, 0, 0, 0, 0});
}

TEST_CASE("121: the example's copies are the six overlaps of its chunk ranges",
          "[121][emulation]") {
    const std::vector<ChunkCopy> copies = chunk_copies(kExampleInputLengths, kExampleOutputLengths);
    REQUIRE(copies.size() == 6);
    // (input chunk, position, output chunk, position, global start, count), worked out by hand
    // from the cuts 3 5 5 7 (input) and 4 6 (output).
    const std::vector<std::vector<int>> expected = {{0, 0, 0, 0, 0, 3}, {1, 0, 0, 3, 3, 1},
                                                    {1, 1, 1, 0, 4, 1}, {3, 0, 1, 1, 5, 1},
                                                    {3, 1, 2, 0, 6, 1}, {4, 0, 2, 1, 7, 3}};
    for (size_t n = 0; n < copies.size(); ++n) {
        const ChunkCopy& c = copies[n];
        CHECK(std::vector<int>{c.in_chunk, c.in_position, c.out_chunk, c.out_position,
                               c.global_start, c.count} == expected[n]);
    }
}

TEST_CASE("121: the card's example gives its offsets 0 2 3 5", "[121][emulation]") {
    const HostCooChunks card = split_into_chunks(card_example(), kCardInputLengths);
    const ChunkedConversion got = emulated(card, {3, 1}, {2, 3});
    CHECK(got.csr.row_offsets == std::vector<std::vector<int>>{{0, 2, 3}, {5}});
    CHECK(converts_like_one_piece(got, card_example(), {3, 1}, {2, 3}));
}

TEST_CASE("121: the chunk that holds a boundary, found among starts with empty chunks",
          "[121][emulation]") {
    // Lengths 0 4 0 0 1 4 0 start at 0 0 4 4 4 5 9: boundaries 0 to 3 lie in chunk 1, 4 alone
    // in chunk 4, 5 to 8 in chunk 5; the empty chunks hold nothing.
    const std::vector<int> starts = chunk_bounds({0, 4, 0, 0, 1, 4, 0});
    const std::vector<int> expected = {1, 1, 1, 1, 4, 5, 5, 5, 5};
    for (int g = 0; g < 9; ++g) {
        CAPTURE(g);
        CHECK(chunk_holding(starts.data(), 7, g) == expected[g]);
    }
    CHECK(chunk_holding(chunk_bounds({1}).data(), 1, 0) == 0);
}

TEST_CASE("121: row boundaries on row_offsets chunk edges, and chunks of one boundary",
          "[121][emulation]") {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    for (const OffsetCut& cut : offset_cuts_on_edges()) {
        INFO(cut.what);
        for (uint64_t seed : {1u, 2u, 3u}) {
            CAPTURE(seed);
            const ChunkedConversion got = emulated(in, cut.lengths, kExampleOutputLengths, seed);
            CHECK(got.csr.row_offsets == cut.chunks);
            CHECK(converts_like_one_piece(got, chunked_example_coo(), cut.lengths,
                                          kExampleOutputLengths));
        }
    }
    // The first cut is made so that a row boundary falls on the edge: chunk 1 starts at
    // boundary 4, where row 3 ends and row 4 begins.
    CHECK(chunk_bounds(offset_cuts_on_edges()[0].lengths)[1] == kExampleSpanningRow + 1);
}

TEST_CASE("121: emulated chunked conversion equals the one-piece CSR on 2,400 random chunkings",
          "[121][emulation]") {
    INFO("seed " << kSeed121);
    int chunkings = 0;
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo g = sorted_by_row(edge_case_graph(i, kSeed121));
        const int nnz = static_cast<int>(g.nnz());
        SplitMix64 rng(mix_seed(kSeed121, i));
        for (int repeat = 0; repeat < 2; ++repeat) {
            const int chunking = 2 * i + repeat;
            const std::vector<int> in_lengths = test_lengths(chunking % 5, nnz, rng);
            const std::vector<int> out_lengths = test_lengths((chunking / 5) % 5, nnz, rng);
            const std::vector<int> offset_lengths =
                test_lengths((chunking / 25) % 5, g.num_rows + 1, rng);
            CAPTURE(i, repeat, g.num_rows, nnz, in_lengths, out_lengths, offset_lengths);
            const HostCooChunks in = split_into_chunks(g, in_lengths);
            REQUIRE(copies_tile_the_entries(in_lengths, out_lengths));
            REQUIRE(converts_like_one_piece(
                emulated(in, offset_lengths, out_lengths, mix_seed(kSeed121, ~i)), g,
                offset_lengths, out_lengths));
            REQUIRE(chunked_row_offsets_cpu(in) == csr_from_coo_by_stable_sort(g).row_offsets);
            REQUIRE(validate_chunk_cpu(in) == nnz);
            ++chunkings;
        }
    }
    CHECK(chunkings >= 1000);
}

TEST_CASE("121: one row spread over a thousand chunks, empty ones between", "[121][emulation]") {
    HostCoo g = make_uniform_random(10, 0, 1);
    for (int k = 0; k < 1000; ++k) {
        g.rows.push_back(5);
        g.cols.push_back(k % 10);
        g.values.push_back(static_cast<float>(k));
    }
    g.rows.push_back(9);
    g.cols.push_back(0);
    g.values.push_back(-1);
    std::vector<int> in_lengths;
    for (int k = 0; k < 1001; ++k) {
        in_lengths.push_back(1);
        in_lengths.push_back(0);
    }
    const HostCooChunks in = split_into_chunks(g, in_lengths);
    const std::vector<int> offset_lengths = {6, 5};
    const std::vector<int> out_lengths = {333, 0, 600, 68};
    const ChunkedConversion got = emulated(in, offset_lengths, out_lengths, 7);
    CHECK(converts_like_one_piece(got, g, offset_lengths, out_lengths));
    CHECK(got.csr.row_offsets ==
          std::vector<std::vector<int>>{{0, 0, 0, 0, 0, 0}, {1000, 1000, 1000, 1000, 1001}});
    const std::vector<int> share = row_share_by_chunk(in, 5);
    CHECK(std::count(share.begin(), share.end(), 1) == 1000);
}

TEST_CASE("121: a hub row of 10^5 entries, and its transpose, in random chunks",
          "[121][emulation][hub]") {
    INFO("seed " << kSeed121);
    const HostCoo star = sorted_by_row(make_star(100001, 0, 5));
    const HostCoo into_hub = sorted_by_row(transposed(make_star(100001, 0, 6)));
    SplitMix64 rng(kSeed121);
    for (const HostCoo* g : {&star, &into_hub}) {
        const int nnz = static_cast<int>(g->nnz());
        const std::vector<int> in_lengths = random_test_lengths(nnz, rng);
        const std::vector<int> out_lengths = random_test_lengths(nnz, rng);
        const std::vector<int> offset_lengths = random_test_lengths(g->num_rows + 1, rng);
        CAPTURE(in_lengths, out_lengths, offset_lengths);
        const ChunkedConversion got =
            emulated(split_into_chunks(*g, in_lengths), offset_lengths, out_lengths, 3);
        CHECK(converts_like_one_piece(got, *g, offset_lengths, out_lengths));
    }
}

TEST_CASE("121: empty chunks only, no entries, no rows, no chunks", "[121][emulation]") {
    const HostCoo no_entries = make_uniform_random(5, 0, 1);
    const ChunkedConversion all_empty =
        emulated(split_into_chunks(no_entries, {0, 0, 0, 0}), {2, 4}, {0, 0, 0});
    CHECK(all_empty.csr.row_offsets == std::vector<std::vector<int>>{{0, 0}, {0, 0, 0, 0}});
    CHECK(converts_like_one_piece(all_empty, no_entries, {2, 4}, {0, 0, 0}));
    CHECK(chunk_copies({0, 0, 0, 0}, {0, 0, 0}).empty());

    const ChunkedConversion no_chunks = emulated(split_into_chunks(no_entries, {}), {6}, {});
    CHECK(no_chunks.csr.row_offsets == std::vector<std::vector<int>>{std::vector<int>(6, 0)});

    // No rows: row_offsets is the one boundary 0, alone in its chunk or among empty ones.
    const HostCoo no_rows = make_uniform_random(0, 0, 1);
    const ChunkedConversion zero = emulated(split_into_chunks(no_rows, {0, 0}), {1}, {0});
    CHECK(zero.verdict.holds());
    CHECK(zero.csr.row_offsets == std::vector<std::vector<int>>{{0}});
    CHECK(converts_like_one_piece(zero, no_rows, {1}, {0}));
    const ChunkedConversion zero_among_empties =
        emulated(split_into_chunks(no_rows, {}), {0, 1, 0}, {});
    CHECK(zero_among_empties.csr.row_offsets == std::vector<std::vector<int>>{{}, {0}, {}});
    CHECK(converts_like_one_piece(zero_among_empties, no_rows, {0, 1, 0}, {}));
}

TEST_CASE("121: every bad input is refused at its first global index, outputs untouched",
          "[121][emulation]") {
    for (const BadCase& bad : bad_cases()) {
        INFO(bad.what);
        CHECK(first_bad_by_walking(joined_coo(bad.in)) == bad.first_bad);
        const Here here = Here::emulated(ThreadOrder::shuffled(4));
        CHECK(validate_sorted_coo(here, DeviceCoo(here, joined_coo(bad.in))) == bad.first_bad);
        CHECK(validate_chunk_cpu(bad.in) == bad.first_bad);
        const std::vector<int> offset_lengths = offsets_halved(bad.in.num_rows);
        for (uint64_t seed : {1u, 2u, 3u}) {
            const ChunkedConversion got = emulated(bad.in, offset_lengths, bad.out_lengths, seed);
            CHECK_FALSE(got.verdict.holds());
            CHECK(got.verdict.first_bad == bad.first_bad);
            CHECK(got.verdict.refusal == bad.refusal);
            CHECK(untouched_since_poisoned(got.csr));
            CHECK(chunk_lengths(got.csr.row_offsets) == offset_lengths);
            CHECK(chunk_lengths(got.csr.col_idx) == bad.out_lengths);
        }
    }
}

TEST_CASE("121: 1,000 spoiled random inputs are refused where a plain walk first fails",
          "[121][emulation]") {
    INFO("seed " << kSeed121);
    int refused = 0;
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo sorted = sorted_by_row(edge_case_graph(i, kSeed121 + 1));
        if (sorted.nnz() == 0) continue;
        SplitMix64 rng(mix_seed(kSeed121 + 1, i));
        const HostCoo bad = spoiled(sorted, rng);
        const int nnz = static_cast<int>(bad.nnz());
        const std::vector<int> in_lengths = test_lengths(i % 5, nnz, rng);
        const std::vector<int> out_lengths = random_test_lengths(nnz, rng);
        const std::vector<int> offset_lengths = random_test_lengths(bad.num_rows + 1, rng);
        CAPTURE(i, in_lengths, out_lengths, offset_lengths);
        const int expected = first_bad_by_walking(bad);
        REQUIRE(validate_chunk_cpu(split_into_chunks(bad, in_lengths)) == expected);
        const ChunkedConversion got = emulated(split_into_chunks(bad, in_lengths), offset_lengths,
                                               out_lengths, mix_seed(kSeed121, i));
        REQUIRE(got.verdict.first_bad == expected);
        REQUIRE(got.verdict.holds() == (expected == nnz));
        if (!got.verdict.holds()) {
            REQUIRE(untouched_since_poisoned(got.csr));
            ++refused;
        }
    }
    CHECK(refused >= 1000);
}

TEST_CASE("121: layouts of the wrong size are a caller's error", "[121][emulation]") {
    const HostCoo g = chunked_example_coo();
    CHECK_THROWS_AS(split_into_chunks(g, {3, 3}), std::invalid_argument);
    CHECK_THROWS_AS(split_into_chunks(g, {12, -2}), std::invalid_argument);
    const HostCooChunks in = split_into_chunks(g, kExampleInputLengths);
    CHECK_THROWS_AS(emulated(in, kExampleOffsetLengths, {4, 4}), std::invalid_argument);
    CHECK_THROWS_AS(emulated(in, {4, 4}, kExampleOutputLengths), std::invalid_argument);
    CHECK_THROWS_AS(emulated(in, {5, 5}, kExampleOutputLengths), std::invalid_argument);
    CHECK_THROWS_AS(emulated(in, {}, kExampleOutputLengths), std::invalid_argument);
    CHECK_THROWS_AS(chunk_copies({1, 2}, {4}), std::invalid_argument);
    HostCooChunks ragged = in;
    ragged.cols[1].pop_back();
    CHECK_THROWS_AS(emulated(ragged, kExampleOffsetLengths, kExampleOutputLengths),
                    std::invalid_argument);
}

TEST_CASE("121: the real matrices, row-sorted and cut into random chunks",
          "[121][emulation][data]") {
    SplitMix64 rng(kSeed121);
    for (const std::string& name : readable_data_files()) {
        INFO(name);
        const HostCoo g = sorted_by_row(read_data_file(name));
        const int nnz = static_cast<int>(g.nnz());
        for (int mode = 0; mode < 4; ++mode) {
            const std::vector<int> in_lengths = test_lengths(mode, nnz, rng);
            const std::vector<int> out_lengths = test_lengths(mode == 3 ? 0 : 3, nnz, rng);
            const std::vector<int> offset_lengths = test_lengths(3 - mode, g.num_rows + 1, rng);
            CAPTURE(mode, in_lengths, out_lengths, offset_lengths);
            const ChunkedConversion got = emulated(split_into_chunks(g, in_lengths), offset_lengths,
                                                   out_lengths, mix_seed(kSeed121, mode));
            CHECK(converts_like_one_piece(got, g, offset_lengths, out_lengths));
        }
        const ChunkLayout layout = chunked_program_layout(nnz, g.num_rows);
        CHECK(converts_like_one_piece(
            emulated(split_into_chunks(g, layout.input), layout.row_offsets, layout.output), g,
            layout.row_offsets, layout.output));
    }
}

TEST_CASE("121: GPU conversion of the small example", "[121][gpu]") {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    const ChunkedConversion got = on_gpu(in, kExampleOffsetLengths, kExampleOutputLengths);
    CHECK(got.csr.row_offsets == kExampleOffsetChunks);
    CHECK(got.csr.col_idx == kExampleOutputCols);
    CHECK(got.csr.weights == kExampleOutputWeights);
    CHECK(converts_like_one_piece(got, chunked_example_coo(), kExampleOffsetLengths,
                                  kExampleOutputLengths));
}

TEST_CASE("121: GPU row boundaries on row_offsets chunk edges, and chunks of one boundary",
          "[121][gpu]") {
    const HostCooChunks in = split_into_chunks(chunked_example_coo(), kExampleInputLengths);
    for (const OffsetCut& cut : offset_cuts_on_edges()) {
        INFO(cut.what);
        const ChunkedConversion got = on_gpu(in, cut.lengths, kExampleOutputLengths);
        CHECK(got.csr.row_offsets == cut.chunks);
        CHECK(converts_like_one_piece(got, chunked_example_coo(), cut.lengths,
                                      kExampleOutputLengths));
    }
}

TEST_CASE("121: GPU chunked conversion on 200 random chunkings, the hub and the empty cases",
          "[121][gpu]") {
    INFO("seed " << kSeed121);
    for (int i = 0; i < 200; ++i) {
        const HostCoo g = sorted_by_row(edge_case_graph(i, kSeed121));
        const int nnz = static_cast<int>(g.nnz());
        SplitMix64 rng(mix_seed(kSeed121, i));
        const std::vector<int> in_lengths = test_lengths(i % 5, nnz, rng);
        const std::vector<int> out_lengths = test_lengths((i / 5) % 5, nnz, rng);
        const std::vector<int> offset_lengths = test_lengths((i / 25) % 5, g.num_rows + 1, rng);
        CAPTURE(i, g.num_rows, nnz, in_lengths, out_lengths, offset_lengths);
        REQUIRE(converts_like_one_piece(
            on_gpu(split_into_chunks(g, in_lengths), offset_lengths, out_lengths), g,
            offset_lengths, out_lengths));
    }
    const HostCoo star = sorted_by_row(make_star(100001, 0, 5));
    const ChunkLayout layout = chunked_program_layout(static_cast<int>(star.nnz()), star.num_rows);
    CHECK(converts_like_one_piece(
        on_gpu(split_into_chunks(star, layout.input), layout.row_offsets, layout.output), star,
        layout.row_offsets, layout.output));
    const HostCoo no_entries = make_uniform_random(5, 0, 1);
    CHECK(
        converts_like_one_piece(on_gpu(split_into_chunks(no_entries, {0, 0, 0}), {3, 0, 3}, {0, 0}),
                                no_entries, {3, 0, 3}, {0, 0}));
    const HostCoo no_rows = make_uniform_random(0, 0, 1);
    const ChunkedConversion zero = on_gpu(split_into_chunks(no_rows, {}), {0, 1}, {});
    CHECK(zero.csr.row_offsets == std::vector<std::vector<int>>{{}, {0}});
}

TEST_CASE("121: the GPU refuses every bad input as the emulation does, outputs untouched",
          "[121][gpu]") {
    for (const BadCase& bad : bad_cases()) {
        INFO(bad.what);
        const ChunkedConversion got =
            on_gpu(bad.in, offsets_halved(bad.in.num_rows), bad.out_lengths);
        CHECK(got.verdict.first_bad == bad.first_bad);
        CHECK(got.verdict.refusal == bad.refusal);
        CHECK(untouched_since_poisoned(got.csr));
    }
    INFO("seed " << kSeed121);
    for (int i = 0; i < 200; ++i) {
        const HostCoo sorted = sorted_by_row(edge_case_graph(i, kSeed121 + 1));
        if (sorted.nnz() == 0) continue;
        SplitMix64 rng(mix_seed(kSeed121 + 1, i));
        const HostCoo bad = spoiled(sorted, rng);
        const std::vector<int> in_lengths = test_lengths(i % 5, static_cast<int>(bad.nnz()), rng);
        const std::vector<int> out_lengths = random_test_lengths(static_cast<int>(bad.nnz()), rng);
        CAPTURE(i, in_lengths, out_lengths);
        const ChunkedConversion got =
            on_gpu(split_into_chunks(bad, in_lengths), offsets_halved(bad.num_rows), out_lengths);
        REQUIRE(got.verdict.first_bad == first_bad_by_walking(bad));
        if (!got.verdict.holds()) REQUIRE(untouched_since_poisoned(got.csr));
    }
}
