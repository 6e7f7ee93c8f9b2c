// make plots' choice of interpreter (bench/python_with_matplotlib.sh): one that cannot be run
// or lacks matplotlib is named in the error with the install command for itself, exit 1, unless
// /usr/bin/python3 has matplotlib, which is then used and named. And bench/plots.py's curves,
// checked against a sweep CSV without matplotlib: each is in the CSV under the program that its
// label says timed it.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {
struct Outcome {
    int exit_code;
    std::string output;
};

Outcome run_command(const std::string& command) {
    Outcome o{-1, ""};
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) o.output += buffer;
    const int status = pclose(pipe);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

Outcome run_with_python(const std::string& python) {
    return run_command("PYTHON='" + python +
                       "' bench/python_with_matplotlib.sh -c 'print(\"ran\")' 2>&1");
}

// An empty `csv` checks the newest sweep, as make plots draws it.
Outcome check_curves(const std::string& csv) {
    return run_command("python3 bench/plots.py --check " + (csv.empty() ? "" : "'" + csv + "'") +
                       " 2>&1");
}

bool system_python_has_matplotlib() {
    return std::system("/usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1") == 0;
}
}  // namespace

TEST_CASE("plots: an interpreter without matplotlib is named, or the system's is used instead",
          "[plots]") {
    const Outcome o = run_with_python("/nonexistent/python3");
    if (system_python_has_matplotlib()) {
        CHECK(o.exit_code == 0);
        CHECK(o.output.find("note: /nonexistent/python3 has no matplotlib; "
                            "using /usr/bin/python3") != std::string::npos);
        CHECK(o.output.find("ran") != std::string::npos);
    } else {
        CHECK(o.exit_code == 1);
        CHECK(o.output.find("error: /nonexistent/python3 has no matplotlib") != std::string::npos);
        CHECK(o.output.find("/nonexistent/python3 -m pip install matplotlib") != std::string::npos);
        CHECK(o.output.find("ran") == std::string::npos);
    }
}

TEST_CASE("plots: every curve is in the newest sweep, under the program that its label names",
          "[plots]") {
    const Outcome o = check_curves("");
    CAPTURE(o.output);
    CHECK(o.exit_code == 0);
    CHECK(o.output.find("each labelled with the program that timed it") != std::string::npos);
}

TEST_CASE("plots: a curve that its program did not time in the CSV is caught", "[plots]") {
    const Outcome newest = check_curves("");
    const std::string before = " are in ", after = ", each labelled";
    const size_t from = newest.output.find(before), to = newest.output.find(after);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    std::ifstream in(newest.output.substr(from + before.size(), to - from - before.size()));
    REQUIRE(in);
    // The sweep as it would read had 142's own run timed COO, in the generator's order, in place
    // of 144's run on row-sorted COO: the curve labelled as 144's has no rows.
    std::ostringstream changed;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("144,coo_thread_per_nonzero,", 0) == 0) line.replace(0, 3, "142");
        changed << line << "\n";
    }
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("suite_sweep_coo_from_142_" + std::to_string(getpid()) + ".csv"))
            .string();
    std::ofstream(path) << changed.str();
    const Outcome o = check_curves(path);
    std::filesystem::remove(path);
    CAPTURE(o.output);
    CHECK(o.exit_code == 1);
    CHECK(o.output.find("COO, thread per nonzero, rows sorted (142's kernel, timed by 144): "
                        "no rows of program 144, kernel coo_thread_per_nonzero (timed by 142)") !=
          std::string::npos);
}
