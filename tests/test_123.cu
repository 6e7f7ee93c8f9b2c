// Tests of 123: CSR from an unsorted edge list, binned. The reference is the stable-sort CSR of
// common/, built without bins or atomics. The kernels cooperate within blocks: the emulator runs
// them on every machine (blocks of fibers in shuffled orders), and the [gpu] tests on a GPU.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include "../ch21_csr/123_csr_binned_construction_kernel.cu"
#include "edge_case_graphs.h"
#include "run_program.h"

namespace {
constexpr uint64_t kSweepSeed = 123;
constexpr int kGpuSweepGraphs = 300;

HostCsr binned_csr(const HostCoo& edges, const Here& here = Here::gpu()) {
    const DeviceCoo d(here, edges);
    BinnedBuild build(here, edges.num_rows, edges.num_cols, edges.nnz());
    build.run(d);
    return build.grouping.grouped.download();
}

void require_correct_build(const HostCsr& built, const HostCoo& g) {
    const HostCsr baseline = csr_from_coo_by_stable_sort(g);
    REQUIRE(built.row_offsets == baseline.row_offsets);
    REQUIRE(same_row_multisets(built, g));
}
}  // namespace

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
        (std::filesystem::temp_directory_path() / "suite_123_tall.mtx").string();
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
}

TEST_CASE("123 on the GPU: the edge-case sweep (no vertices, no edges, loops, duplicates)",
          "[123][gpu][random]") {
    CAPTURE(kSweepSeed);
    for (int i = 0; i < kGpuSweepGraphs; ++i) {
        INFO("graph " << i);
        const HostCoo g = edge_case_graph(i, kSweepSeed);
        require_correct_build(binned_csr(g), g);
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
        require_correct_build(
            binned_csr(g, Here::emulated(ThreadOrder::shuffled(mix_seed(kSweepSeed, i)))), g);
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
