// The --matrix programs (programs.txt's matrix) run as a user runs them (build/NAME --matrix
// FILE), on files that a student or a fuzzer could hand them: hostile files must be refused with
// "FILE:LINE:" and exit code 2, quickly and in little memory; degenerate but valid files must
// run, exit 0, and end with a result: line that agrees with a count made here, from the file's
// own entries.
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "../common/random.h"
#include "../common/stencils.h"
#include "../common/text.h"
#include "program_list.h"
#include "run_program.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// The programs that read --matrix (programs.txt's matrix), every one of which make test builds,
// with nvcc or without it.
std::vector<ListedProgram> built_programs() {
    std::vector<ListedProgram> built;
    for (const ListedProgram& p : listed_programs()) {
        if (!p.has("matrix")) continue;
        if (!fs::exists(SUITE_BUILD + p.name))
            FAIL(SUITE_BUILD << p.name << " is missing: make test builds the programs first");
        built.push_back(p);
    }
    return built;
}

// CG (spd) and the ranks' product (square) refuse the matrices that they cannot take, naming the
// file; every other --matrix program takes any shape.
bool takes_every_shape(const ListedProgram& p) { return !p.has("spd") && !p.has("square"); }

class Scratch {
public:
    Scratch() : root_(fs::temp_directory_path() / ("suite_programs_" + std::to_string(getpid()))) {
        fs::create_directories(root_);
    }
    ~Scratch() {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = (root_ / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string path(const std::string& name) const { return (root_ / name).string(); }

private:
    fs::path root_;
};

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

std::string describe(const ProgramRun& run) {
    return "exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
           (run.timed_out ? ", timed out" : "") + "\nstderr: " + run.err.substr(0, 400) +
           "\nstdout tail: " + run.out.substr(run.out.size() > 600 ? run.out.size() - 600 : 0);
}

// A refusal: exit code 2, one line on stderr that names the file (and the line, when given),
// within 10 seconds and 1 GB.
void check_refused(const std::string& program, const std::string& path, int line,
                   const std::string& problem) {
    const ProgramRun run = run_program(program, {"--matrix", path}, 10);
    INFO(program << " on " << path << ": " << describe(run));
    CHECK(run.exit_code == 2);
    const std::string place = line > 0 ? path + ":" + std::to_string(line) + ": " : path + ": ";
    CHECK_THAT(run.err, StartsWith("error: " + place) && Contains(problem));
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    CHECK(run.seconds < 10);
    CHECK(run.peak_bytes < 1e9);
}

}  // namespace

TEST_CASE("programs: hostile files are refused by every --matrix program, naming file and line",
          "[programs][hostile]") {
    const Scratch dir;
    struct Case {
        std::string name, text;
        int line;
        std::string problem;
    };
    const std::string karate_both = [] {
        std::string text = "%%MatrixMarket matrix coordinate pattern symmetric\n34 34 4\n";
        return text + "2 1\n3 1\n1 2\n4 1\n";
    }();
    const std::vector<Case> cases = {
        {"misspelt.mtx", "%%MatrixMarkt matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n", 1,
         "bad banner"},
        {"spaced.txt", "%%Matrix Market matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n", 1,
         "bad banner"},
        {"hyphen.csv", "%%Matrix-Market matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n", 1,
         "bad banner"},
        {"banner_second.txt", "# a title\n" + kGeneral + "3 3 1\n1 1 1\n", 2,
         "must be the file's first line"},
        {"no_banner.mtx", "3 3 1\n1 1 1\n", 1,
         "a .mtx file must start with the Matrix Market banner"},
        {"empty.mtx", "", 1, "the file is empty"},
        {"empty.csv", "", 1, "the file is empty"},
        {"both_triangles.mtx", karate_both, 5, "stores one triangle"},
        {"huge_rows.mtx", kGeneral + "268435456 268435456 1\n1 1 1\n", 2, "would need about"},
        {"huge_id.csv", "268435455 0\n", 1, "would need about"},
        {"long_line.csv", "0 1\n1 " + std::string(2 << 20, '9') + "\n", 2, "longer than"},
    };
    std::vector<Case> refused_by_all = cases;
    for (const ListedProgram& program : built_programs()) {
        for (const Case& c : cases) {
            const std::string path = dir.write(c.name, c.text);
            // A program that keeps no per-row array reads a 2^28-row file in a few kilobytes;
            // it may accept it, as long as it stays within the same 10 s and 1 GB. One whose
            // kernels take fewer rows (123's bins) refuses it for that, at the same line.
            if (c.problem == "would need about") {
                const ProgramRun run = run_program(program.name, {"--matrix", path}, 10);
                INFO(program.name << " on " << c.name << ": " << describe(run));
                CHECK((run.exit_code == 2 || run.exit_code == 0));
                if (run.exit_code == 2)
                    CHECK_THAT(run.err,
                               StartsWith("error: " + path + ":" + std::to_string(c.line) + ": ") &&
                                   ((Contains("would need about") && Contains("--max-memory")) ||
                                    Contains("; this input has 268,435,456 rows")));
                if (run.exit_code == 0) CHECK(result_field(run, "rows") == "268435456");
                CHECK(run.seconds < 10);
                CHECK(run.peak_bytes < 1e9);
                continue;
            }
            check_refused(program.name, path, c.line, c.problem);
        }
        check_refused(program.name, "/dev/zero", 0, "is not a regular file");
        const std::string fifo = dir.path("fifo.csv");
        if (!fs::exists(fifo)) REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
        check_refused(program.name, fifo, 0, "is not a regular file");
        check_refused(program.name, dir.write("karate.mtx.gz", "\x1f\x8b"), 0,
                      "decompress it first");
        check_refused(program.name, dir.write("gzip.csv", "\x1f\x8b\x08\x00"), 1,
                      "decompress it first");
        check_refused(program.name, dir.path(""), 0, "is a folder");
    }
}

TEST_CASE(
    "programs: a size line within the limit but beyond the budget names the flag that "
    "raises it",
    "[programs][hostile]") {
    const Scratch dir;
    const std::string path = dir.write("tall.mtx", kGeneral + "268435456 4 1\n1 1 1\n");
    const ProgramRun run = run_program("146_design_considerations_cpu_baseline",
                                       {"--matrix", path, "--max-memory", "1G"}, 10);
    INFO(describe(run));
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Contains(path + ":2: this program would need about") &&
                            Contains("budget of 1.07 GB (set by --max-memory)") &&
                            Contains("give --max-memory"));
}

TEST_CASE("programs: an allocation that fails anyway is reported in one line, with exit 2",
          "[programs][hostile]") {
    // The budget allows the run; the address-space limit makes the machine smaller than that.
    const ProgramRun run =
        run_program("146_design_considerations_cpu_baseline",
                    {"--scale", "20", "--max-memory", "64G"}, 60, size_t{300} << 20);
    INFO(describe(run));
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, StartsWith("error: out of host memory: an allocation failed although the "
                                   "input was estimated at") &&
                            Contains("budget of 68.7 GB (set by --max-memory)"));
}

TEST_CASE("programs: a comparison of times is printed as a measurement, never as a self-check",
          "[programs][regression]") {
    for (const ListedProgram& p : built_programs()) {
        if (p.name.rfind("146", 0) == 0) continue;
        const ProgramRun run = run_program(p.name, {"--scale", "8"});
        INFO(p.name << ": " << describe(run));
        CHECK(run.exit_code == 0);
        std::istringstream lines(run.out);
        std::string line;
        while (std::getline(lines, line))
            if (line.rfind("self-check:", 0) == 0) {
                INFO(line);
                CHECK(line.find("faster") == std::string::npos);
                CHECK(line.find("slower") == std::string::npos);
                CHECK(line.find("bandwidth") == std::string::npos);
            }
    }
}

TEST_CASE("programs: flags are read strictly", "[programs][flags]") {
    const std::string program = "146_design_considerations_cpu_baseline";
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"--scale", "0x10"},
                                               {"--scale", "1e1"},
                                               {"--scale", " 3"},
                                               {"--seed", "+5"},
                                               {"--scale", "3", "--scale", "4"},
                                               {"--matrix", "--seed", "3"},
                                               {"--max-memory", "1.5G"}}) {
        const ProgramRun run = run_program(program, args, 10);
        INFO(args.front() << " " << args[1] << ": " << describe(run));
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, StartsWith("error: "));
    }
}

namespace {

// The value of `key=` on each line of `out` that starts with `prefix` ("graph: ", "timing: ").
std::vector<std::string> values_on_lines(const std::string& out, const std::string& prefix,
                                         const std::string& key) {
    std::vector<std::string> values;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) != 0) continue;
        const size_t at = line.find(" " + key + "=");
        const size_t begin = at == std::string::npos ? line.size() : at + key.size() + 2;
        values.push_back(line.substr(begin, line.find(' ', begin) - begin));
    }
    return values;
}

// A usage error: exit 2 and one error line, the first on stderr (the usage follows it), that
// contains `reason`.
void check_usage_refused(const std::string& program, const std::vector<std::string>& args,
                         const std::string& reason) {
    const ProgramRun run = run_program(program, args, 10);
    std::string command = program;
    for (const std::string& a : args) command += " " + a;
    INFO(command << ": " << describe(run));
    CHECK(run.exit_code == 2);
    const std::string first = run.err.substr(0, run.err.find('\n'));
    CHECK_THAT(first, StartsWith("error: ") && Contains(reason));
    CHECK(run.err.find("error: ", 1) == std::string::npos);
    CHECK(run.out.empty());
}

const char* stencil_flag(StencilKind kind) { return kind == StencilKind::two_d ? "2d" : "3d"; }

}  // namespace

TEST_CASE("programs: --stencil 2d|3d runs the Poisson matrix and names it on its lines",
          "[programs][stencil]") {
    std::vector<std::string> programs = {"146_design_considerations_cpu_baseline"};
    programs.push_back("143_spmv_csr_kernel");
    programs.push_back("115_csr_concurrent_construction_kernel");
    for (const std::string& program : programs)
        for (const StencilKind kind : {StencilKind::two_d, StencilKind::three_d}) {
            const StencilShape shape = stencil_shape(kind, 6);
            const ProgramRun run =
                run_program(program, {"--stencil", stencil_flag(kind), "--scale", "6"});
            INFO(program << " --stencil " << stencil_flag(kind) << " --scale 6: " << describe(run));
            CHECK(run.exit_code == 0);
            CHECK_THAT(run.out, Contains("input: " + std::string(shape.dimensions() == 2
                                                                      ? "2D 5-point"
                                                                      : "3D 7-point") +
                                         " Poisson matrix"));
            CHECK(values_on_lines(run.out, "graph: ", "matrix") ==
                  std::vector<std::string>{shape.name()});
            CHECK(values_on_lines(run.out, "graph: ", "rmat") == std::vector<std::string>{"none"});
            // Timed on a GPU only: every timing: line names the class and no R-MAT skew.
            for (const std::string& matrix : values_on_lines(run.out, "timing: ", "matrix"))
                CHECK(matrix == shape.name());
            for (const std::string& skew : values_on_lines(run.out, "timing: ", "skew"))
                CHECK(skew == "none");
            CHECK(result_field(run, "rows") == std::to_string(shape.rows()));
            CHECK(result_field(run, "nnz") == std::to_string(shape.nnz()));
            CHECK(result_field(run, "max_row") == std::to_string(1 + 2 * shape.dimensions()));
            CHECK(result_field(run, "empty_rows") == "0");
        }
    // --scale 1 rounds the grid's side to 1: the 1 x 1 matrix, the smallest that the flags give
    // (--scale 0 is the book's example).
    const ProgramRun one = run_program(programs.back(), {"--stencil", "3d", "--scale", "1"});
    INFO(describe(one));
    CHECK(one.exit_code == 0);
    CHECK(result_field(one, "rows") == "1");
    CHECK(result_field(one, "nnz") == "1");
}

TEST_CASE("programs: --stencil is refused where it makes no sense, with the reason",
          "[programs][stencil][flags]") {
    const std::string program = "146_design_considerations_cpu_baseline";
    check_usage_refused(program, {"--stencil", "2d"}, "--stencil applies to the --scale input");
    check_usage_refused(program, {"--stencil", "2d", "--scale", "6", "--skew", "0.6"},
                        "--skew shapes the R-MAT graph, which --stencil replaces");
    check_usage_refused(program, {"--stencil", "3d", "--scale", "6", "--rmat", "0.57,0.19,0.19"},
                        "--rmat shapes the R-MAT graph, which --stencil replaces");
    check_usage_refused(program, {"--stencil", "2d", "--matrix", "data/1138_bus.mtx"},
                        "give --stencil or --matrix, not both");
    check_usage_refused(program, {"--stencil", "4d", "--scale", "6"},
                        "--stencil 4d: expected 2d or 3d");
    check_usage_refused(program, {"--stencil", "2d", "--scale", "6", "--stencil=3d"},
                        "--stencil is given twice");
    check_usage_refused("112_csr_conversion_cpu_baseline", {"--stencil", "2d", "--scale", "6"},
                        "unknown argument '--stencil'");
    check_usage_refused("147_conjugate_gradient_kernel", {"--stencil", "2d", "--scale", "6"},
                        "--stencil replaces an R-MAT input, and this program's --scale input is "
                        "its own: the 2-D Poisson matrix of --stencil 2d");
}

TEST_CASE("programs: the largest --stencil scale within --max-memory runs, the next is refused",
          "[programs][stencil][memory]") {
    // 146's budget is estimated from the stencil's own rows and entries (about 5 or 7 a row, not
    // R-MAT's 16): the first scale past 64 MiB is refused before anything is allocated.
    const std::string program = "146_design_considerations_cpu_baseline";
    for (const StencilKind kind : {StencilKind::two_d, StencilKind::three_d}) {
        int admitted = 0, refused = 0;
        for (int scale = 8; scale <= 24 && refused == 0; ++scale) {
            const std::string flags = std::string("--stencil ") + stencil_flag(kind) +
                                      " --scale " + std::to_string(scale);
            const ProgramRun run = run_program(
                program,
                {"--stencil", stencil_flag(kind), "--scale", std::to_string(scale), "--max-memory",
                 "64M"});
            INFO(flags << " --max-memory 64M: " << describe(run));
            if (run.exit_code == 0) {
                admitted = scale;
                continue;
            }
            refused = scale;
            const StencilShape shape = stencil_shape(kind, scale);
            CHECK(run.exit_code == 2);
            CHECK_THAT(run.err,
                       StartsWith("error: " + flags + ": this program would need about") &&
                           Contains(" for " + with_separators(shape.rows()) + " x " +
                                    with_separators(shape.rows()) + " with " +
                                    with_separators(shape.nnz()) + " entries") &&
                           Contains("budget of 67.1 MB (set by --max-memory)"));
            CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
            CHECK(run.peak_bytes < 64e6);
        }
        INFO("--stencil " << stencil_flag(kind));
        CHECK(admitted >= 8);
        CHECK(refused == admitted + 1);
    }
}

TEST_CASE("programs: degenerate shapes that the sweep found run and give the right facts",
          "[programs][regression]") {
    const Scratch dir;
    const std::vector<ListedProgram> programs = built_programs();
    // Neither shape is square: the programs that take some shapes only refuse both (the
    // randomized sweep holds them to their refusals).
    SECTION("0 rows and 5 columns (118 once read an empty out-degree list)") {
        const std::string path = dir.write("rows0.mtx", kGeneral + "0 5 0\n");
        for (const ListedProgram& p : programs) {
            if (!takes_every_shape(p)) continue;
            const ProgramRun run = run_program(p.name, {"--matrix", path});
            INFO(p.name << ": " << describe(run));
            CHECK(run.exit_code == 0);
            CHECK(result_field(run, "rows") == "0");
            CHECK(result_field(run, "cols") == "5");
        }
    }
    SECTION("5 rows and 0 columns (146 once added an entry at a column that does not exist)") {
        const std::string path = dir.write("cols0.mtx", kGeneral + "5 0 0\n");
        for (const ListedProgram& p : programs) {
            if (!takes_every_shape(p)) continue;
            const ProgramRun run = run_program(p.name, {"--matrix", path});
            INFO(p.name << ": " << describe(run));
            CHECK(run.exit_code == 0);
            CHECK(result_field(run, "empty_rows") == "5");
        }
    }
    const bool has_cg = std::any_of(programs.begin(), programs.end(), [](const ListedProgram& p) {
        return p.name == "147_conjugate_gradient_kernel";
    });
    if (!has_cg) return;
    // 147 on a file written from `text`.
    auto cg_on = [&](const std::string& name, const std::string& text) {
        return run_program("147_conjugate_gradient_kernel", {"--matrix", dir.write(name, text)});
    };
    SECTION("147 solves the 1 x 1 matrix [3] and small diagonal matrices") {
        const ProgramRun one = cg_on("three.mtx", kGeneral + "1 1 1\n1 1 3\n");
        INFO(describe(one));
        CHECK(one.exit_code == 0);
        SplitMix64 rng(147);
        for (int trial = 0; trial < 20; ++trial) {
            const int n = 1 + static_cast<int>(rng.below(6));
            std::string text = kGeneral + std::to_string(n) + " " + std::to_string(n) + " " +
                               std::to_string(n) + "\n";
            for (int i = 1; i <= n; ++i)
                text += std::to_string(i) + " " + std::to_string(i) + " " +
                        std::to_string(0.1 + 100 * rng.uniform()) + "\n";
            const ProgramRun run = cg_on("diagonal" + std::to_string(trial) + ".mtx", text);
            INFO("trial " << trial << ":\n" << text << describe(run));
            CHECK(run.exit_code == 0);
        }
    }
    SECTION("147 counts 200 duplicates of one entry as their sum, and converges") {
        std::string text = kGeneral + "1 1 200\n";
        for (int k = 0; k < 200; ++k) text += "1 1 0.37\n";
        const ProgramRun run = cg_on("dups.mtx", text);
        INFO(describe(run));
        CHECK(run.exit_code == 0);
        CHECK(result_field(run, "nnz") == "200");
    }
    SECTION("147 names float overflow, not a lack of positive definiteness, on [1e30]") {
        const ProgramRun run = cg_on("huge.mtx", kGeneral + "1 1 1\n1 1 1e30\n");
        INFO(describe(run));
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Contains("overflow float"));
        CHECK_THAT(run.err, !Contains("positive definite"));
    }
}

TEST_CASE("programs: sums that overflow float are named as the input's, with exit 2",
          "[programs][regression]") {
    const Scratch dir;
    const std::string path =
        dir.write("overflow.mtx", kGeneral + "2 2 3\n1 1 3e38\n1 2 3e38\n2 2 1\n");
    for (const ListedProgram& p : built_programs()) {
        if (!p.has("y_sum") || p.has("spd")) continue;
        const ProgramRun run = run_program(p.name, {"--matrix", path});
        INFO(p.name << ": " << describe(run));
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Contains("overflow float") && Contains("row 1"));
    }
}

TEST_CASE("programs: values too small for a float are stored as 0, with one note on stderr",
          "[programs][tiny]") {
    const Scratch dir;
    struct Written {
        int row, col;
        const char* value;
    };
    // Row 3 holds a tiny value alone: kept as a 0, it is not an empty row.
    const std::vector<Written> entries = {
        {1, 1, "2.5"},
        {1, 3, "1e-50"},
        {2, 2, "-1.25"},
        {2, 5, "-1e-300"},
        {3, 4, "7.630486546499983e-55"},
        {4, 1, "3.1415926"},
        {4, 4, "1e-40"},
        {4, 5, "0.1"},
    };
    std::string text = kGeneral + "% couplings too small for a float\n4 5 8\n";
    double sum = 0, magnitude = 0;
    for (const Written& e : entries) {
        text += std::to_string(e.row) + " " + std::to_string(e.col) + " " + e.value + "\n";
        sum += std::strtod(e.value, nullptr);
        magnitude += std::fabs(std::strtod(e.value, nullptr));
    }
    const std::string path = dir.write("tiny.mtx", text);
    const std::string note = "note: " + path +
                             ": 3 values are too small for a float and are stored as 0 (the first "
                             "at line 5: 1e-50)\n";
    for (const ListedProgram& p : built_programs()) {
        // This matrix is not square.
        if (!p.has("y_sum") || !takes_every_shape(p)) continue;
        const ProgramRun run = run_program(p.name, {"--matrix", path});
        INFO(p.name << ": " << describe(run));
        CHECK(run.exit_code == 0);
        CHECK(run.err == note);
        CHECK_THAT(run.out, !Contains("too small"));
        CHECK(result_field(run, "rows") == "4");
        CHECK(result_field(run, "cols") == "5");
        CHECK(result_field(run, "nnz") == "8");
        CHECK(result_field(run, "empty_rows") == "0");
        CHECK(std::stod(result_field(run, "y_sum")) == Approx(sum).margin(1e-6 * (1 + magnitude)));
        // --quiet keeps stdout to the tally and the result: line, the note staying on stderr.
        const ProgramRun quiet = run_program(p.name, {"--quiet", "--matrix", path});
        INFO("with --quiet: " << describe(quiet));
        CHECK(quiet.exit_code == 0);
        CHECK(quiet.err == note);
        const std::string result = run.out.substr(run.out.rfind("\nresult: ") + 1);
        CHECK_THAT(quiet.out, StartsWith("self-check tally: "));
        CHECK(quiet.out.substr(quiet.out.find('\n') + 1) == result);
    }
    // An edge list's weights get the same note, in the singular for one.
    const std::string edges = dir.write("tiny_weights.csv", "0 1 1e-50\n1 0 2\n");
    const ProgramRun run =
        run_program("146_design_considerations_cpu_baseline", {"--matrix", edges});
    INFO(describe(run));
    CHECK(run.exit_code == 0);
    CHECK(run.err == "note: " + edges +
                         ": 1 value is too small for a float and is stored as 0 (at line 1: "
                         "1e-50)\n");
    CHECK(result_field(run, "nnz") == "2");
    CHECK(std::stod(result_field(run, "y_sum")) == Approx(2.0).margin(1e-6));
}

namespace {

// Files whose rows sum to subnormal floats, where a GPU's global atomics and cuSPARSE flush to
// zero what the CPU keeps: every program must confirm every claim, and its y_sum must be the
// file's sum within what underflow may lose (FLT_MIN for each flush, a few dozen at most here).
void check_subnormal_sums(bool on_gpu) {
    const Scratch dir;
    struct File {
        std::string name, text;
        double sum;
    };
    const std::vector<File> files = {
        {"subnormal.mtx", kGeneral + "3 3 2\n1 1 1e-40\n2 2 1.5\n", 1.5 + 1e-40},
        // Row 1 holds subnormals alone, row 2 two normal values whose sum is subnormal, row 4
        // the smallest subnormal, and row 3 a tiny normal value.
        {"tiny.mtx",
         kGeneral + "4 4 7\n1 1 1e-40\n1 2 -2e-40\n2 2 1.5e-38\n2 3 -1.4e-38\n3 3 1e-30\n"
                    "4 1 1e-45\n4 4 -3e-39\n",
         1e-40 - 2e-40 + 1.5e-38 - 1.4e-38 + 1e-30 + 1e-45 - 3e-39},
    };
    for (const File& file : files) {
        const std::string path = dir.write(file.name, file.text);
        // Every SpMV program, 149 among them (its ranks share one GPU or run in emulation), but
        // CG, which takes symmetric positive definite matrices only.
        for (const ListedProgram& p : built_programs()) {
            if (!p.has("y_sum") || p.has("spd")) continue;
            const ProgramRun run = run_program(p.name, {"--matrix", path});
            INFO(p.name << " on " << file.name << ": " << describe(run));
            CHECK(run.exit_code == 0);
            CHECK_THAT(run.out, !Contains(": MISMATCH") && Contains(", 0 MISMATCH"));
            if (on_gpu && p.needs_cuda)
                CHECK_THAT(run.out, Contains("\n[gpu] "));
            const double y_sum = std::stod(result_field(run, "y_sum"));
            CHECK(std::fabs(y_sum - file.sum) <= 1e-9 * std::fabs(file.sum) +
                                                     32.0 * std::numeric_limits<float>::min());
        }
    }
}

}  // namespace

TEST_CASE("programs: rows that sum to subnormal floats confirm every claim",
          "[programs][underflow]") {
    check_subnormal_sums(false);
}

TEST_CASE("programs: on a GPU, rows that sum to subnormal floats confirm every claim",
          "[gpu][programs][underflow]") {
    check_subnormal_sums(true);
}

namespace {

// A random small matrix of one of the shapes that break programs, written as Matrix Market, and
// the facts that its result: line must report, counted here from the entries themselves.
struct Shape {
    std::string text;
    long rows = 0, cols = 0, nnz = 0, empty_rows = 0, max_row = 0;
    double sum = 0, magnitude = 0;
};

Shape random_shape(SplitMix64& rng, int kind) {
    const char* symmetry = kind == 6 ? "symmetric" : kind == 7 ? "skew-symmetric" : "general";
    const bool mirrored = kind == 6 || kind == 7;
    long rows = 1 + rng.below(6), cols = 1 + rng.below(6);
    if (kind == 0) rows = 0;
    if (kind == 1) cols = 0;
    if (kind == 2) rows = cols = 1;
    if (mirrored) cols = rows;
    struct E {
        long r, c;
        double v;
    };
    std::vector<E> stored;
    const long count = rows == 0 || cols == 0 ? 0 : static_cast<long>(rng.below(9));
    for (long k = 0; k < count; ++k) {
        E e{static_cast<long>(rng.below(rows)), static_cast<long>(rng.below(cols)),
            static_cast<double>(static_cast<int>(rng.below(19)) - 9)};
        if (kind == 3) e.r = 0;                                       // every entry in one row
        if (kind == 4 && k > 0) e = {stored[0].r, stored[0].c, e.v};  // duplicates
        if (kind == 5) e.v = 0;                                       // explicit zeros
        if (mirrored && e.r < e.c) std::swap(e.r, e.c);               // the lower triangle
        if (kind == 7 && e.r == e.c) e.v = 0;
        stored.push_back(e);
    }
    Shape s;
    s.rows = rows;
    s.cols = cols;
    s.text = std::string("%%MatrixMarket matrix coordinate real ") + symmetry + "\n" +
             std::to_string(rows) + " " + std::to_string(cols) + " " +
             std::to_string(stored.size()) + "\n";
    std::vector<long> length(rows, 0);
    auto count_entry = [&](long r, double v) {
        ++length[r];
        ++s.nnz;
        s.sum += v;
        s.magnitude += std::fabs(v);
    };
    for (const E& e : stored) {
        s.text += std::to_string(e.r + 1) + " " + std::to_string(e.c + 1) + " " +
                  std::to_string(static_cast<int>(e.v)) + "\n";
        count_entry(e.r, e.v);
        if (mirrored && e.r != e.c) count_entry(e.c, kind == 7 ? -e.v : e.v);
    }
    for (long n : length) {
        s.empty_rows += n == 0;
        s.max_row = std::max(s.max_row, n);
    }
    return s;
}

}  // namespace

TEST_CASE("programs: a randomized sweep of small shapes, every --matrix program",
          "[programs][sweep]") {
    const uint64_t seed = 8008;
    INFO("seed " << seed);
    SplitMix64 rng(seed);
    const Scratch dir;
    const std::vector<ListedProgram> programs = built_programs();
    // Shapes: 0 rows, 0 columns, 1 x 1, one row, duplicates, explicit zeros, symmetric,
    // skew-symmetric, and general.
    for (int kind = 0; kind <= 8; ++kind) {
        const Shape shape = random_shape(rng, kind);
        const std::string path = dir.write("shape" + std::to_string(kind) + ".mtx", shape.text);
        for (const ListedProgram& p : programs) {
            const ProgramRun run = run_program(p.name, {"--matrix", path});
            INFO(p.name << " on shape " << kind << ":\n" << shape.text << describe(run));
            // CG and the ranks' product say why they refuse the matrices that they cannot take.
            if (!takes_every_shape(p) && run.exit_code == 2) {
                CHECK_THAT(run.err, StartsWith("error: " + path + ": "));
                continue;
            }
            CHECK(run.exit_code == 0);
            if (run.exit_code != 0) continue;
            CHECK(result_field(run, "rows") == std::to_string(shape.rows));
            CHECK(result_field(run, "cols") == std::to_string(shape.cols));
            CHECK(result_field(run, "nnz") == std::to_string(shape.nnz));
            CHECK(result_field(run, "empty_rows") == std::to_string(shape.empty_rows));
            CHECK(result_field(run, "max_row") == std::to_string(shape.max_row));
            if (p.has("y_sum"))
                CHECK(std::stod(result_field(run, "y_sum")) ==
                      Approx(shape.sum).margin(1e-5 * (1 + shape.magnitude)));
        }
    }
}
