// Tests of --figure-data, the JSON that make figures draws: each program that writes it is run
// on the book's example as a user would, and its JSON is held to facts found without it: the
// book's arrays, the edges counted here, the notes' access table and request_model.h's model of
// the mappings, the merge path's shape (every thread as long as the others but the last, a path
// that takes every nonzero and every row end once), and a degree histogram counted here from the
// generator. The option itself: offered only where --help lists it, the book's example only.
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>
#include <vector>
// 144's lesson: the mappings whose access maps 144 writes
#include "../ch14_spmv/144_coalescing_kernel.cu"
#include "../ch14_spmv/chapter_inputs.h"
#include "../ch14_spmv/request_model.h"
#include "../ch21_csr/chapter_inputs.h"
#include "json_reader.h"
#include "run_program.h"

using Catch::Matchers::Contains;

namespace {

std::string figure_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("suite_figure_" + std::to_string(getpid()) + "_" + name + ".json"))
        .string();
}

// The program run with --figure-data on the book's example: it must confirm its claims and write
// a JSON document, which is returned; the file is removed.
Json figure_of(const std::string& program, std::vector<std::string> args,
               ProgramRun* run_out = nullptr) {
    const std::string path = figure_path(program.substr(0, 3));
    args.insert(args.end(), {"--figure-data", path});
    const ProgramRun run = run_program(program, args);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Contains("figure data: written to " + path));
    const std::string text = slurp(path);
    std::remove(path.c_str());
    if (run_out) *run_out = run;
    return read_json(text);
}

std::vector<std::pair<int, int>> slices_of(const Json& slices) {
    std::vector<std::pair<int, int>> out;
    for (const Json& s : slices.items)
        out.emplace_back(static_cast<int>(s["begin"].whole()), static_cast<int>(s["end"].whole()));
    return out;
}

// The slices tile [0, nnz) in order, and slice v is [offsets[v], offsets[v + 1]).
void check_slices_follow_offsets(const std::vector<std::pair<int, int>>& slices,
                                 const std::vector<int>& offsets, size_t nnz) {
    REQUIRE(slices.size() + 1 == offsets.size());
    int next = 0;
    for (size_t v = 0; v < slices.size(); ++v) {
        CAPTURE(v);
        CHECK(slices[v].first == next);
        CHECK(slices[v].first == offsets[v]);
        CHECK(slices[v].second == offsets[v + 1]);
        next = slices[v].second;
    }
    CHECK(static_cast<size_t>(next) == nnz);
}

// "name = [ 0 2 4 ]" as the program printed it, the first such line.
std::vector<int> printed_array(const std::string& out, const std::string& name) {
    const size_t at = out.find(name + " = [ ");
    REQUIRE(at != std::string::npos);
    std::vector<int> values;
    size_t pos = at + name.size() + 5;
    while (out[pos] != ']') {
        size_t used = 0;
        values.push_back(std::stoi(out.substr(pos), &used));
        pos += used + 1;
    }
    return values;
}

// Each vertex's partners, in the edges' arrival order: out-neighbours keyed on the source,
// in-neighbours keyed on the destination.
std::vector<std::vector<int>> partners_in_arrival_order(const std::vector<int>& key,
                                                        const std::vector<int>& partner,
                                                        int vertices) {
    std::vector<std::vector<int>> lists(vertices);
    for (size_t e = 0; e < key.size(); ++e) lists[key[e]].push_back(partner[e]);
    return lists;
}

std::vector<int> offsets_of(const std::vector<std::vector<int>>& lists) {
    std::vector<int> offsets = {0};
    for (const auto& list : lists)
        offsets.push_back(offsets.back() + static_cast<int>(list.size()));
    return offsets;
}

}  // namespace

TEST_CASE("figure data: 112's CSR and each vertex's slice", "[figure-data][112]") {
    ProgramRun run;
    const Json d = figure_of("112_csr_conversion_cpu_baseline", {}, &run);
    const HostCoo edges = book_example_edges();
    CHECK(d["program"].text == "112");
    CHECK(d["input"].text == "book");
    const std::vector<int> row_offsets = d["row_offsets"].wholes<int>();
    CHECK(row_offsets == kBookRowOffsets);
    CHECK(row_offsets == printed_array(run.out, "row_offsets"));
    check_slices_follow_offsets(slices_of(d["slices"]), row_offsets, edges.nnz());
    const auto out_neighbours = partners_in_arrival_order(edges.rows, edges.cols, edges.num_rows);
    REQUIRE(d["adjacency"].size() == out_neighbours.size());
    const std::vector<int> col_idx = d["col_idx"].wholes<int>();
    for (size_t v = 0; v < out_neighbours.size(); ++v) {
        CAPTURE(v);
        CHECK(d["adjacency"][v].wholes<int>() == out_neighbours[v]);
        CHECK(std::vector<int>(col_idx.begin() + row_offsets[v],
                               col_idx.begin() + row_offsets[v + 1]) == out_neighbours[v]);
    }
}

TEST_CASE("figure data: the option is the book's example's, and --help lists it where offered",
          "[figure-data]") {
    CHECK_THAT(run_program("112_csr_conversion_cpu_baseline", {"--help"}).out,
               Contains("--figure-data FILE"));
    const ProgramRun not_offered =
        run_program("114_csr_construction_cpu_baseline", {"--figure-data", figure_path("114")});
    CHECK(not_offered.exit_code == 2);
    CHECK_THAT(not_offered.err, Contains("unknown argument '--figure-data'"));
    CHECK_THAT(run_program("114_csr_construction_cpu_baseline", {"--help"}).out,
               !Contains("--figure-data"));
    const ProgramRun unwritable = run_program("112_csr_conversion_cpu_baseline",
                                              {"--figure-data", "/nonexistent-folder/figure.json"});
    CHECK(unwritable.exit_code == 2);
    CHECK_THAT(unwritable.err, Contains("--figure-data /nonexistent-folder/figure.json: cannot "
                                        "write it"));
}

TEST_CASE("figure data: the degree histogram is the generator's graph counted", "[figure-data]") {
    for (const auto& [flags, params] :
         {std::pair{std::vector<std::string>{"--skew", "0.8"}, RmatParams::from_skew(0.8)},
          std::pair{std::vector<std::string>{"--rmat", "0.57,0.19,0.19"},
                    RmatParams::graph500()}}) {
        std::vector<std::string> args = {"--scale", "10"};
        args.insert(args.end(), flags.begin(), flags.end());
        const Json d = figure_of("degree_histogram", args);
        CHECK(d["rmat"].text == params.text());
        CHECK(d["scale"].whole() == 10);
        const HostCoo g = make_rmat(10, kEdgeFactor, params, kMatrixSeed);
        std::vector<int> length(g.num_rows, 0);
        for (int r : g.rows) ++length[r];
        std::map<int, long long> expected;
        for (int n : length) ++expected[n];
        const std::vector<int> lengths = d["row_length"].wholes<int>();
        const std::vector<long long> counts = d["rows_of_length"].wholes<long long>();
        REQUIRE(lengths.size() == counts.size());
        std::map<int, long long> written;
        long long rows = 0, entries = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
            written[lengths[i]] = counts[i];
            rows += counts[i];
            entries += lengths[i] * counts[i];
        }
        CHECK(written == expected);
        CHECK(std::is_sorted(lengths.begin(), lengths.end()));
        CHECK(rows == 1024);
        CHECK(entries == 1024 * kEdgeFactor);
    }
    const ProgramRun at_book = run_program("degree_histogram", {"--figure-data", figure_path("d")});
    CHECK(at_book.exit_code == 0);
    std::remove(figure_path("d").c_str());
}

TEST_CASE("figure data: a book-only option refuses --scale", "[figure-data]") {
    const ProgramRun run =
        run_program("144_coalescing_kernel", {"--scale", "4", "--figure-data", figure_path("x")});
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Contains("--figure-data draws the book's example"));
    CHECK_THAT(run_program("113_csr_neighbor_sum_kernel", {"--help"}).out,
               !Contains("--figure-data"));
}

TEST_CASE("figure data: 118's CSC and each vertex's slice of both", "[figure-data][118]") {
    ProgramRun run;
    const Json d = figure_of("118_csc_construction_kernel", {"--order", "A"}, &run);
    const HostCoo edges = book_example_edges();
    const Json& csr = d["csr"];
    const Json& csc = d["csc"];
    CHECK(csr["row_offsets"].wholes<int>() == printed_array(run.out, "row_offsets"));
    check_slices_follow_offsets(slices_of(csr["slices"]), kBookRowOffsets, edges.nnz());
    CHECK(csr["col_idx"].wholes<int>() == kBookColIdx);

    const auto in_neighbours = partners_in_arrival_order(edges.cols, edges.rows, edges.num_cols);
    const std::vector<int> col_offsets = csc["col_offsets"].wholes<int>();
    CHECK(col_offsets == offsets_of(in_neighbours));
    CHECK(col_offsets == printed_array(run.out, "col_offsets"));
    check_slices_follow_offsets(slices_of(csc["slices"]), col_offsets, edges.nnz());
    std::vector<int> in_degree;
    for (const auto& list : in_neighbours) in_degree.push_back(static_cast<int>(list.size()));
    CHECK(csc["in_degree"].wholes<int>() == in_degree);
    // In order A the scatter's threads take their column's slots in arrival order.
    const std::vector<int> row_idx = csc["row_idx"].wholes<int>();
    const std::vector<int> weights = csc["weights"].wholes<int>();
    for (int v = 0; v < edges.num_cols; ++v) {
        CAPTURE(v);
        CHECK(std::vector<int>(row_idx.begin() + col_offsets[v],
                               row_idx.begin() + col_offsets[v + 1]) == in_neighbours[v]);
        for (int k = col_offsets[v]; k < col_offsets[v + 1]; ++k) {
            bool is_an_edge = false;
            for (size_t e = 0; e < edges.nnz(); ++e)
                is_an_edge = is_an_edge || (edges.rows[e] == row_idx[k] && edges.cols[e] == v &&
                                            edges.values[e] == weights[k]);
            CHECK(is_an_edge);
        }
    }
}

TEST_CASE("figure data: 144's access maps are its mappings'", "[figure-data][144]") {
    const Json d = figure_of("144_coalescing_kernel", {});
    const HostCsr a = csr_from_coo_by_stable_sort(fig14_1());
    CHECK(d["row_offsets"].wholes<int>() == kFigRowOffsets);
    const std::vector<int> lengths = row_lengths(a);
    const auto reads_of = [](const Json& map) {
        std::vector<std::vector<long long>> reads;
        for (const Json& step : map["reads"].items) reads.push_back(step.wholes<long long>());
        return reads;
    };
    const auto model_is = [&](const Json& map, const AccessStats& s) {
        CHECK(static_cast<size_t>(map["requests"].whole()) == s.requests);
        CHECK(static_cast<size_t>(map["contiguous_requests"].whole()) == s.contiguous_requests);
        CHECK(static_cast<size_t>(map["sectors"].whole()) == s.sectors);
    };
    REQUIRE(d["maps"].size() == 3);
    const Json& per_row = d["maps"][0];
    CHECK(per_row["name"].text == "csr_thread_per_row");
    CHECK(reads_of(per_row) == kNotesCsrAccessTable);
    CHECK(reads_of(per_row) == access_table(CsrThreadPerRow(a.row_offsets)).reads);
    model_is(per_row, access_stats(CsrThreadPerRow(a.row_offsets)));

    // Lane l of warp w reads entry l of row w, in the one step that rows of at most 32 take.
    const Json& per_warp = d["maps"][1];
    CHECK(per_warp["name"].text == "csr_warp_per_row");
    CHECK(reads_of(per_warp) == access_table(CsrWarpPerRow(a.row_offsets)).reads);
    REQUIRE(per_warp["reads"].size() == 1);
    const std::vector<long long> lanes = per_warp["reads"][0].wholes<long long>();
    REQUIRE(lanes.size() == static_cast<size_t>(kWarpSize * a.num_rows));
    for (size_t t = 0; t < lanes.size(); ++t) {
        const int row = static_cast<int>(t / kWarpSize), lane = static_cast<int>(t % kWarpSize);
        CHECK(lanes[t] == (lane < lengths[row] ? a.row_offsets[row] + lane : kDone));
    }
    model_is(per_warp, access_stats(CsrWarpPerRow(a.row_offsets)));

    // ELL column-major: thread t reads slot i * num_rows + t in step i; the rest is padding.
    const Json& ell = d["maps"][2];
    CHECK(ell["name"].text == "ell_thread_per_row");
    CHECK(reads_of(ell) == access_table(EllThreadPerRow(lengths)).reads);
    const int width = *std::max_element(lengths.begin(), lengths.end());
    std::vector<long long> padding;
    for (int i = 0; i < width; ++i)
        for (int t = 0; t < a.num_rows; ++t) {
            const long long read = reads_of(ell)[i][t];
            CHECK(read == (i < lengths[t] ? i * a.num_rows + t : kDone));
            if (i >= lengths[t]) padding.push_back(i * a.num_rows + t);
        }
    CHECK(ell["padding"].wholes<long long>() == padding);
    CHECK(ell["elements"].whole() == width * a.num_rows);
    model_is(ell, access_stats(EllThreadPerRow(lengths)));
}

TEST_CASE("figure data: 148's merge path, every thread the same length but the last",
          "[figure-data][148]") {
    const Json d = figure_of("148_spmv_merge_path_kernel", {});
    const std::vector<int> row_offsets = d["row_offsets"].wholes<int>();
    CHECK(row_offsets == kFigRowOffsets);
    const int rows = static_cast<int>(d["num_rows"].whole()),
              nnz = static_cast<int>(d["nnz"].whole());
    const int steps = static_cast<int>(d["steps_per_thread"].whole());
    const Json& threads = d["threads"];
    REQUIRE(threads.size() == static_cast<size_t>((rows + nnz + steps - 1) / steps));
    int row = 0, nonzero = 0, nonzeros_taken = 0, row_ends_taken = 0;
    for (size_t t = 0; t < threads.size(); ++t) {
        CAPTURE(t);
        const Json& thread = threads[t];
        const size_t length = thread["steps"].size();
        if (t + 1 < threads.size())
            CHECK(length == static_cast<size_t>(steps));
        else
            CHECK((length >= 1 && length <= static_cast<size_t>(steps)));
        // Each thread starts on its diagonal, where the one before it stopped.
        CHECK(thread["first_row"].whole() + thread["first_nonzero"].whole() ==
              static_cast<long long>(t) * steps);
        CHECK(thread["first_row"].whole() == row);
        CHECK(thread["first_nonzero"].whole() == nonzero);
        long long its_nonzeros = 0, its_row_ends = 0;
        for (const Json& step : thread["steps"].items) {
            CHECK(step["row"].whole() == row);
            CHECK(step["nonzero"].whole() == nonzero);
            if (step["takes"].text == "nonzero") {
                CHECK((row_offsets[row] <= nonzero && nonzero < row_offsets[row + 1]));
                ++nonzero;
                ++its_nonzeros;
            } else {
                CHECK(step["takes"].text == "row_end");
                CHECK(nonzero == row_offsets[row + 1]);
                ++row;
                ++its_row_ends;
            }
        }
        CHECK(thread["nonzeros"].whole() == its_nonzeros);
        CHECK(thread["rows_closed"].whole() == its_row_ends);
        nonzeros_taken += static_cast<int>(its_nonzeros);
        row_ends_taken += static_cast<int>(its_row_ends);
    }
    CHECK(nonzeros_taken == nnz);
    CHECK(row_ends_taken == rows);
}

TEST_CASE("figure data: 115's build, step by step", "[figure-data][115]") {
    const Json d = figure_of("115_csr_concurrent_construction_kernel", {"--order", "A"});
    const HostCoo edges = book_example_edges();
    CHECK(d["rows"].wholes<int>() == edges.rows);
    CHECK(d["cols"].wholes<int>() == edges.cols);
    std::vector<int> order(edges.nnz());
    std::iota(order.begin(), order.end(), 0);
    // A GPU runs its threads in no order that the program knows; the emulator's order A is the
    // threads' own.
    if (d["where"].text == "GPU")
        CHECK_FALSE(d.has("thread_order"));
    else
        CHECK(d["thread_order"].wholes<int>() == order);
    REQUIRE(d["steps"].size() == 3);
    const Json& count = d["steps"][0];
    const Json& scan = d["steps"][1];
    const Json& scatter = d["steps"][2];
    CHECK(count["step"].text == "count");
    std::vector<int> degree(edges.num_rows, 0);
    for (int src : edges.rows) ++degree[src];
    CHECK(count["degree"].wholes<int>() == degree);
    CHECK(degree == kBookDegree);
    CHECK(scan["step"].text == "scan");
    const std::vector<int> row_offsets = scan["row_offsets"].wholes<int>();
    CHECK(row_offsets == kBookRowOffsets);
    CHECK(scatter["step"].text == "scatter");
    const std::vector<int> col_idx = scatter["col_idx"].wholes<int>();
    const std::vector<int> weights = scatter["weights"].wholes<int>();
    CHECK(col_idx == kBookColIdx);
    // Each thread takes a slot of its source's slice, which then holds its edge; no two threads
    // take one slot.
    const std::vector<int> slot = d["slot_of_thread"].wholes<int>();
    REQUIRE(slot.size() == edges.nnz());
    std::vector<int> sorted_slots = slot;
    std::sort(sorted_slots.begin(), sorted_slots.end());
    CHECK(sorted_slots == order);
    for (size_t e = 0; e < edges.nnz(); ++e) {
        CAPTURE(e);
        const int src = edges.rows[e];
        CHECK((row_offsets[src] <= slot[e] && slot[e] < row_offsets[src + 1]));
        CHECK(col_idx[slot[e]] == edges.cols[e]);
        CHECK(weights[slot[e]] == static_cast<int>(edges.values[e]));
    }
    // After the scatter every cursor has reached the end of its slice.
    const std::vector<int> cursor = scatter["cursor"].wholes<int>();
    for (int v = 0; v < edges.num_rows; ++v) CHECK(cursor[v] == row_offsets[v + 1]);
}

