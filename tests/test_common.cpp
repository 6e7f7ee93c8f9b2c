// Unit tests of common/'s host-only helpers: self-checks, options, generators, sparse types.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include "../ch21_csr/chapter_inputs.h"
#include "../common/graph_generators.h"
#include "../common/matrix_facts.h"
#include "../common/options.h"
#include "../common/run_seconds.h"
#include "../common/self_check.h"
#include "../common/sparse_host.h"
#include "../common/stencil_input.h"
#include "edge_case_graphs.h"
#include "stable_sort_reference.h"

namespace {
ProgramOptions parse(std::vector<std::string> args, bool allow_scale = true,
                     const std::vector<std::string>& switches = {}) {
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return parse_options_or_throw(static_cast<int>(argv.size()), argv.data(), allow_scale,
                                  switches);
}
}  // namespace

TEST_CASE("bits_for: the fewest bits whose 2^bits covers the count", "[common]") {
    CHECK(bits_for(0) == 0);
    CHECK(bits_for(1) == 0);
    CHECK(bits_for(2) == 1);
    CHECK(bits_for(3) == 2);
    CHECK(bits_for(4) == 2);
    CHECK(bits_for(5) == 3);
    CHECK(bits_for(uint64_t{1} << 32) == 32);
    CHECK(bits_for((uint64_t{1} << 32) + 1) == 33);
    for (uint64_t count = 2; count < 5000; count = count * 3 / 2 + 1) {
        const int bits = bits_for(count);
        CHECK((uint64_t{1} << bits) >= count);
        CHECK((uint64_t{1} << (bits - 1)) < count);
    }
}

TEST_CASE("SelfCheck turns claims into an exit code", "[common]") {
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    SelfCheck all_hold(out);
    all_hold.claim("one", true);
    all_hold.skip("two");
    CHECK(all_hold.finish() == 0);
    SelfCheck one_fails(out);
    one_fails.claim("one", true);
    one_fails.claim("two", false);
    CHECK(one_fails.mismatches() == 1);
    CHECK(one_fails.finish() == 1);
    std::rewind(out);
    std::string printed;
    for (int c; (c = std::fgetc(out)) != EOF;) printed += static_cast<char>(c);
    std::fclose(out);
    CHECK_THAT(printed, Catch::Contains(
                            "self-check: one: confirmed\nself-check: two: skipped (needs a GPU)"));
    CHECK_THAT(printed, Catch::Contains("self-check: two: MISMATCH"));
    CHECK_THAT(printed, Catch::Contains("self-check tally: 1 confirmed, 1 MISMATCH, 0 skipped"));
}

TEST_CASE("options: accepted values", "[common][options]") {
    const ProgramOptions none = parse({});
    CHECK(none.scale == 0);
    const ProgramOptions o =
        parse({"--scale", "12", "--skew", "0.7", "--seed", "99", "--sorted-rows"}, true,
              {"--sorted-rows"});
    CHECK(o.scale == 12);
    CHECK(o.skew == Approx(0.7));
    CHECK(o.seed_given);
    CHECK(o.seed == 99);
    CHECK(o.has("--sorted-rows"));
}

TEST_CASE("options: every bad usage is refused with a reason", "[common][options]") {
    CHECK_THROWS_WITH(parse({"--bogus"}), Catch::Contains("unknown argument '--bogus'"));
    CHECK_THROWS_WITH(parse({"--scale"}), Catch::Contains("needs a value"));
    CHECK_THROWS_WITH(parse({"--scale", "0"}),
                      Catch::Contains("expected a whole number from 1 to 24"));
    CHECK_THROWS_WITH(parse({"--scale", "25"}),
                      Catch::Contains("expected a whole number from 1 to 24"));
    CHECK_THROWS_WITH(parse({"--scale", "3.5"}), Catch::Contains("whole number"));
    CHECK_THROWS_WITH(parse({"--scale", "ten"}), Catch::Contains("whole number"));
    CHECK_THROWS_WITH(parse({"--scale", "10", "--skew", "1.5"}),
                      Catch::Contains("from 0.25 to 0.95"));
    CHECK_THROWS_WITH(parse({"--skew", "0.6"}), Catch::Contains("give --scale too"));
    CHECK_THROWS_WITH(parse({"--seed", "-4"}), Catch::Contains("non-negative"));
    CHECK_THROWS_WITH(parse({"--scale", "10"}, false), Catch::Contains("unknown argument"));
    CHECK_THROWS_WITH(parse({"--sorted-rows"}), Catch::Contains("unknown argument"));
    CHECK_THROWS_WITH(parse({"--matrix"}), Catch::Contains("needs a value"));
    CHECK_THROWS_WITH(parse({"--matrix", "a.mtx", "--scale", "4"}), Catch::Contains("not both"));
    CHECK_THROWS_WITH(parse({"--matrix", "a.mtx"}, false), Catch::Contains("unknown argument"));
}

TEST_CASE("options: values are read strictly, each flag once", "[common][options]") {
    for (const char* scale : {"0x10", "1e1", " 3", "3 ", "+3", "03a", ""}) {
        INFO("--scale '" << scale << "'");
        CHECK_THROWS_WITH(parse({"--scale", scale}), Catch::Contains("--scale"));
    }
    for (const char* seed : {"+5", "5.0", "0x5", " 5", "18446744073709551616"}) {
        INFO("--seed '" << seed << "'");
        CHECK_THROWS_WITH(parse({"--seed", seed}), Catch::Contains("--seed"));
    }
    for (const char* skew : {"0x0.5", "inf", "nan", " 0.5", "+0.5", "0.5x"}) {
        INFO("--skew '" << skew << "'");
        CHECK_THROWS_WITH(parse({"--scale", "4", "--skew", skew}), Catch::Contains("--skew"));
    }
    CHECK_THROWS_WITH(parse({"--scale", "3", "--scale", "4"}),
                      Catch::Contains("--scale is given twice"));
    CHECK_THROWS_WITH(parse({"--seed", "1", "--seed=2"}), Catch::Contains("--seed is given twice"));
    CHECK_THROWS_WITH(parse({"--sorted-rows", "--sorted-rows"}, true, {"--sorted-rows"}),
                      Catch::Contains("given twice"));
    CHECK_THROWS_WITH(
        parse({"--matrix", "--seed", "3"}),
        Catch::Contains("--matrix needs a value, but the next argument is the flag --seed"));
}

TEST_CASE("options: --rmat sets all four R-MAT quadrants", "[common][options]") {
    const ProgramOptions g = parse({"--scale", "10", "--rmat", "0.57,0.19,0.19"});
    CHECK(g.rmat_given);
    CHECK(g.rmat.a == Approx(0.57));
    CHECK(g.rmat.d() == Approx(0.05));
    CHECK(g.rmat.text() == "0.57,0.19,0.19,0.05");
    const ProgramOptions s = parse({"--scale", "10", "--skew", "0.7"});
    CHECK(s.rmat.b == Approx(0.1));
    for (const char* bad :
         {"0.5,0.5,0.1", "0.5,0.2", "0.5,0.2,0.2,0.1", "0.5,-0.1,0.3", "a,b,c", ""}) {
        INFO("--rmat '" << bad << "'");
        CHECK_THROWS_WITH(parse({"--scale", "10", "--rmat", bad}), Catch::Contains("--rmat"));
    }
    CHECK_THROWS_WITH(parse({"--scale", "10", "--rmat", "0.57,0.19,0.19", "--skew", "0.6"}),
                      Catch::Contains("not both"));
    CHECK_THROWS_WITH(parse({"--rmat", "0.57,0.19,0.19"}), Catch::Contains("give --scale too"));
}

TEST_CASE("R-MAT: --skew A is --rmat A,(1-A)/3,(1-A)/3, edge for edge", "[common][generators]") {
    const HostCoo by_skew = make_rmat(12, 16, 0.7, 5);
    const HostCoo by_params = make_rmat(12, 16, RmatParams{0.7, 0.1, 0.1}, 5);
    CHECK(by_skew.rows == by_params.rows);
    CHECK(by_skew.cols == by_params.cols);
    // Graph500's parameters skew the degrees more than --skew 0.57 does.
    auto longest_row = [](const HostCoo& g) {
        std::vector<int> d(g.num_rows, 0);
        for (int r : g.rows) ++d[r];
        return *std::max_element(d.begin(), d.end());
    };
    CHECK(longest_row(make_rmat(14, 16, RmatParams::graph500(), 3)) >
          2 * longest_row(make_rmat(14, 16, 0.57, 3)));
}

TEST_CASE("options: --flag=value and --max-memory", "[common][options]") {
    const ProgramOptions o = parse({"--scale=12", "--skew=0.7", "--seed=99", "--max-memory=512M"});
    CHECK(o.scale == 12);
    CHECK(o.skew == Approx(0.7));
    CHECK(o.seed == 99);
    CHECK(o.max_memory_given);
    CHECK(o.budget.bytes == (uint64_t{512} << 20));
    CHECK(parse({"--max-memory", "3G"}).budget.bytes == (uint64_t{3} << 30));
    CHECK(parse({"--max-memory", "1000"}).budget.bytes == 1000);
    CHECK(parse({"--max-memory", "2k"}).budget.bytes == 2048);
    for (const char* bytes : {"0", "1.5G", "-1G", "G", "4GB", "4 G", "99999999999T"}) {
        INFO("--max-memory '" << bytes << "'");
        CHECK_THROWS_WITH(parse({"--max-memory", bytes}), Catch::Contains("--max-memory"));
    }
    // Without the flag: 4 GiB, or less where the machine has less free.
    const ProgramOptions d = parse({});
    CHECK_FALSE(d.max_memory_given);
    CHECK(d.budget.bytes > 0);
    CHECK(d.budget.bytes <= (uint64_t{4} << 30));
}

TEST_CASE("memory budget: the estimate, the refusal and its suggested flag", "[common][memory]") {
    const MemoryModel model{10, 20, 1000};
    CHECK(estimated_bytes(model, 100, 50, 7, true) == 1000 + 70 + 2000);
    CHECK(estimated_bytes(model, 100, 50, 7, false) == 70 + 2000);
    const MemoryBudget budget{uint64_t{1} << 20, "a test budget", true};
    CHECK(over_budget_problem(model, budget, 100, 100, 1000).empty());
    const std::string problem = over_budget_problem(model, budget, 268435456, 4, 1);
    CHECK_THAT(problem,
               Catch::Contains("would need about 5.37 GB for 268,435,456 x 4 with 1 entry") &&
                   Catch::Contains("budget of 1.05 MB (a test budget)") &&
                   Catch::Contains("give --max-memory 6G"));
    CHECK(max_memory_flag_for(100e6) == "--max-memory 101M");
    CHECK(with_separators(1234567) == "1,234,567");
    CHECK(with_separators(999) == "999");
}

TEST_CASE("options: --stencil 2d|3d replaces the --scale R-MAT input", "[common][options]") {
    const ProgramOptions two = parse({"--stencil", "2d", "--scale", "12"});
    CHECK(two.stencil == StencilKind::two_d);
    CHECK(two.scale == 12);
    CHECK(two.matrix_class() == "stencil2d");
    CHECK(two.chosen_input_name() == "the 2D Poisson matrix, scale 12");
    const ProgramOptions three = parse({"--scale=6", "--stencil=3d"});
    CHECK(three.stencil == StencilKind::three_d);
    CHECK(three.matrix_class() == "stencil3d");
    CHECK(parse({"--scale", "12"}).matrix_class() == "rmat");
    CHECK(parse({"--scale", "12"}).chosen_input_name() == "R-MAT scale 12");
    CHECK(parse({"--matrix", "a.mtx"}).matrix_class() == "file");
    CHECK(parse({}).matrix_class() == "book");
    CHECK(parse({}).stencil == StencilKind::none);
}

TEST_CASE("options: --stencil is refused without --scale, with R-MAT's flags or a file",
          "[common][options]") {
    for (const char* kind : {"4d", "2D", "2", "3d ", "", "two_d"}) {
        INFO("--stencil '" << kind << "'");
        CHECK_THROWS_WITH(parse({"--scale", "6", "--stencil", kind}),
                          Catch::Contains("--stencil") && Catch::Contains("expected 2d or 3d"));
    }
    CHECK_THROWS_WITH(parse({"--stencil", "2d"}),
                      Catch::Contains("--stencil applies to the --scale input; give --scale too"));
    CHECK_THROWS_WITH(parse({"--stencil"}), Catch::Contains("--stencil needs a value"));
    CHECK_THROWS_WITH(parse({"--stencil", "2d", "--scale", "6", "--stencil", "3d"}),
                      Catch::Contains("--stencil is given twice"));
    CHECK_THROWS_WITH(parse({"--stencil", "2d", "--scale", "6", "--skew", "0.6"}),
                      Catch::Contains("--skew shapes the R-MAT graph, which --stencil replaces"));
    CHECK_THROWS_WITH(parse({"--stencil", "3d", "--scale", "6", "--rmat", "0.57,0.19,0.19"}),
                      Catch::Contains("--rmat shapes the R-MAT graph, which --stencil replaces"));
    CHECK_THROWS_WITH(parse({"--stencil", "2d", "--matrix", "a.mtx"}),
                      Catch::Contains("give --stencil or --matrix, not both"));
    CHECK_THROWS_WITH(parse({"--stencil", "2d", "--scale", "6"}, false),
                      Catch::Contains("unknown argument '--stencil'"));
}

TEST_CASE("options: --help lists --stencil only where --scale is an R-MAT input",
          "[common][options]") {
    const ProgramDescription rmat("t", {});
    CHECK_THAT(help_text("prog", rmat), Catch::Contains("--stencil 2d|3d"));
    ProgramDescription own("t", {});
    own.with_scale_input("a 2-D Poisson matrix of 2^S unknowns", "stencil2d");
    CHECK_FALSE(own.takes_skew);
    CHECK_THAT(help_text("prog", own), !Catch::Contains("--stencil"));
    CHECK_THAT(help_text("prog", ProgramDescription("t", {}).without_inputs()),
               !Catch::Contains("--stencil"));
}

TEST_CASE("stencil input: the options' grid, described in its input: line", "[common][stencil]") {
    CHECK(stencil_description(stencil_shape(StencilKind::two_d, 22)) ==
          "2D 5-point Poisson matrix, 2,048 x 2,048 grid (4,194,304 rows, 20,963,328 entries)");
    CHECK(stencil_description(stencil_shape(StencilKind::three_d, 6)) ==
          "3D 7-point Poisson matrix, 4 x 4 x 4 grid (64 rows, 352 entries)");
    // The smallest grid that the flags reach: --scale 1 rounds either side to 1 point, the
    // 1 x 1 matrix [4] or [6] (--scale 0 is the book's example).
    for (const StencilKind kind : {StencilKind::two_d, StencilKind::three_d}) {
        ProgramOptions o =
            parse({"--scale", "1", "--stencil", kind == StencilKind::two_d ? "2d" : "3d"});
        o.budget = {uint64_t{1} << 30, "a test budget"};
        const HostCoo one = stencil_input(o);
        CHECK(one.num_rows == 1);
        CHECK(one.num_cols == 1);
        REQUIRE(one.nnz() == 1);
        CHECK(one.values[0] == (kind == StencilKind::two_d ? 4.0f : 6.0f));
        CHECK(stencil_description(stencil_shape(kind, 1)).find("(1 row, 1 entry)") !=
              std::string::npos);
    }
    ProgramOptions o = parse({"--scale", "8", "--stencil", "2d"});
    o.budget = {uint64_t{1} << 30, "a test budget"};
    const HostCoo a = stencil_input(o);
    const HostCoo expected = make_stencil(stencil_shape(StencilKind::two_d, 8));
    CHECK(a.rows == expected.rows);
    CHECK(a.cols == expected.cols);
    CHECK(a.values == expected.values);
}

TEST_CASE("options: --matrix is neither the book's example nor a --scale graph",
          "[common][options]") {
    CHECK(parse({}).book_example());
    CHECK_FALSE(parse({"--scale", "3"}).book_example());
    const ProgramOptions m = parse({"--matrix", "karate.mtx"});
    CHECK(m.matrix == "karate.mtx");
    CHECK(m.scale == 0);
    CHECK_FALSE(m.book_example());
}

TEST_CASE("generators are deterministic and in range", "[common][generators]") {
    const HostCoo a = make_rmat(10, 16, 0.57, 7), b = make_rmat(10, 16, 0.57, 7);
    CHECK(a.rows == b.rows);
    CHECK(a.cols == b.cols);
    CHECK(a.values == b.values);
    CHECK(a.nnz() == 16u * 1024u);
    CHECK(a.num_rows == 1024);
    for (size_t e = 0; e < a.nnz(); ++e) {
        REQUIRE(a.rows[e] >= 0);
        REQUIRE(a.rows[e] < 1024);
        REQUIRE(a.cols[e] >= 0);
        REQUIRE(a.cols[e] < 1024);
        REQUIRE(a.values[e] >= 1);
        REQUIRE(a.values[e] <= kMaxWeight);
    }
    const HostCoo c = make_rmat(10, 16, 0.57, 8);
    CHECK(c.rows != a.rows);
}

TEST_CASE("the vertex scramble is a bijection", "[common][generators]") {
    for (int scale : {1, 2, 5, 11, 16}) {
        std::vector<char> hit(size_t{1} << scale, 0);
        for (uint32_t v = 0; v < (1u << scale); ++v) {
            const uint32_t s = scramble_vertex_id(v, scale, 21);
            REQUIRE(s < (1u << scale));
            REQUIRE(!hit[s]);
            hit[s] = 1;
        }
    }
}

TEST_CASE("R-MAT skew concentrates edges on hubs", "[common][generators]") {
    auto max_degree = [](const HostCoo& g) {
        std::vector<int> degree(g.num_rows, 0);
        for (int r : g.rows) ++degree[r];
        return *std::max_element(degree.begin(), degree.end());
    };
    const int uniform = max_degree(make_rmat(14, 16, 0.25, 3));
    const int skewed = max_degree(make_rmat(14, 16, 0.8, 3));
    CHECK(uniform < 60);  // a Poisson(16) maximum over 16384 vertices stays near 35
    CHECK(skewed > 10 * uniform);
}

TEST_CASE("uniform and star generators", "[common][generators]") {
    const HostCoo u = make_uniform_random(50, 400, 1);
    CHECK(u.nnz() == 400);
    CHECK(*std::max_element(u.rows.begin(), u.rows.end()) < 50);
    const HostCoo s = make_star(100001, 0, 1);
    CHECK(s.nnz() == 100000);
    CHECK(std::all_of(s.rows.begin(), s.rows.end(), [](int r) { return r == 0; }));
    CHECK(std::set<int>(s.cols.begin(), s.cols.end()).size() == 100000);
    CHECK(make_uniform_random(0, 0, 1).nnz() == 0);
}

TEST_CASE("stable-sort CSR reproduces the book's arrays", "[common][sparse]") {
    const HostCsr c = csr_from_coo_by_stable_sort(book_example_edges());
    CHECK(c.row_offsets == kBookRowOffsets);
    CHECK(c.col_idx == kBookColIdx);
    CHECK(c.values == kBookWeights);
    CHECK(is_well_formed(c));
    CHECK(same_row_multisets(c, book_example_edges()));
}

TEST_CASE("row multiset comparison accepts reordering and catches real differences",
          "[common][sparse]") {
    const HostCoo coo = book_example_edges();
    HostCsr c = csr_from_coo_by_stable_sort(coo);
    HostCsr within_row = c;
    std::swap(within_row.col_idx[0], within_row.col_idx[1]);
    std::swap(within_row.values[0], within_row.values[1]);
    CHECK(same_row_multisets(within_row, coo));
    CHECK(same_row_multisets(within_row, c));

    HostCsr across_rows = c;  // an entry moved to the neighbouring row
    std::swap(across_rows.col_idx[1], across_rows.col_idx[2]);
    std::swap(across_rows.values[1], across_rows.values[2]);
    CHECK_FALSE(same_row_multisets(across_rows, coo));

    HostCsr weight_detached = c;  // same columns, a weight paired with the wrong neighbour
    std::swap(weight_detached.values[0], weight_detached.values[1]);
    CHECK_FALSE(same_row_multisets(weight_detached, coo));

    HostCsr shifted_boundary = c;  // still monotone, but an entry lands in the wrong row
    shifted_boundary.row_offsets[3] = 7;
    CHECK(is_well_formed(shifted_boundary));
    CHECK_FALSE(same_row_multisets(shifted_boundary, coo));

    HostCsr decreasing = c;
    decreasing.row_offsets[3] = 3;
    CHECK_FALSE(is_well_formed(decreasing));

    HostCsr bad_column = c;
    bad_column.col_idx[4] = 6;
    CHECK_FALSE(is_well_formed(bad_column));
}

namespace {
bool same_entries_in_order(const HostCoo& a, const HostCoo& b) {
    return a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.rows == b.rows &&
           a.cols == b.cols && a.values == b.values;
}

// Graphs past kParallelSize entries, so that the helpers share them among the cores, and rows
// that the radix sort's buckets must take apart: a hub of 100,000 entries, rows spread over all
// of int with a few entries each, negative rows, and one row for everything.
std::vector<HostCoo> large_graphs() {
    std::vector<HostCoo> graphs = {make_rmat(14, 16, 0.80, 3), make_rmat(13, 16, 0.25, 4),
                                   make_star(100001, 7, 5)};
    SplitMix64 rng(6);
    HostCoo spread = make_uniform_random(1000, 200000, 7);
    for (int& r : spread.rows) r = static_cast<int>(rng.next() >> 32);
    graphs.push_back(spread);
    HostCoo negative = make_uniform_random(5000, 150000, 8);
    for (int& r : negative.rows) r -= 2500;
    graphs.push_back(negative);
    HostCoo one_row = make_uniform_random(1, 70000, 9);
    one_row.num_rows = 1;
    graphs.push_back(one_row);
    return graphs;
}
}  // namespace

TEST_CASE("the row sort keeps each row's entries in entry order, on any rows", "[common][sparse]") {
    for (int i = 0; i < kSweepGraphs; ++i) {
        const HostCoo g = edge_case_graph(i, 116);
        REQUIRE(same_entries_in_order(sorted_by_row(g), sorted_by_std_stable_sort(g)));
    }
    for (const HostCoo& g : large_graphs()) {
        CAPTURE(g.num_rows, g.nnz());
        CHECK(same_entries_in_order(sorted_by_row(g), sorted_by_std_stable_sort(g)));
    }
}

TEST_CASE("entries per row, the stable-sort CSR and the graph: line's facts, on every core",
          "[common][sparse]") {
    for (const HostCoo& g : {make_rmat(14, 16, 0.80, 3), make_rmat(13, 16, 0.25, 4),
                             make_star(100001, 7, 5), make_stencil(stencil_shape(StencilKind::three_d, 17))}) {
        CAPTURE(g.num_rows, g.nnz());
        std::vector<int> length(g.num_rows, 0);
        std::set<long long> diagonals;
        long long bandwidth = 0;
        for (size_t k = 0; k < g.nnz(); ++k) {
            ++length[g.rows[k]];
            diagonals.insert(static_cast<long long>(g.cols[k]) - g.rows[k]);
            bandwidth = std::max(bandwidth, std::abs(static_cast<long long>(g.cols[k]) - g.rows[k]));
        }
        CHECK(entries_per_row(g) == length);
        const MatrixFacts facts = matrix_facts(g);
        CHECK(facts.max_row == *std::max_element(length.begin(), length.end()));
        CHECK(facts.empty_rows == std::count(length.begin(), length.end(), 0));
        const StructureFacts structure = structure_facts(g);
        CHECK(structure.diagonals == static_cast<int64_t>(diagonals.size()));
        CHECK(structure.bandwidth == bandwidth);
        // The CSR by the stable sort: row r's entries, in entry order, in its slice.
        const HostCsr c = csr_from_coo_by_stable_sort(g);
        REQUIRE(is_well_formed(c));
        std::vector<int> next(c.row_offsets.begin(), c.row_offsets.end() - 1);
        bool in_place = true;
        for (size_t k = 0; k < g.nnz(); ++k) {
            const int slot = next[g.rows[k]]++;
            in_place = in_place && c.col_idx[slot] == g.cols[k] && c.values[slot] == g.values[k];
        }
        CHECK(in_place);
        for (int r = 0; r < g.num_rows; ++r) REQUIRE(next[r] == c.row_offsets[r + 1]);
    }
}

TEST_CASE("a COO holds a CSR's rows exactly when each row holds the same multiset",
          "[common][sparse]") {
    for (const HostCoo& g : {make_rmat(14, 16, 0.80, 3), make_uniform_random(40, 300, 11)}) {
        CAPTURE(g.nnz());
        const HostCsr by_row = csr_from_coo_by_stable_sort(g);
        CHECK(holds_rows_of(g, by_row));
        HostCoo shuffled = g;
        SplitMix64 rng(12);
        for (size_t k = shuffled.nnz(); k > 1; --k) {
            const size_t j = rng.below(static_cast<uint32_t>(k));
            std::swap(shuffled.rows[k - 1], shuffled.rows[j]);
            std::swap(shuffled.cols[k - 1], shuffled.cols[j]);
            std::swap(shuffled.values[k - 1], shuffled.values[j]);
        }
        CHECK(holds_rows_of(shuffled, by_row));
        // Rows whose entries come in another order within them need their sorts to agree.
        HostCsr rows_reversed = by_row;
        for (int r = 0; r < by_row.num_rows; ++r) {
            std::reverse(rows_reversed.col_idx.begin() + by_row.row_offsets[r],
                         rows_reversed.col_idx.begin() + by_row.row_offsets[r + 1]);
            std::reverse(rows_reversed.values.begin() + by_row.row_offsets[r],
                         rows_reversed.values.begin() + by_row.row_offsets[r + 1]);
        }
        CHECK(holds_rows_of(shuffled, rows_reversed));
        CHECK(rows_hold_same_entries(by_row.row_offsets, rows_reversed, by_row));
        HostCoo reweighted = g;
        reweighted.values[g.nnz() / 2] += 1.0f;
        CHECK_FALSE(holds_rows_of(reweighted, by_row));
        HostCoo recolumned = g;  // a column changed: the multiset of its row changes
        recolumned.cols[g.nnz() / 2] = (recolumned.cols[g.nnz() / 2] + 1) % g.num_cols;
        CHECK_FALSE(holds_rows_of(recolumned, by_row));
        HostCoo moved = g;  // one entry to another row
        moved.rows[g.nnz() / 3] = (moved.rows[g.nnz() / 3] + 1) % g.num_rows;
        CHECK_FALSE(holds_rows_of(moved, by_row));
        HostCoo beyond = g;  // a row past the last
        beyond.rows[0] = g.num_rows;
        CHECK_FALSE(holds_rows_of(beyond, by_row));
        // The same columns and weights in a row, a weight paired with another column.
        HostCsr weight_detached = by_row;
        size_t k = 0;
        while (k + 1 < by_row.nnz() && !(by_row.col_idx[k] != by_row.col_idx[k + 1] &&
                                         by_row.values[k] != by_row.values[k + 1] &&
                                         std::upper_bound(by_row.row_offsets.begin(),
                                                          by_row.row_offsets.end(), k) ==
                                             std::upper_bound(by_row.row_offsets.begin(),
                                                              by_row.row_offsets.end(), k + 1)))
            ++k;
        REQUIRE(k + 1 < by_row.nnz());
        std::swap(weight_detached.values[k], weight_detached.values[k + 1]);
        CHECK_FALSE(rows_hold_same_entries(by_row.row_offsets, weight_detached, by_row));
    }
}

TEST_CASE("seconds: a timed stretch counts its wall time once, however it nests", "[common]") {
    const double before = run_seconds().gpu;
    {
        const TimedStretch outer;
        {
            const TimedStretch inner;
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        CHECK(run_seconds().gpu == before);  // the outer stretch counts the inner one's time
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    CHECK(run_seconds().gpu - before >= 0.06);
    CHECK(run_seconds().open_stretches == 0);
    const std::string line = seconds_line("145");
    std::smatch parts;
    REQUIRE(std::regex_match(line, parts,
                             std::regex("seconds: host=([0-9]+\\.[0-9]{2}) gpu=([0-9]+\\.[0-9]{2}) "
                                        "program=145")));
    CHECK(std::stod(parts[2]) == Approx(run_seconds().gpu).margin(0.005));
    // The host's part is the rest of the seconds since the program started.
    CHECK(std::stod(parts[1]) + std::stod(parts[2]) <= seconds_since(kRunStart) + 0.01);
    CHECK(std::stod(parts[1]) >= 0);
}

TEST_CASE("transposing twice is the identity", "[common][sparse]") {
    const HostCoo coo = make_uniform_random(30, 200, 5);
    const HostCoo back = transposed(transposed(coo));
    CHECK(sorted_entries(back) == sorted_entries(coo));
    CHECK(transposed(coo).rows == coo.cols);
}

// The sweep's seeds are the ones that the tests of 114 and 115 use; each must reach every case.
TEST_CASE("the shared sweep of graphs covers every edge case", "[common][sweep]") {
    for (uint64_t seed : {114u, 115u}) {
        CAPTURE(seed);
        int no_vertices = 0, no_edges = 0, isolated_last = 0, self_loops = 0, duplicates = 0;
        for (int i = 0; i < kSweepGraphs; ++i) {
            const HostCoo g = edge_case_graph(i, seed);
            no_vertices += g.num_rows == 0;
            no_edges += g.num_rows > 0 && g.nnz() == 0;
            bool last_touched = false, loop = false, duplicate = false;
            std::set<std::pair<int, int>> seen;
            for (size_t e = 0; e < g.nnz(); ++e) {
                const int last = g.num_rows - 1;
                last_touched = last_touched || g.rows[e] == last || g.cols[e] == last;
                loop = loop || g.rows[e] == g.cols[e];
                duplicate = duplicate || !seen.insert({g.rows[e], g.cols[e]}).second;
            }
            isolated_last += g.num_rows > 1 && g.nnz() > 0 && !last_touched;
            self_loops += loop;
            duplicates += duplicate;
        }
        CHECK(no_vertices > 0);
        CHECK(no_edges > 0);
        CHECK(isolated_last > 0);
        CHECK(self_loops > 0);
        CHECK(duplicates > 0);
    }
}
