// Tests of 123: CSR from an unsorted edge list, binned. The reference is the stable-sort CSR of
// common/, built without bins or atomics. The kernels cooperate within blocks: the emulator runs
// them on every machine (blocks of fibers in shuffled orders), and the [gpu] tests on a GPU.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include "../ch21_csr/123_csr_binned_construction_kernel.cu"
#include "../ch21_csr/proof/123_csr_binned_construction_kernel.cuh"
#include "edge_case_graphs.h"
#include "run_program.h"

namespace {
constexpr uint64_t kSweepSeed = 123;
constexpr int kGpuSweepGraphs = 300;

HostCsr binned_csr(const HostCoo& edges, const Here& here = Here::gpu()) {
    return build_csr_binned(here, edges).csr;
}

void require_correct_build(const HostCsr& built, const HostCoo& g) {
    const HostCsr baseline = csr_from_coo_by_stable_sort(g);
    REQUIRE(built.row_offsets == baseline.row_offsets);
    REQUIRE(same_row_multisets(built, g));
}

// The kernels' bins after 3a hold the baseline's edges, and their CSR is right.
void require_binned_like_baseline(const HostCoo& g, const Here& here) {
    const BinLayout layout = bin_layout(g.num_rows);
    const BinnedCsr baseline = build_csr_binned_cpu(g, layout);
    const BinnedCsr built = build_csr_binned(here, g);
    REQUIRE(same_bin_multisets(built.binned, baseline.binned, layout, baseline.csr.row_offsets));
    require_correct_build(built.csr, g);
}
}  // namespace

TEST_CASE("123: the CPU baseline keeps arrival order: its CSR is a stable sort by source",
          "[123]") {
    CAPTURE(kSweepSeed);
    const BinnedCsr book = build_csr_binned_cpu(book_example_edges(), bin_layout(6));
    CHECK(book.binned.rows == std::vector<int>{0, 1, 0, 1, 2, 3, 2, 3, 4});
    CHECK(book.csr.col_idx == kBookColIdx);
    CHECK(book.csr.values == kBookWeights);
    for (int i = 0; i < kSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        const HostCsr baseline = build_csr_binned_cpu(g, bin_layout(g.num_rows)).csr;
        const HostCsr sorted = csr_from_coo_by_stable_sort(g);
        REQUIRE(baseline.row_offsets == sorted.row_offsets);
        REQUIRE(baseline.col_idx == sorted.col_idx);
        REQUIRE(baseline.values == sorted.values);
    }
}

TEST_CASE("123: the staged bins are compared bin by bin", "[123]") {
    const HostCoo g = make_uniform_random(200, 3000, 17);
    const BinLayout layout = bin_layout(g.num_rows);
    REQUIRE(layout.num_bins > 2);
    const BinnedCsr baseline = build_csr_binned_cpu(g, layout);
    HostCoo swapped = baseline.binned;  // the same edges, one moved into the next bin's slice
    const int next_bin_start = baseline.csr.row_offsets[layout.rows_per_bin()];
    REQUIRE(next_bin_start > 0);
    REQUIRE(next_bin_start < static_cast<int>(g.nnz()));
    std::swap(swapped.rows[0], swapped.rows[next_bin_start]);
    std::swap(swapped.cols[0], swapped.cols[next_bin_start]);
    std::swap(swapped.values[0], swapped.values[next_bin_start]);
    CHECK(same_bin_multisets(baseline.binned, baseline.binned, layout, baseline.csr.row_offsets));
    CHECK_FALSE(same_bin_multisets(swapped, baseline.binned, layout, baseline.csr.row_offsets));
}

TEST_CASE("123: every row falls in exactly one bin, and the bins fit in shared memory", "[123]") {
    for (int64_t rows : std::vector<int64_t>{0, 1, 2, 6, 1000, 65536, 1 << 22, (1 << 22) + 1,
                                             1 << 24, kMaxBinnedRows}) {
        CAPTURE(rows);
        const BinLayout layout = bin_layout(static_cast<int>(rows));
        REQUIRE(layout.fits());
        CHECK(int64_t{layout.num_bins} * layout.rows_per_bin() >= rows);
        if (rows > 0) CHECK(int64_t{layout.num_bins - 1} * layout.rows_per_bin() < rows);
        CHECK(layout.rows_per_bin() * sizeof(int) <= 32 * 1024);
        CHECK(2 * layout.num_bins * sizeof(int) <= 32 * 1024);
    }
    CHECK(bin_layout(6).num_bins == 3);
    CHECK(bin_layout(1 << 22).rows_per_bin() == 2048);
    CHECK_FALSE(bin_layout(static_cast<int>(kMaxBinnedRows + 1)).fits());
}

TEST_CASE("123: a file with more rows than the bins take is refused at its size line",
          "[123][hostile]") {
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("suite_123_tall_" + std::to_string(getpid()) + ".mtx"))
            .string();
    {
        std::ofstream f(path);
        f << "%%MatrixMarket matrix coordinate real general\n% tall\n40000000 3 1\n1 1 1\n";
    }
    const ProgramRun run = run_program("123_csr_binned_construction_kernel", {"--matrix", path});
    std::filesystem::remove(path);
    CHECK(run.exit_code == 2);
    CHECK(run.err == "error: " + path +
                         ":3: the binned build takes at most 33,554,432 rows (4,096 bins of "
                         "8,192); this input has 40,000,000 rows\n");
}

TEST_CASE("123 on the GPU: the book's example", "[123][gpu]") {
    const HostCoo edges = book_example_edges();
    const HostCsr built = binned_csr(edges);
    CHECK(built.row_offsets == kBookRowOffsets);
    CHECK(same_row_multisets(built, edges));
    require_binned_like_baseline(edges, Here::gpu());
}

TEST_CASE("123 on the GPU: the edge-case sweep (no vertices, no edges, loops, duplicates)",
          "[123][gpu][random]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_binned_like_baseline(g, Here::gpu());
    }
}

TEST_CASE("123 on the GPU: one hub with 10^5 edges, all in one bin and one row", "[123][gpu]") {
    const HostCoo star = make_star(100001, 77, 7);
    require_correct_build(binned_csr(star), star);
}

TEST_CASE("123 on the GPU: many tiles and many bins, the last tile and the last bin partial",
          "[123][gpu]") {
    const HostCoo g = make_uniform_random((1 << 20) + 3, 5 * kTileEdges + 17, 31);
    REQUIRE(bin_layout(g.num_rows).num_bins > 1000);
    require_correct_build(binned_csr(g), g);
}

TEST_CASE("123 on the GPU: R-MAT graphs whose hubs crowd a few bins", "[123][gpu]") {
    for (double skew : {0.25, 0.57, 0.8, 0.95}) {
        CAPTURE(skew);
        const HostCoo g = make_rmat(14, kEdgeFactor, skew, 5);
        require_correct_build(binned_csr(g), g);
    }
}

TEST_CASE("123 on the GPU: vertices but no edges, and no vertices at all", "[123][gpu]") {
    for (int rows : {0, 1, 5, 5000}) {
        CAPTURE(rows);
        HostCoo empty;
        empty.num_rows = empty.num_cols = rows;
        const HostCsr built = binned_csr(empty);
        CHECK(built.row_offsets == std::vector<int>(rows + 1, 0));
        CHECK(built.nnz() == 0);
    }
}

TEST_CASE("123 emulated: the book's example, the edge-case sweep, a hub, many bins, no edges",
          "[123][emulation][random]") {
    CAPTURE(kSweepSeed);
    const HostCoo book = book_example_edges();
    CHECK(binned_csr(book, Here::emulated(ThreadOrder::shuffled(1))).row_offsets ==
          kBookRowOffsets);
    // Each of the sweep's kinds of graph occurs within its first 100.
    for (int i = 0; i < 100; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_binned_like_baseline(
            g, Here::emulated(ThreadOrder::shuffled(mix_seed(kSweepSeed, i))));
    }
    const HostCoo star = make_star(5001, 77, 7);
    require_correct_build(binned_csr(star, Here::emulated(ThreadOrder::shuffled(2))), star);
    const HostCoo many = make_uniform_random(20003, kTileEdges + 17, 31);
    REQUIRE(bin_layout(many.num_rows).num_bins > 100);
    require_correct_build(binned_csr(many, Here::emulated(ThreadOrder::shuffled(3))), many);
    HostCoo empty;
    empty.num_rows = empty.num_cols = 5;
    CHECK(binned_csr(empty, Here::emulated(ThreadOrder::shuffled(4))).row_offsets ==
          std::vector<int>(6, 0));
}
