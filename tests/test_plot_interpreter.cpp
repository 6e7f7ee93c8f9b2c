// make plots' choice of interpreter (bench/python_with_matplotlib.sh): one that cannot be run
// or lacks matplotlib is named in the error with the install command for itself, exit 1, unless
// /usr/bin/python3 has matplotlib, which is then used and named.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace {
struct Outcome {
    int exit_code;
    std::string output;
};

Outcome run_with_python(const std::string& python) {
    const std::string command = "PYTHON='" + python +
                                "' bench/python_with_matplotlib.sh -c 'print(\"ran\")' 2>&1";
    Outcome o{-1, ""};
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) o.output += buffer;
    const int status = pclose(pipe);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
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
