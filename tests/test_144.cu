// Tests of 144 and request_model.h: the notes' table on Fig. 14.1; the tables' properties on random
// matrices (each entry read once, by the thread that owns it, in as many steps as the longest
// row); the per-request model against a second count taken from the table and against patterns
// whose sector counts are known; the strided index; the warp-per-row and ELL baselines; and the
// kernels, emulated in shuffled orders and on a GPU.
#include <catch2/catch.hpp>
#include <set>
#include <vector>
#include "../ch14_spmv/144_coalescing_kernel.cu"
#include "../ch14_spmv/proof/144_coalescing_kernel.cuh"
#include "data_files.h"
#include "edge_case_graphs.h"
#include "spmv_test_inputs.h"

namespace {

constexpr uint64_t kSeed144 = 144;

// Every entry of [0, num_elements) that `is_entry` marks appears exactly once in the table, and
// nothing else does.
bool table_reads_each_once(const AccessTable& table, const std::vector<char>& is_entry) {
    std::vector<int> seen(is_entry.size(), 0);
    for (const auto& step : table.reads)
        for (long long e : step) {
            if (e == kDone) continue;
            if (e < 0 || static_cast<size_t>(e) >= is_entry.size() || !is_entry[e]) return false;
            ++seen[e];
        }
    for (size_t e = 0; e < seen.size(); ++e)
        if (seen[e] != (is_entry[e] ? 1 : 0)) return false;
    return true;
}

// Once a thread is done it stays done: no thread skips a step and comes back.
bool threads_stop_for_good(const AccessTable& table) {
    for (size_t t = 0; t < table.num_threads; ++t)
        for (int i = 1; i < table.num_steps(); ++i)
            if (table.reads[i - 1][t] == kDone && table.reads[i][t] != kDone) return false;
    return true;
}

// The model recounted from a materialized table with std::set: requests are the (warp, step)
// pairs with an active lane; sectors the distinct element / 8 of each.
AccessStats recount(const AccessTable& table) {
    AccessStats s;
    for (size_t w = 0; w < table.num_threads; w += kWarpSize)
        for (const auto& step : table.reads) {
            std::set<long long> sectors;
            size_t active = 0;
            for (size_t t = w; t < std::min(table.num_threads, w + kWarpSize); ++t)
                if (step[t] != kDone) {
                    sectors.insert(step[t] / 8);
                    ++active;
                }
            if (active == 0) continue;
            ++s.requests;
            s.sectors += sectors.size();
            s.reads += active;
        }
    return s;
}

bool same_model(const AccessStats& a, const AccessStats& b) {
    return a.requests == b.requests && a.sectors == b.sectors && a.reads == b.reads;
}

// The row that stored entry e of the CSR belongs to, read from the row-sorted COO: both keep
// the input's order within a row, so entry e is the same entry in both.
std::vector<int> entry_rows(const HostCoo& input) {
    return sorted_by_row(input).rows;
}

}  // namespace

TEST_CASE("144: on Fig. 14.1 the CSR and COO tables are the notes'", "[144][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    REQUIRE(csr.row_offsets == kFigRowOffsets);
    CHECK(access_table(CsrThreadPerRow(csr.row_offsets)).reads == kNotesCsrAccessTable);
    CHECK(access_table(CooThreadPerEntry(csr.nnz())).reads == kNotesCooAccessTable);
}

TEST_CASE("144: warp per row and ELL on Fig. 14.1", "[144][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    // Warp r owns row r: lanes 0 .. len - 1 of warp r read the row's entries in one step.
    const AccessTable warps = access_table(CsrWarpPerRow(csr.row_offsets));
    REQUIRE(warps.num_steps() == 1);
    for (int r = 0; r < 4; ++r)
        for (int lane = 0; lane < kWarpSize; ++lane) {
            const int length = kFigRowOffsets[r + 1] - kFigRowOffsets[r];
            CHECK(warps.reads[0][kWarpSize * r + lane] ==
                  (lane < length ? kFigRowOffsets[r] + lane : kDone));
        }
    // ELL column-major, 4 rows: step i reads slots 4i .. 4i + 3 of the rows that are long enough.
    const std::vector<std::vector<long long>> expected = {
        {0, 1, 2, 3}, {4, 5, 6, kDone}, {kDone, 9, kDone, kDone}};
    CHECK(access_table(EllThreadPerRow(ell_from_csr(csr).nnz_per_row)).reads == expected);
}

TEST_CASE("144: tables on 1,200 random matrices: each entry once, by its owner, longest-row steps",
          "[144][emulation][random]") {
    INFO("seed " << kSeed144);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed144);
        CAPTURE(g, input.num_rows, input.nnz());
        const HostCsr csr = csr_from_coo_by_stable_sort(input);
        const std::vector<int> owner = entry_rows(input);
        const int longest = max_row_length(csr);
        const std::vector<char> every_entry(csr.nnz(), 1);

        const AccessTable rows = access_table(CsrThreadPerRow(csr.row_offsets));
        REQUIRE(rows.num_steps() == longest);
        REQUIRE(table_reads_each_once(rows, every_entry));
        REQUIRE(threads_stop_for_good(rows));
        for (const auto& step : rows.reads)
            for (size_t t = 0; t < rows.num_threads; ++t)
                if (step[t] != kDone) REQUIRE(owner[step[t]] == static_cast<int>(t));
        REQUIRE(same_model(access_stats(CsrThreadPerRow(csr.row_offsets)), recount(rows)));

        const AccessTable entries = access_table(CooThreadPerEntry(csr.nnz()));
        REQUIRE(entries.num_steps() == (csr.nnz() > 0 ? 1 : 0));
        REQUIRE(table_reads_each_once(entries, every_entry));
        REQUIRE(same_model(access_stats(CooThreadPerEntry(csr.nnz())), recount(entries)));

        const AccessTable warps = access_table(CsrWarpPerRow(csr.row_offsets));
        REQUIRE(warps.num_steps() == (longest + kWarpSize - 1) / kWarpSize);
        REQUIRE(table_reads_each_once(warps, every_entry));
        REQUIRE(threads_stop_for_good(warps));
        for (const auto& step : warps.reads)
            for (size_t t = 0; t < warps.num_threads; ++t)
                if (step[t] != kDone) REQUIRE(owner[step[t]] == static_cast<int>(t / kWarpSize));
        const AccessStats warp_stats = access_stats(CsrWarpPerRow(csr.row_offsets));
        REQUIRE(same_model(warp_stats, recount(warps)));
        REQUIRE(warp_stats.contiguous_fraction() == 1.0);

        const HostEll ell = ell_from_csr(csr);
        std::vector<char> used(ell.num_slots(), 0);
        for (size_t s = 0; s < used.size(); ++s) used[s] = ell.col_idx[s] != kEllPadding;
        const AccessTable ell_table = access_table(EllThreadPerRow(ell.nnz_per_row));
        REQUIRE(ell_table.num_steps() == longest);
        REQUIRE(table_reads_each_once(ell_table, used));
        for (const auto& step : ell_table.reads)
            for (size_t t = 0; t < ell_table.num_threads; ++t)
                if (step[t] != kDone) REQUIRE(step[t] % csr.num_rows == static_cast<long long>(t));
        const AccessStats ell_stats = access_stats(EllThreadPerRow(ell.nnz_per_row));
        REQUIRE(same_model(ell_stats, recount(ell_table)));
        REQUIRE(ell_stats.contiguous_fraction() == 1.0);
    }
}

TEST_CASE("144: the hub's 10^5-entry row is read once, in 10^5 steps or a 32nd of them",
          "[144][emulation][hub]") {
    const HostCsr star = csr_from_coo_by_stable_sort(make_star(100001, 0, kSeed144));
    const std::vector<char> every_entry(star.nnz(), 1);
    const AccessStats rows = access_stats(CsrThreadPerRow(star.row_offsets));
    const AccessStats warps = access_stats(CsrWarpPerRow(star.row_offsets));
    CHECK(reads_each_entry_once(CsrThreadPerRow(star.row_offsets), every_entry));
    CHECK(reads_each_entry_once(CsrWarpPerRow(star.row_offsets), every_entry));
    CHECK(rows.max_work == 100000);
    CHECK(rows.requests == 100000);  // the hub's warp: one lane busy in every step
    CHECK(warps.max_work == 3125);   // 100000 / 32
    CHECK(warps.requests == 3125);   // the other rows are empty and issue nothing
    CHECK(warps.sectors_per_request() == 4.0);
}

TEST_CASE("144: the sector model on patterns whose counts are known", "[144][emulation]") {
    // 64 threads reading 64 consecutive floats: two warps, four 32-byte sectors each.
    const AccessStats contiguous = access_stats(CooThreadPerEntry(64));
    CHECK(contiguous.requests == 2);
    CHECK(contiguous.sectors == 8);
    CHECK(contiguous.fetched_per_used() == 1.0);
    CHECK(contiguous.contiguous_fraction() == 1.0);

    // 32 rows of 8 entries, one thread per row: in step i lane t reads 8t + i, one sector per
    // lane, for 8 steps; one warp per row reads each row's 8 entries, one sector, in one step.
    std::vector<int> row_offsets(33);
    for (int r = 0; r <= 32; ++r) row_offsets[r] = 8 * r;
    const AccessStats strided = access_stats(CsrThreadPerRow(row_offsets));
    CHECK(strided.requests == 8);
    CHECK(strided.sectors == 256);
    CHECK(strided.sectors_per_request() == 32.0);
    CHECK(strided.fetched_per_used() == 8.0);
    CHECK(strided.contiguous_fraction() == 0.0);
    const AccessStats warps = access_stats(CsrWarpPerRow(row_offsets));
    CHECK(warps.requests == 32);
    CHECK(warps.sectors == 32);
    CHECK(warps.lanes_busy() == 0.25);
    // Per thread: lanes 0-7 of each warp one entry, lanes 8-31 none: mean 1/4, and the spread
    // sqrt(1/4 - 1/16) = sqrt(3)/4 is sqrt(3) times the mean.
    CHECK(warps.mean_work() == 0.25);
    CHECK(warps.work_cv() == Approx(std::sqrt(3.0)));
    CHECK(strided.mean_work() == 8.0);
    CHECK(strided.work_cv() == 0.0);

    // Stride s: a warp's reads span 4s sectors and touch min(4s, 32) of them.
    for (int stride : {1, 2, 4, 8, 16, 32, 64}) {
        CAPTURE(stride);
        CHECK(access_stats(StridedRead{stride, 12}).sectors_per_request() ==
              std::min(4 * stride, 32));
    }
}

TEST_CASE("144: the strided index reads every element exactly once, at every stride",
          "[144][emulation]") {
    for (int log2_length : {5, 6, 10, 12})
        for (int stride : {1, 2, 4, 8, 16, 32}) {
            if ((1 << log2_length) < stride) continue;
            CAPTURE(log2_length, stride);
            const size_t length = size_t{1} << log2_length;
            std::vector<int> reads(length, 0);
            for (size_t t = 0; t < length; ++t) {
                const size_t e = strided_index(t, stride, log2_length);
                REQUIRE(e < length);
                ++reads[e];
            }
            CHECK(std::count(reads.begin(), reads.end(), 1) == static_cast<long>(length));
            // Neighbouring threads are `stride` apart while they stay in one pass.
            if (static_cast<size_t>(stride) < length)
                CHECK(strided_index(1, stride, log2_length) -
                          strided_index(0, stride, log2_length) ==
                      static_cast<size_t>(stride));
        }
}

TEST_CASE("144: the warp-per-row and ELL baselines on Fig. 14.1, random matrices and the hub",
          "[144][random]") {
    INFO("seed " << kSeed144);
    const HostCsr fig = csr_from_coo_by_stable_sort(fig14_1());
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    std::vector<float> y_warp = y0, y_ell = y0;
    spmv_csr_warp_per_row_cpu(fig, x, y_warp);
    spmv_ell_cpu(ell_from_csr(fig), x, y_ell);
    CHECK(y_warp == book_product(x, y0));
    CHECK(y_ell == book_product(x, y0));
    std::vector<HostCoo> inputs = {make_star(100001, 0, kSeed144),
                                   make_uniform_random(50, 20000, kSeed144)};
    for (int g = 0; g < kSweepGraphs; ++g) inputs.push_back(edge_case_graph(g, kSeed144));
    for (size_t g = 0; g < inputs.size(); ++g) {
        CAPTURE(g, inputs[g].num_rows, inputs[g].nnz());
        const auto [csr, xg, y0g, reference] = spmv_case(inputs[g]);
        std::vector<float> y = y0g;
        spmv_csr_warp_per_row_cpu(csr, xg, y);
        REQUIRE(spmv_matches(y, reference));
        if (!ell_is_practical(csr)) continue;
        y = y0g;
        spmv_ell_cpu(ell_from_csr(csr), xg, y);
        REQUIRE(spmv_matches(y, reference));
    }
}

// The emulator runs the same float operations in the same order as the baselines' loops, so on
// the host the two agree bit for bit; only the GPU's fused multiply-adds may round otherwise.
TEST_CASE("144: the emulated warp-per-row and ELL kernels equal their baselines bit for bit",
          "[144][emulation][random]") {
    INFO("seed " << kSeed144);
    for (int g = 0; g < 300; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed144);
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed144, g)));
        std::vector<float> y_warp = y0, y_ell = y0;
        spmv_csr_warp_per_row_cpu(csr, x, y_warp);
        REQUIRE(spmv_on_device(here, launch_spmv_csr_warp_per_row, csr, x, y0) == y_warp);
        const HostEll ell = ell_from_csr(csr);
        spmv_ell_cpu(ell, x, y_ell);
        REQUIRE(spmv_on_device(here, launch_spmv_ell, ell, x, y0) == y_ell);
    }
}

TEST_CASE("144: the emulated CSR, COO and ELL bodies match the reference on random matrices",
          "[144][emulation][random]") {
    INFO("seed " << kSeed144);
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed144);
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed144, g)));
        REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_csr, csr, x, y0), reference));
        REQUIRE(spmv_matches(coo_spmv(here, sorted_by_row(input), x, y0), reference));
        REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_ell, ell_from_csr(csr), x, y0),
                             reference));
    }
}

TEST_CASE("144: the row-sorted COO holds the input's entries in CSR order", "[144][random]") {
    for (int g = 0; g < kSweepGraphs; ++g) {
        const HostCoo input = edge_case_graph(g, kSeed144);
        CAPTURE(g, input.num_rows, input.nnz());
        const HostCsr csr = csr_from_coo_by_stable_sort(input);
        const HostCoo coo = sorted_by_row(input);
        REQUIRE(coo.num_rows == input.num_rows);
        REQUIRE(coo.num_cols == input.num_cols);
        REQUIRE(coo.rows.size() == csr.nnz());
        for (int r = 0; r < csr.num_rows; ++r)
            for (int k = csr.row_offsets[r]; k < csr.row_offsets[r + 1]; ++k)
                REQUIRE(coo.rows[k] == r);
        REQUIRE(coo.cols == csr.col_idx);
        REQUIRE(coo.values == csr.values);
    }
}

TEST_CASE("144: ELL of Fig. 14.1 in shuffled orders gives the book's product", "[144][emulation]") {
    const HostEll ell = ell_from_csr(csr_from_coo_by_stable_sort(fig14_1()));
    const std::vector<float> x = lesson_x(4), y0 = varied_y0(4);
    // Every product and partial sum here is exact in float, so any order gives the same bits.
    for (uint64_t seed : {1u, 2u, 3u, 144u})
        CHECK(spmv_on_device(Here::emulated(ThreadOrder::shuffled(seed)), launch_spmv_ell, ell, x,
                             y0) == book_product(x, y0));
}

TEST_CASE("144: emulated ELL on the data files, where its padding is affordable",
          "[144][emulation][data]") {
    for (const std::string& name : readable_data_files()) {
        CAPTURE(name);
        const HostCoo input = read_data_file(name);
        const std::optional<HostEll> ell = ell_if_practical(csr_from_coo_by_stable_sort(input));
        if (!ell) continue;
        const std::vector<float> x = lesson_x(input.num_cols), y0 = lesson_y0(input.num_rows);
        CHECK(spmv_matches(spmv_on_device(Here::emulated(ThreadOrder::shuffled(kSeed144)),
                                          launch_spmv_ell, *ell, x, y0),
                           spmv_reference(input, x, y0)));
    }
}

TEST_CASE("144: on Fig. 14.1 each request touches one sector; ELL's 48 bytes span two",
          "[144][emulation]") {
    const HostCsr csr = csr_from_coo_by_stable_sort(fig14_1());
    const RequestModel m = model_requests(csr);
    CHECK(m.longest_row == 3);
    // Requests (and so sectors): 3 steps of one warp; 1; one per row's warp; 3 steps of one warp.
    CHECK(m.csr_rows.requests == 3);
    CHECK(m.coo_entries.requests == 1);
    CHECK(m.csr_warps.requests == 4);
    CHECK(m.ell_rows.requests == 3);
    for (const AccessStats* s : {&m.csr_rows, &m.coo_entries, &m.csr_warps, &m.ell_rows})
        CHECK(s->sectors == s->requests);
    // CSR's values: 8 floats, 32 bytes, one sector; ELL's values: 12 slots, 48 bytes, two sectors,
    // the second reached only in step 2 (slot 9).
    CHECK(array_extent(csr.nnz()) == "32 bytes, 1 sector");
    CHECK(array_extent(ell_from_csr(csr).num_slots()) == "48 bytes, 2 sectors");
    // 1138_bus is large enough that a strided request touches more than one sector.
    const RequestModel bus =
        model_requests(csr_from_coo_by_stable_sort(read_data_file("1138_bus.mtx")));
    CHECK(bus.csr_rows.sectors > bus.csr_rows.requests);
}

TEST_CASE("144: ELL is refused past 8x the CSR's bytes, never trimmed", "[144][emulation][hub]") {
    const HostCsr star = csr_from_coo_by_stable_sort(make_star(100001, 0, kSeed144));
    CHECK_FALSE(ell_is_practical(star));
    CHECK(ell_to_csr_bytes(star) > 8.0);
    CHECK(ell_is_practical(csr_from_coo_by_stable_sort(fig14_1())));
}

TEST_CASE("144: GPU kernels on Fig. 14.1, 200 random matrices, 0 rows and the hub",
          "[144][gpu][random]") {
    INFO("seed " << kSeed144);
    std::vector<HostCoo> inputs = {fig14_1(), make_uniform_random(0, 0, 1),
                                   make_star(100001, 0, kSeed144),
                                   // rows of about 400 entries: every lane of a warp per row loops
                                   make_uniform_random(50, 20000, kSeed144)};
    for (int g = 0; g < 200; ++g) inputs.push_back(edge_case_graph(g, kSeed144));
    for (size_t g = 0; g < inputs.size(); ++g) {
        const HostCoo& input = inputs[g];
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_csr_warp_per_row, csr, x, y0),
                             reference));
        REQUIRE(spmv_matches(spmv_on_device(Here::gpu(), launch_spmv_csr, csr, x, y0), reference));
        REQUIRE(spmv_matches(coo_spmv(Here::gpu(), input, x, y0), reference));
        if (ell_is_practical(csr))
            REQUIRE(spmv_matches(
                spmv_on_device(Here::gpu(), launch_spmv_ell, ell_from_csr(csr), x, y0), reference));
        REQUIRE(cudaGetLastError() == cudaSuccess);
    }
}

#ifdef __CUDACC__  // nvcc's launches, which only a build with the CUDA Toolkit has
TEST_CASE("144: the strided kernel reads the element that the index names", "[144][gpu]") {
    constexpr int kLog2 = 12;
    for (int stride : kStrides)
        for (size_t t : {size_t{0}, size_t{1}, size_t{777}, size_t{4095}}) {
            CAPTURE(stride, t);
            std::vector<float> data(size_t{1} << kLog2, 0.0f);
            data[strided_index(t, stride, kLog2)] = 7.0f;
            DeviceBuffer<float> d_data(data), sink(std::vector<float>{0.0f});
            strided_read_kernel<<<blocks_for(data.size()), kThreadsPerBlock>>>(
                d_data.data(), stride, kLog2, sink.data());
            CUDA_CHECK_LAUNCH();
            CHECK(sink.download()[0] == 7.0f);
        }
}
#endif

TEST_CASE("144: warp per row in the emulator, whose warps meet at each shuffle",
          "[144][emulation][random]") {
    INFO("seed " << kSeed144);
    std::vector<HostCoo> inputs = {fig14_1(), make_uniform_random(0, 0, 1),
                                   make_star(2001, 0, kSeed144),
                                   make_uniform_random(50, 20000, kSeed144)};
    for (int g = 0; g < 300; ++g) inputs.push_back(edge_case_graph(g, kSeed144));
    for (size_t g = 0; g < inputs.size(); ++g) {
        const HostCoo& input = inputs[g];
        CAPTURE(g, input.num_rows, input.nnz());
        const auto [csr, x, y0, reference] = spmv_case(input);
        const Here here = Here::emulated(ThreadOrder::shuffled(mix_seed(kSeed144, g)));
        REQUIRE(spmv_matches(spmv_on_device(here, launch_spmv_csr_warp_per_row, csr, x, y0),
                             reference));
    }
}
