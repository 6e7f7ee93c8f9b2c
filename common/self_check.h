// The one verification header. A program states each claim it makes through claim();
// the tally at the end turns the claims into the exit code (0 only if all hold).
#pragma once
#include <cstdio>
#include <string>
#include "memory_budget.h"
#include "text.h"

class SelfCheck {
public:
    // Programs print to stdout; a test of this class gives it a file of its own, so that its
    // deliberate MISMATCH does not show in a passing test run.
    explicit SelfCheck(std::FILE* out = stdout) : out_(out) {}

    bool claim(const std::string& what, bool holds) {
        print_line("self-check: " + what + ": " + (holds ? "confirmed" : "MISMATCH"));
        ++(holds ? confirmed_ : mismatched_);
        return holds;
    }

    // For claims that this machine cannot test; a skipped claim is not a failure.
    void skip(const std::string& what, const std::string& why = "needs a GPU") {
        print_line("self-check: " + what + ": skipped (" + why + ")");
        ++skipped_;
    }

    int mismatches() const { return mismatched_; }

    // A line to print after the tally, so that it is the program's last: the result: line.
    void end_with(const std::string& line) { last_line_ = line; }

    // Prints the tally and returns the program's exit code. A run whose input was held
    // against the memory budget first sets what it used beside what was estimated.
    int finish() const {
        if (g_estimated_bytes > 0 && out_ == stdout) print_memory_use();
        std::fprintf(out_, "\nself-check tally: %d confirmed, %d MISMATCH, %d skipped\n",
                     confirmed_, mismatched_, skipped_);
        if (!last_line_.empty()) std::fprintf(out_, "%s\n", last_line_.c_str());
        return mismatched_ == 0 ? 0 : 1;
    }

private:
    // At most kOutputColumns wide; a long claim continues on lines indented by 4, so that the
    // verdict always ends the claim's last line.
    void print_line(const std::string& line) const {
        if (out_ == stdout) {
            print_wrapped(line, 4);
            return;
        }
        std::fprintf(out_, "%s\n", line.c_str());
    }

    std::FILE* out_;
    int confirmed_ = 0;
    int mismatched_ = 0;
    int skipped_ = 0;
    std::string last_line_;
};
