// Tests of 124: CSR from an unsorted edge list by bucketing. The reference is the stable-sort CSR
// of common/, built without buckets or atomics; the offsets of the buckets are read off its
// row_offsets, and the rows compared as multisets with the input. The kernels cooperate within
// blocks: the emulator runs them on every machine, and the [gpu] tests on a GPU.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include "../ch21_csr/124_csr_bucketed_construction_kernel.cu"
#include "../ch21_csr/proof/124_csr_bucketed_construction_kernel.cuh"
#include "edge_case_graphs.h"
#include "run_program.h"
#include "emulated_here.h"

namespace {
constexpr uint64_t kSweepSeed = 124;
constexpr int kGpuSweepGraphs = 300;
const int64_t kMaxRows = static_cast<int64_t>(bucketed_row_limit().max_rows);

BucketLayout default_layout(const HostCoo& g, const Here& here) {
    return bucket_layout(g.num_rows, g.nnz(), bucket_caps(here));
}

// Every pass of the build where `here` runs it, against the baseline and the stable-sort CSR:
// the buckets' offsets as the sorted rows give them, each level's buckets holding the baseline's
// edges, the rows holding the input's, and the counters left at zero.
void require_passes_right(const HostCoo& g, const Here& here, const BucketLayout& layout) {
    REQUIRE(layout_fits(layout, BucketCaps{}));
    const HostCsr sorted = csr_from_coo_by_stable_sort(g);
    const BucketedCsr baseline = build_csr_bucketed_cpu(g, layout);
    const BucketedCsr built = build_csr_bucketed(here, g, layout);
    REQUIRE(built.bucket_offset.size() == static_cast<size_t>(layout.num_buckets) + 1);
    for (int b = 0; b <= layout.num_buckets; ++b)
        REQUIRE(built.bucket_offset[b] ==
                sorted.row_offsets[std::min(int64_t{b} << layout.row_shift, int64_t{g.num_rows})]);
    REQUIRE(same_level_multisets(built, baseline, baseline.csr, layout));
    REQUIRE(built.csr.row_offsets == sorted.row_offsets);
    REQUIRE(same_row_multisets(built.csr, g));
    REQUIRE(built.counters_cleared);
}

// A layout cut by hand: 2^row_shift rows a bucket, levels of at most 2^level_bits buckets, and
// chunks of `chunk_edges`, so that small graphs take two levels and split hubs.
BucketLayout layout_of(const HostCoo& g, int row_shift, int level_bits, int chunk_edges) {
    return bucket_layout(g.num_rows, row_shift, level_bits, chunk_edges);
}

int hub_buckets(const BucketedCsr& b, const BucketLayout& layout) {
    int hubs = 0;
    for (int k = 0; k < layout.num_buckets; ++k)
        hubs += b.bucket_offset[k + 1] - b.bucket_offset[k] > layout.chunk_edges;
    return hubs;
}

}  // namespace

TEST_CASE("124: the CPU baseline keeps arrival order: its CSR is a stable sort by source",
          "[124]") {
    CAPTURE(kSweepSeed);
    const HostCoo book = book_example_edges();
    const BucketedCsr b = build_csr_bucketed_cpu(book, bucket_layout(6, book.nnz(), BucketCaps{}));
    CHECK(b.csr.row_offsets == kBookRowOffsets);
    CHECK(b.csr.col_idx == kBookColIdx);
    CHECK(b.csr.values == kBookWeights);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        for (const BucketLayout& layout :
             {bucket_layout(g.num_rows, g.nnz(), BucketCaps{}), layout_of(g, 1, 3, 4)}) {
            const HostCsr baseline = build_csr_bucketed_cpu(g, layout).csr;
            REQUIRE(same_slots(baseline, csr_from_coo_by_stable_sort(g)));
        }
    }
}

TEST_CASE("124: every row falls in one bucket, and pass 2 takes as few levels as it can",
          "[124]") {
    for (int64_t rows : std::vector<int64_t>{0, 1, 2, 6, 1000, 65536, 1 << 22, (1 << 22) + 1,
                                             1 << 24, kMaxRows}) {
        for (size_t edges : {size_t{0}, size_t{1000}, size_t(16 * rows)}) {
            CAPTURE(rows, edges);
            const BucketLayout layout = bucket_layout(static_cast<int>(rows), edges, BucketCaps{});
            REQUIRE(layout_fits(layout, BucketCaps{}));
            CHECK(int64_t{layout.num_buckets} * layout.rows_per_bucket() >= rows);
            if (rows > 0) CHECK(int64_t{layout.num_buckets - 1} * layout.rows_per_bucket() < rows);
            CHECK(layout.level_bits <= kMaxLevelBits);
            if (rows > static_cast<int64_t>(kPrintLimit) || edges > kPrintLimit)
                CHECK(layout.levels ==
                      (layout.num_buckets <= 1 ? 0 : layout.num_buckets <= 256 ? 1 : 2));
            CHECK((int64_t{1} << (layout.level_bits * layout.levels)) >= layout.num_buckets);
            CHECK(layout.rows_per_bucket() * 8 <= 128 * 1024);
        }
    }
    // Scale 22: the average bucket fits a chunk (0.8 of 8,192 edges), so 256 rows and two levels.
    const BucketLayout scale22 = bucket_layout(1 << 22, size_t{16} << 22, BucketCaps{});
    CHECK(scale22.rows_per_bucket() == 256);
    CHECK(scale22.num_buckets == 16384);
    CHECK(scale22.levels == 2);
    CHECK(scale22.level_bits == 7);
    // Few edges a row: buckets as large as pass 3's counters take, and one level up to 2^22 rows.
    const BucketLayout sparse = bucket_layout(1 << 22, 1000, BucketCaps{});
    CHECK(sparse.rows_per_bucket() == 16384);
    CHECK(sparse.levels == 1);
    CHECK(bucket_layout((1 << 22) + 1, 1000, BucketCaps{}).levels == 2);
    CHECK_FALSE(layout_fits(
        bucket_layout(static_cast<int>(kMaxRows + 1), 1000, BucketCaps{}), BucketCaps{}));
}

TEST_CASE("124: a smaller GPU's shared memory gives smaller chunks and buckets, each pass within it",
          "[124][limits]") {
    struct Expected {
        size_t shared;
        int chunk_edges, max_row_shift, max_buckets;
    };
    // 48 KB, a T4's 64 KB, an RTX's 99 KB and an H200's 227 KB.
    for (const Expected& e : std::vector<Expected>{{48 * 1024, 1024, 12, 8192},
                                                    {64 * 1024, 2048, 12, 16384},
                                                    {99 * 1024, 4096, 12, 16384},
                                                    {227 * 1024, 8192, 14, 16384}}) {
        CAPTURE(e.shared);
        const BucketCaps caps = bucket_caps(e.shared);
        CHECK(caps.chunk_edges == e.chunk_edges);
        CHECK(caps.max_row_shift == e.max_row_shift);
        CHECK(caps.max_buckets == e.max_buckets);
        for (int64_t rows : std::vector<int64_t>{1, 1000, 1 << 18, 1 << 22, 1 << 24}) {
            for (size_t edges : {size_t{1000}, size_t(16 * rows)}) {
                CAPTURE(rows, edges);
                const BucketLayout layout = bucket_layout(static_cast<int>(rows), edges, caps);
                REQUIRE(layout_fits(layout, caps));
                CHECK(count_buckets_shared_bytes(layout.num_buckets) <= e.shared);
                CHECK(partition_level_shared_bytes(layout.level_bits) <= e.shared);
                CHECK(count_hub_rows_shared_bytes(layout.rows_per_bucket()) <= e.shared);
                CHECK(place_chunk_shared_bytes(layout.rows_per_bucket(), layout.chunk_edges) <=
                      e.shared);
            }
        }
    }
    // The H200's caps are the largest of each, which the hand-cut layouts above assume.
    const BucketCaps h200 = bucket_caps(227 * 1024);
    CHECK(h200.chunk_edges == BucketCaps{}.chunk_edges);
    CHECK(h200.max_row_shift == BucketCaps{}.max_row_shift);
    CHECK(h200.max_buckets == BucketCaps{}.max_buckets);
}

TEST_CASE("124: the staged buckets are compared bucket by bucket", "[124]") {
    const HostCoo g = make_uniform_random(200, 3000, 17);
    const BucketLayout layout = layout_of(g, 3, 3, 64);
    REQUIRE(layout.levels == 2);
    const BucketedCsr baseline = build_csr_bucketed_cpu(g, layout);
    CHECK(same_level_multisets(baseline, baseline, baseline.csr, layout));
    for (int level = 0; level < 2; ++level) {
        CAPTURE(level);
        BucketedCsr moved = baseline;  // the same edges, one moved into the next bucket's slice
        HostCoo& staged = moved.levels[level];
        const int next = layout.level_start(baseline.bucket_offset.data(), level, 1);
        REQUIRE(next > 0);
        REQUIRE(next < static_cast<int>(g.nnz()));
        std::swap(staged.rows[0], staged.rows[next]);
        std::swap(staged.cols[0], staged.cols[next]);
        std::swap(staged.values[0], staged.values[next]);
        CHECK_FALSE(same_level_multisets(moved, baseline, baseline.csr, layout));
        BucketedCsr reweighted = baseline;  // the right buckets, one weight changed
        reweighted.levels[level].values[5] += 1;
        CHECK_FALSE(same_level_multisets(reweighted, baseline, baseline.csr, layout));
    }
}

TEST_CASE("124: a file with more rows than the buckets take is refused at its size line",
          "[124][hostile]") {
    // The buckets take 2^28 rows, the suite's limit for any file: the size line is refused
    // with that limit, one line, before anything is allocated.
    REQUIRE(kMaxRows == 268435456);
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("suite_124_tall_" + std::to_string(getpid()) + ".mtx"))
            .string();
    {
        std::ofstream f(path);
        f << "%%MatrixMarket matrix coordinate real general\n% tall\n300000000 3 1\n1 1 1\n";
    }
    const ProgramRun run = run_program("124_csr_bucketed_construction_kernel", {"--matrix", path});
    std::filesystem::remove(path);
    CHECK(run.exit_code == 2);
    CHECK(run.err.rfind("error: " + path + ":3: ", 0) == 0);
    CHECK(run.err.find("268435456 rows") != std::string::npos);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
}

TEST_CASE("124: an empty file and a bad line are refused with the file and the line",
          "[124][hostile]") {
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("suite_124_bad_" + std::to_string(getpid()) + ".mtx"))
            .string();
    for (const std::string& text :
         {std::string(""), std::string("%%MatrixMarket matrix coordinate real general\n"
                                       "3 3 2\n1 1 1\n4 1 1\n")}) {
        CAPTURE(text);
        {
            std::ofstream f(path);
            f << text;
        }
        const ProgramRun run =
            run_program("124_csr_bucketed_construction_kernel", {"--matrix", path});
        CHECK(run.exit_code == 2);
        CHECK(run.err.rfind("error: " + path + ":", 0) == 0);
        CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    }
    std::filesystem::remove(path);
}

TEST_CASE("124 emulated: the book's example and the edge-case sweep, pass by pass",
          "[124][emulation][random]") {
    CAPTURE(kSweepSeed);
    const HostCoo book = book_example_edges();
    const Here here = emulated(1);
    CHECK(build_csr_bucketed(here, book, default_layout(book, here)).csr.row_offsets ==
          kBookRowOffsets);
    // Each of the sweep's kinds of graph occurs within its first 100; a printable graph is cut
    // in two levels, and a larger one as the program cuts it.
    for (int i = 0; i < 100; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const Here order = emulated(mix_seed(kSweepSeed, i));
        require_passes_right(g, order, default_layout(g, order));
        require_passes_right(g, order, layout_of(g, 1, 3, 4));
    }
}

TEST_CASE("124 emulated: one level, two levels, and hub buckets split across blocks",
          "[124][emulation]") {
    const HostCoo uniform = make_uniform_random(20003, 60000, 31);
    const BucketLayout one = default_layout(uniform, emulated(2));
    REQUIRE(one.levels == 1);
    require_passes_right(uniform, emulated(2), one);
    const BucketLayout two = layout_of(uniform, 7, 4, 1024);
    REQUIRE(two.levels == 2);
    require_passes_right(uniform, emulated(3), two);

    const HostCoo star = make_star(5001, 77, 7);
    const BucketLayout split = layout_of(star, 8, 8, 512);
    REQUIRE(hub_buckets(build_csr_bucketed_cpu(star, split), split) == 1);
    require_passes_right(star, emulated(4), split);

    HostCoo empty;
    empty.num_rows = empty.num_cols = 5;
    require_passes_right(empty, emulated(5), default_layout(empty, emulated(5)));
}

TEST_CASE("124 emulated: R-MAT graphs whose hubs crowd a few buckets", "[124][emulation]") {
    for (double skew : {0.25, 0.57, 0.8, 0.95}) {
        CAPTURE(skew);
        const HostCoo g = make_rmat(11, kEdgeFactor, skew, 5);
        require_passes_right(g, emulated(6), default_layout(g, emulated(6)));
        const BucketLayout cut = layout_of(g, 4, 4, 256);
        REQUIRE(cut.levels == 2);
        if (skew >= 0.8) REQUIRE(hub_buckets(build_csr_bucketed_cpu(g, cut), cut) > 0);
        require_passes_right(g, emulated(7), cut);
    }
}

TEST_CASE("124 on the GPU: the book's example and the edge-case sweep", "[124][gpu][random]") {
    CAPTURE(kSweepSeed);
    const HostCoo book = book_example_edges();
    CHECK(build_csr_bucketed(Here::gpu(), book, default_layout(book, Here::gpu()))
              .csr.row_offsets == kBookRowOffsets);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_passes_right(g, Here::gpu(), default_layout(g, Here::gpu()));
        require_passes_right(g, Here::gpu(), layout_of(g, 1, 3, 4));
    }
}

TEST_CASE("124 on the GPU: one level, two levels, hubs split, and no edges", "[124][gpu]") {
    const Here gpu = Here::gpu();
    const HostCoo star = make_star(100001, 77, 7);
    require_passes_right(star, gpu, default_layout(star, gpu));
    const HostCoo tall = make_uniform_random((1 << 22) + 3, 5 * kTileEdges + 17, 31);
    const BucketLayout two = default_layout(tall, gpu);
    REQUIRE(two.levels == 2);
    require_passes_right(tall, gpu, two);
    const HostCoo uniform = make_uniform_random(1 << 20, 16 << 20, 33);
    require_passes_right(uniform, gpu, default_layout(uniform, gpu));
    for (int rows : {0, 1, 5, 5000}) {
        CAPTURE(rows);
        HostCoo empty;
        empty.num_rows = empty.num_cols = rows;
        require_passes_right(empty, gpu, default_layout(empty, gpu));
    }
}

TEST_CASE("124 on the GPU: R-MAT graphs whose hubs crowd a few buckets", "[124][gpu]") {
    for (double skew : {0.25, 0.57, 0.8, 0.95}) {
        CAPTURE(skew);
        const HostCoo g = make_rmat(16, kEdgeFactor, skew, 5);
        require_passes_right(g, Here::gpu(), default_layout(g, Here::gpu()));
        require_passes_right(g, Here::gpu(), layout_of(g, 8, 4, 1024));
    }
}
