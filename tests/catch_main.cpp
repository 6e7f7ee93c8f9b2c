// The test runner: Catch2's main, compiled once. It hides the [gpu] tests, saying so, where no
// GPU can run them, and ends with the tally line "N passed, M failed, K skipped".
#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include "gpu_probe.h"

namespace {
int passed_cases = 0;
int failed_cases = 0;

struct TallyListener : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        ++(stats.totals.assertions.failed == 0 ? passed_cases : failed_cases);
    }
};
}  // namespace
CATCH_REGISTER_LISTENER(TallyListener)

int main(int argc, char** argv) {
    Catch::Session session;
    if (const int rc = session.applyCommandLine(argc, argv)) return rc;

    std::string where;
    const bool gpu = gpu_for_tests(where);
    int skipped = 0;
    if (gpu) {
        std::printf("[gpu] tests run on %s\n", where.c_str());
    } else {
        for (const auto& test : Catch::getAllTestCasesSorted(session.config()))
            skipped += std::count(test.tags.begin(), test.tags.end(), "gpu") > 0;
        auto& filters = session.configData().testsOrTags;
        if (filters.empty())
            filters.push_back("~[gpu]");
        else
            for (auto& f : filters) f += " ~[gpu]";
        session.useConfigData(session.configData());
        std::printf("[gpu] tests: %d skipped (no CUDA device: %s)\n", skipped, where.c_str());
    }
    session.run();
    std::printf("tests: %d passed, %d failed, %d skipped\n", passed_cases, failed_cases, skipped);
    return failed_cases == 0 ? 0 : 1;
}
