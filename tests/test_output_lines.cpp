// The machine-readable lines that programs print, as a script reads them: the timing: line
// (timing_line.h), the result: line that ends every --scale and --matrix run, and the seconds:
// line of a --scale run (run_seconds.h). The values on a program's result: line are compared with
// counts made here, from the same generated input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>
#include "../common/graph_generators.h"
#include "../common/matrix_facts.h"
#include "../common/rmat_params.h"
#include "../common/stencils.h"
#include "../common/timing_line.h"
#include "run_program.h"

namespace {

// "key=value key=value ..." after `prefix`, a quoted value running to its closing quote.
std::map<std::string, std::string> parse_fields(const std::string& line,
                                                const std::string& prefix) {
    std::map<std::string, std::string> fields;
    if (line.compare(0, prefix.size(), prefix) != 0) return fields;
    size_t i = prefix.size();
    while (i < line.size()) {
        const size_t equals = line.find('=', i);
        if (equals == std::string::npos) break;
        const std::string key = line.substr(i, equals - i);
        size_t end;
        std::string value;
        if (equals + 1 < line.size() && line[equals + 1] == '"') {
            end = line.find('"', equals + 2);
            value = line.substr(equals + 2, end - equals - 2);
            ++end;
        } else {
            end = line.find(' ', equals);
            if (end == std::string::npos) end = line.size();
            value = line.substr(equals + 1, end - equals - 1);
        }
        fields[key] = value;
        i = end + 1;
    }
    return fields;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> found;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        if (line.compare(0, prefix.size(), prefix) == 0) found.push_back(line);
        start = end + 1;
    }
    return found;
}

}  // namespace

TEST_CASE("timing: lines carry every field, and parse back", "[output]") {
    const TimingFields f{
        "143", "csr_thread_per_row", 22, 0.57, RmatParams::graph500().text(), 2.687, 225,
        4219,  "NVIDIA H200"};
    const std::string line = timing_line(f);
    CHECK(
        line ==
        "timing: program=143 kernel=csr_thread_per_row scale=22 skew=0.57 rmat=0.57,0.19,0.19,0.05 "
        "ms=2.687 gbs=225 copy_gbs=4219 device=\"NVIDIA H200\" matrix=rmat");
    const auto fields = parse_fields(line, "timing: ");
    CHECK(fields.at("program") == "143");
    CHECK(fields.at("kernel") == "csr_thread_per_row");
    CHECK(std::stoi(fields.at("scale")) == 22);
    CHECK(std::stod(fields.at("skew")) == Approx(0.57));
    CHECK(std::stod(fields.at("ms")) == Approx(2.687));
    CHECK(std::stod(fields.at("gbs")) == Approx(225));
    CHECK(std::stod(fields.at("copy_gbs")) == Approx(4219));
    CHECK(fields.at("device") == "NVIDIA H200");
    CHECK(fields.at("rmat") == "0.57,0.19,0.19,0.05");
    CHECK(fields.at("matrix") == "rmat");
    TimingFields poisson = f;
    poisson.skew = -1;
    poisson.rmat = "none";
    poisson.matrix = "stencil3d";
    const auto stencil_fields = parse_fields(timing_line(poisson), "timing: ");
    CHECK(stencil_fields.at("skew") == "none");
    CHECK(stencil_fields.at("rmat") == "none");
    CHECK(stencil_fields.at("matrix") == "stencil3d");
    CHECK(stencil_fields.at("device") == "NVIDIA H200");
    CHECK(stencil_fields.size() == fields.size());
}

TEST_CASE("graph: lines name the input's class and its structure after the facts they had before",
          "[output]") {
    const HostCoo rmat = make_rmat(8, 16, 0.57, 14);
    const std::string rmat_line = graph_line(rmat, 8, RmatParams::from_skew(0.57).text(), "rmat");
    CHECK_THAT(rmat_line, Catch::StartsWith("graph: scale=8 rmat=0.57,") &&
                              Catch::Contains(" matrix=rmat mean_row=16.00 "));
    CHECK(parse_fields(rmat_line, "graph: ").at("nnz") == std::to_string(rmat.nnz()));

    const StencilShape shape = stencil_shape(StencilKind::three_d, 6);
    const std::string line = graph_line(make_stencil(shape), 6, "none", shape.name());
    const auto f = parse_fields(line, "graph: ");
    CHECK(f.at("scale") == "6");
    CHECK(f.at("rmat") == "none");
    CHECK(f.at("rows") == "64");
    CHECK(f.at("nnz") == std::to_string(shape.nnz()));
    CHECK(f.at("max_row") == "7");
    CHECK(f.at("empty_share") == "0.0000");
    CHECK(f.at("matrix") == "stencil3d");
    // A 4 x 4 x 4 grid: the planes' neighbours are 16 columns away, on 7 diagonals.
    CHECK(shape.nnz() == 352);  // 7 a point, less 6 faces of 16
    CHECK(f.at("mean_row") == "5.50");
    CHECK(f.at("bandwidth") == "16");
    CHECK(f.at("diagonals") == "7");
    const std::vector<std::string> keys = {"scale",     "rmat",     "rows",      "nnz",
                                           "max_row",   "empty_share", "degree_cv", "matrix",
                                           "mean_row",  "bandwidth", "diagonals"};
    std::vector<std::string> in_order;
    for (size_t i = line.find(' '); i != std::string::npos; i = line.find(' ', i + 1))
        in_order.push_back(line.substr(i + 1, line.find('=', i) - i - 1));
    CHECK(in_order == keys);
}

TEST_CASE("result: lines of --scale runs agree with the generated input", "[output]") {
    // The programs' R-MAT inputs (chapter_inputs.h): seed 14 for chapter 14, 21 for chapter 21.
    struct Case {
        std::string program;
        uint64_t seed;
        bool spmv;
    };
    for (const Case& c : std::vector<Case>{{"143_spmv_csr_kernel", 14, true},
                                           {"142_spmv_coo_kernel", 14, true},
                                           {"149_spmv_across_ranks_kernel", 14, true},
                                           {"115_csr_concurrent_construction_kernel", 21, false}}) {
        const HostCoo a = make_rmat(8, 16, 0.57, c.seed);
        std::vector<int> length(a.num_rows, 0);
        double sum = 0;
        for (size_t k = 0; k < a.nnz(); ++k) {
            ++length[a.rows[k]];
            sum += a.values[k];
        }
        const ProgramRun run = run_program(c.program, {"--scale", "8"});
        INFO(c.program << ": exit " << run.exit_code << "\n" << run.err);
        REQUIRE(run.exit_code == 0);
        const auto results = lines_starting(run.out, "result: ");
        REQUIRE(results.size() == 1);
        const auto f = parse_fields(results[0], "result: ");
        CHECK(f.at("rows") == "256");
        CHECK(f.at("cols") == "256");
        CHECK(f.at("nnz") == std::to_string(a.nnz()));
        CHECK(std::stoi(f.at("empty_rows")) == std::count(length.begin(), length.end(), 0));
        CHECK(std::stoi(f.at("max_row")) == *std::max_element(length.begin(), length.end()));
        if (c.spmv) CHECK(std::stod(f.at("y_sum")) == Approx(sum).epsilon(1e-6));
    }
}

TEST_CASE("seconds: a --scale run says where its seconds went, just before its tally",
          "[output]") {
    for (const std::string& program :
         {std::string("143_spmv_csr_kernel"), std::string("117_coo_edge_parallel_reduce_kernel")}) {
        const ProgramRun run = run_program(program, {"--scale", "8"});
        INFO(program << ": exit " << run.exit_code << "\n" << run.out << run.err);
        REQUIRE(run.exit_code == 0);
        const auto lines = lines_starting(run.out, "seconds: ");
        REQUIRE(lines.size() == 1);
        const auto f = parse_fields(lines[0], "seconds: ");
        CHECK(f.at("program") == program.substr(0, 3));
        CHECK(std::stod(f.at("host")) >= 0);
        // Only timed measurements count as GPU seconds, and without a GPU nothing is timed.
        if (run.out.find("\n[emulation] ") != std::string::npos)
            CHECK(f.at("gpu") == "0.00");
        else
            CHECK(std::stod(f.at("gpu")) > 0);
        // The tally and the result: line still end the run, the seconds: line right before them.
        const std::string tally = "\n\nself-check tally: ";
        CHECK(run.out.substr(run.out.find(lines[0]) + lines[0].size(), tally.size()) == tally);
    }
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{}, std::vector<std::string>{"--matrix", "data/karate.mtx"}}) {
        const ProgramRun run = run_program("143_spmv_csr_kernel", args);
        REQUIRE(run.exit_code == 0);
        CHECK(lines_starting(run.out, "seconds: ").empty());
    }
}

TEST_CASE("timing: lines of a --scale run on the GPU parse, one per timed kernel",
          "[output][gpu]") {
    const ProgramRun run =
        run_program("143_spmv_csr_kernel", {"--scale", "10", "--rmat", "0.57,0.19,0.19"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto lines = lines_starting(run.out, "timing: ");
    REQUIRE(lines.size() == 2);
    std::vector<std::string> kernels;
    for (const std::string& line : lines) {
        const auto f = parse_fields(line, "timing: ");
        CHECK(f.at("program") == "143");
        CHECK(f.at("scale") == "10");
        CHECK(std::stod(f.at("skew")) == Approx(0.57));
        CHECK(f.at("rmat") == "0.57,0.19,0.19,0.05");
        CHECK(std::stod(f.at("ms")) > 0);
        CHECK(std::stod(f.at("gbs")) > 0);
        CHECK(std::stod(f.at("copy_gbs")) > 0);
        CHECK_FALSE(f.at("device").empty());
        kernels.push_back(f.at("kernel"));
    }
    CHECK(kernels == std::vector<std::string>{"csr_thread_per_row", "cusparse_csr"});

    const ProgramRun file_run =
        run_program("143_spmv_csr_kernel", {"--matrix", "data/1138_bus.mtx"});
    REQUIRE(file_run.exit_code == 0);
    for (const std::string& line : lines_starting(file_run.out, "timing: ")) {
        const auto f = parse_fields(line, "timing: ");
        CHECK(f.at("skew") == "none");
        CHECK(f.at("rmat") == "none");
    }
}
