// The self-check exercises as a student meets them. Every untouched skeleton
// (build/exercises/NAME) must fail its self-check, with exit code 1 and at least one MISMATCH,
// and every reference solution (build/solutions/NAME) must pass it, with exit code 0 and no
// MISMATCH. Both are run in emulation with two seeds, so that neither verdict rests on one
// thread order; the [gpu] test gives the same verdicts for the real kernels.
#include <stdlib.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>
#include "run_program.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

namespace {

struct Exercise {
    std::string chapter;  // "ch21_csr"
    std::string name;     // "ex21_1_csc_scatter"
};

const std::vector<std::string> kChapters = {"ch21_csr", "ch14_spmv"};

// Read off the exercise folders, so that a new exercise is tested as soon as it is added.
std::vector<Exercise> exercises() {
    std::vector<Exercise> found;
    for (const std::string& chapter : kChapters)
        for (const auto& entry : fs::directory_iterator(chapter + "/exercises"))
            if (entry.path().extension() == ".cu")
                found.push_back({chapter, entry.path().stem().string()});
    return found;
}

std::string source_text(const std::string& path) {
    REQUIRE(fs::exists(path));
    return slurp(path);
}

std::string second_line(const std::string& out) {
    const size_t start = out.find('\n') + 1;
    return out.substr(start, out.find('\n', start) - start);
}

std::string describe(const ProgramRun& run) {
    return "exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
           (run.timed_out ? ", timed out" : "") + "\nstderr: " + run.err.substr(0, 400) +
           "\nstdout tail: " + run.out.substr(run.out.size() > 1500 ? run.out.size() - 1500 : 0);
}

// With CUDA_VISIBLE_DEVICES empty, the CUDA runtime of the programs run meanwhile finds no
// device, and they emulate their kernels even on a machine with a GPU.
class NoVisibleGpu {
public:
    NoVisibleGpu() {
        if (const char* value = getenv(kVariable)) saved_ = value, had_value_ = true;
        setenv(kVariable, "", 1);
    }
    ~NoVisibleGpu() {
        if (had_value_)
            setenv(kVariable, saved_.c_str(), 1);
        else
            unsetenv(kVariable);
    }

private:
    static constexpr const char* kVariable = "CUDA_VISIBLE_DEVICES";
    std::string saved_;
    bool had_value_ = false;
};

// The second line says where the kernels ran, `where`, and in emulation with which seed.
void check_where(const ProgramRun& run, const std::vector<std::string>& args,
                 const std::string& where) {
    const std::string line = second_line(run.out);
    CHECK_THAT(line, StartsWith(where));
    if (!args.empty()) CHECK_THAT(line, EndsWith("seed " + args.back()));
}

// Runs build/BINARY ("exercises/NAME" or "solutions/NAME") and checks its verdict: solved,
// exit code 0 and no MISMATCH; or not, exit code 1 and at least one MISMATCH.
void check_verdict(const std::string& binary, const std::vector<std::string>& args,
                   const std::string& where, bool solved) {
    if (!fs::exists(SUITE_BUILD + binary))
        FAIL(SUITE_BUILD << binary << " is missing: make test builds it");
    const ProgramRun run = run_program(binary, args, 120);
    INFO(binary << " " << (args.empty() ? "" : args.back()) << ": " << describe(run));
    CHECK(run.exit_code == (solved ? 0 : 1));
    CHECK((run.out.find(": MISMATCH") == std::string::npos) == solved);
    CHECK(run.out.find("\nself-check tally: ") != std::string::npos);
    check_where(run, args, where);
}

// The untouched skeleton of every exercise is not solved, and its reference solution is.
void check_every_exercise(const std::vector<std::string>& args, const std::string& where) {
    for (const Exercise& e : exercises()) {
        check_verdict("exercises/" + e.name, args, where, false);
        check_verdict("solutions/" + e.name, args, where, true);
    }
}

const std::vector<std::string> kSeeds = {"11", "2024"};
const std::string kEmulation = "[emulation] no CUDA device";

}  // namespace

TEST_CASE("exercises: at least three a chapter, each a TODO body with a harness and a solution",
          "[exercises]") {
    for (const std::string& chapter : kChapters) {
        size_t count = 0;
        for (const Exercise& e : exercises()) count += e.chapter == chapter;
        INFO(chapter);
        CHECK(count >= 3);
        CHECK(fs::exists(chapter + "/exercises/README.md"));
    }
    CHECK(fs::exists("solutions/README.md"));
    for (const Exercise& e : exercises()) {
        INFO(e.chapter << "/exercises/" << e.name);
        const std::string harness = "harness/" + e.name + ".h";
        CHECK(fs::exists(e.chapter + "/exercises/" + harness));
        const std::string skeleton = source_text(e.chapter + "/exercises/" + e.name + ".cu");
        CHECK_THAT(skeleton, Contains("// TODO") && Contains("#include \"" + harness + "\"") &&
                                 Contains("Build and run"));
        const std::string solution = source_text("solutions/" + e.chapter + "/" + e.name + ".cu");
        CHECK_THAT(solution,
                   Contains("#include \"../../" + e.chapter + "/exercises/" + harness + "\"") &&
                       !Contains("TODO"));
    }
}

TEST_CASE("exercises: in emulation, for two seeds, every skeleton fails and every solution passes",
          "[exercises]") {
    const NoVisibleGpu emulation;
    for (const std::string& seed : kSeeds) check_every_exercise({"--seed", seed}, kEmulation);
}

TEST_CASE("exercises: on the GPU, every skeleton fails and every solution passes",
          "[exercises][gpu]") {
    check_every_exercise({}, "[gpu] ");
}

