// The race check (make races) finds what one thread at a time cannot: each planted race, the
// atomic that a source marks made a plain read-modify-write by tests/plant_race.sh, is reported by
// ThreadSanitizer at the planted line, and the same program with its atomic is race-free. The
// exercise report calls an exercise whose answers are right but whose race check is not clean
// unsolved, and says why.
#include <stdio.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "program_list.h"
#include "run_program.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

#ifdef SUITE_HAVE_RACE_CHECK

namespace {

// What a shell command printed, stdout and stderr together.
std::string output_of(const std::string& command) {
    std::string text;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    for (size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, got);
    pclose(pipe);
    return text;
}

struct PlantedRace {
    std::string name;               // the binary's name, and the planted copy's stem
    std::string original;           // the race-check build of the unplanted source, under build/
    std::vector<std::string> args;  // the input that both run on
};

// The sources whose atomic is marked for planting (tests/plant_race.sh --find), as make races
// builds them. A program that reads --matrix runs on data/karate.mtx: a race can show only
// between threads that the pool's workers run, and on the book's nine edges a shuffle may deal
// every edge of a vertex to one worker; karate's hubs have 16 and 17 edges.
std::vector<PlantedRace> planted_races() {
    std::set<std::string> read_matrix;
    for (const ListedProgram& p : listed_programs())
        if (p.has("matrix")) read_matrix.insert(p.name);
    std::vector<PlantedRace> planted;
    std::istringstream sources(output_of("tests/plant_race.sh --find"));
    for (std::string source; std::getline(sources, source);) {
        const std::string name = fs::path(source).stem().string();
        const bool solution = source.rfind("solutions/", 0) == 0;
        PlantedRace race{name, std::string("races/") + (solution ? "solutions/" : "") + name, {}};
        if (read_matrix.count(name)) race.args = {"--matrix", "data/karate.mtx"};
        planted.push_back(race);
    }
    REQUIRE(!planted.empty());
    return planted;
}

// Whether ThreadSanitizer's summary names a race at `where` (a source path and line). g++ names
// the path as the compiler was given it, clang++ makes it absolute, and both may add a column.
bool summary_names(const std::string& err, const std::string& where) {
    const std::string summary = "SUMMARY: ThreadSanitizer: data race ";
    for (const std::string& line : lines_of(err)) {
        if (line.rfind(summary, 0) != 0) continue;
        const std::string location = line.substr(summary.size(), line.find(' ', summary.size()) -
                                                                     summary.size());
        const size_t at = location.find(where);
        const bool whole_path = at == 0 || (at != std::string::npos && location[at - 1] == '/');
        const size_t after = at + where.size();
        if (whole_path && (after == location.size() || location[after] == ':')) return true;
    }
    return false;
}

std::string describe(const ProgramRun& run) {
    return "exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
           "\nstderr: " + run.err.substr(0, 3000);
}

ProgramRun run_built(const std::string& binary, const std::vector<std::string>& args) {
    if (!fs::exists(SUITE_BUILD + binary))
        FAIL(SUITE_BUILD << binary << " is missing: make test builds it");
    return run_program(binary, args, 300);
}

}  // namespace

TEST_CASE("races: each planted race is reported at its planted line", "[races]") {
    for (const PlantedRace& planted : planted_races()) {
        const std::string source = SUITE_BUILD "races/planted/" + planted.name + ".cu";
        const std::string line = slurp(source + ".line");
        REQUIRE(!line.empty());
        const std::string where = source + ":" + line.substr(0, line.find('\n'));
        const ProgramRun run = run_built("races/planted/" + planted.name, planted.args);
        INFO(planted.name << ", expecting " << where << ": " << describe(run));
        CHECK(run.exit_code != 0);
        CHECK_THAT(run.err, Contains("WARNING: ThreadSanitizer: data race"));
        CHECK(summary_names(run.err, where));
    }
}

TEST_CASE("races: with their atomics, the same programs are race-free and right", "[races]") {
    for (const PlantedRace& planted : planted_races()) {
        const ProgramRun run = run_built(planted.original, planted.args);
        INFO(planted.original << ": " << describe(run));
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.err, !Contains("ThreadSanitizer"));
        CHECK_THAT(run.out, Contains("[emulation] race check (ThreadSanitizer): kernels run on "
                                     "the host, each launch's threads on"));
        CHECK_THAT(run.out, Contains(", 0 MISMATCH"));
    }
}

TEST_CASE("races: a fixed order is replayed on one thread, and the first lines say so",
          "[races]") {
    if (!fs::exists(SUITE_BUILD "races/115_csr_concurrent_construction_kernel"))
        FAIL(SUITE_BUILD "races/115_csr_concurrent_construction_kernel is missing: make test "
                         "builds it");
    const ProgramRun run = run_program("races/115_csr_concurrent_construction_kernel",
                                       {"--order", "B"}, 300);
    INFO(describe(run));
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, Contains("one thread at a time, in order B") &&
                            Contains("a fixed order is a replay, in which no race can show"));
}

TEST_CASE("races: the exercise report calls a right answer with a race unsolved, and says why",
          "[races][exercises]") {
    const fs::path root = fs::temp_directory_path() / ("suite_races_" + std::to_string(getpid()));
    fs::remove_all(root);
    for (const char* dir : {"right", "raced", "clean"}) fs::create_directories(root / dir);
    const std::string name = "ex21_1_csc_scatter";
    for (const std::string binary : {"solutions/", "races/planted/", "races/solutions/"})
        if (!fs::exists(SUITE_BUILD + binary + name))
            FAIL(SUITE_BUILD << binary << name << " is missing: make test builds it");
    fs::create_symlink(fs::absolute(SUITE_BUILD "solutions/" + name), root / "right" / name);
    fs::create_symlink(fs::absolute(SUITE_BUILD "races/planted/" + name), root / "raced" / name);
    fs::create_symlink(fs::absolute(SUITE_BUILD "races/solutions/" + name), root / "clean" / name);
    const auto report = [&](const std::string& race_dir) {
        return output_of("tests/report_exercises.sh exercises report " + (root / "right").string() +
                         " " + (root / race_dir).string() + " " + name);
    };

    const std::string raced = report("raced");
    INFO(raced);
    CHECK_THAT(raced, Contains(name + ": unsolved (a data race: its answers are right") &&
                          Contains("names the file and line of both accesses") &&
                          Contains("exercises: 0 solved, 1 unsolved"));
    const std::string clean = report("clean");
    INFO(clean);
    CHECK_THAT(clean, Contains(name + ": solved") && Contains("exercises: 1 solved, 0 unsolved"));
    fs::remove_all(root);
}

#endif
