// The one verification header. A program states each claim it makes through claim();
// the tally at the end turns the claims into the exit code (0 only if all hold).
#pragma once
#include <cstdio>
#include <string>
#include "memory_budget.h"

class SelfCheck {
public:
    bool claim(const std::string& what, bool holds) {
        std::printf("self-check: %s: %s\n", what.c_str(), holds ? "confirmed" : "MISMATCH");
        ++(holds ? confirmed_ : mismatched_);
        return holds;
    }

    // For claims that this machine cannot test; a skipped claim is not a failure.
    void skip(const std::string& what, const std::string& why = "needs a GPU") {
        std::printf("self-check: %s: skipped (%s)\n", what.c_str(), why.c_str());
        ++skipped_;
    }

    int mismatches() const { return mismatched_; }

    // A line to print after the tally, so that it is the program's last: the result: line.
    void end_with(const std::string& line) { last_line_ = line; }

    // Prints the tally and returns the program's exit code. A run whose input was held
    // against the memory budget first sets what it used beside what was estimated.
    int finish() const {
        if (g_estimated_bytes > 0) print_memory_use();
        std::printf("\nself-check tally: %d confirmed, %d MISMATCH, %d skipped\n", confirmed_,
                    mismatched_, skipped_);
        if (!last_line_.empty()) std::printf("%s\n", last_line_.c_str());
        return mismatched_ == 0 ? 0 : 1;
    }

private:
    int confirmed_ = 0;
    int mismatched_ = 0;
    int skipped_ = 0;
    std::string last_line_;
};
