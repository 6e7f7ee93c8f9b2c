// The one verification header. A program states each claim it makes through claim();
// the tally at the end turns the claims into the exit code (0 only if all hold).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <string>
#include "memory_budget.h"
#include "run_seconds.h"
#include "text.h"

// --quiet: the verdict lines (the tally, then the result: line) go to this stream, a copy of
// the real stdout, while stdout itself goes to /dev/null. Null when every line is printed.
inline std::FILE*& verdict_stream() {
    static std::FILE* stream = nullptr;
    return stream;
}

inline void keep_only_verdicts() {
    std::fflush(stdout);
    verdict_stream() = fdopen(dup(fileno(stdout)), "w");
    if (verdict_stream() == nullptr || std::freopen("/dev/null", "w", stdout) == nullptr) {
        std::perror("--quiet");
        std::exit(2);
    }
}

// Why a claim that only a GPU can test was skipped; in a build without the CUDA Toolkit (make
// without nvcc), nothing was built for a GPU, and its library routes are left out.
#ifdef SUITE_EMULATOR_ONLY
inline const std::string kNeedsGpu = "needs a GPU: the build had no CUDA Toolkit";
#else
inline const std::string kNeedsGpu = "needs a GPU";
#endif

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
    void skip(const std::string& what, const std::string& why = kNeedsGpu) {
        print_line("self-check: " + what + ": skipped (" + why + ")");
        ++skipped_;
    }

    int mismatches() const { return mismatched_; }

    // A line to print after the tally, so that it is the program's last: the result: line.
    void end_with(const std::string& line) { last_line_ = line; }

    // Prints the tally and returns the program's exit code. A run whose input was held
    // against the memory budget first sets what it used beside what was estimated, and a
    // kernel program's --scale run where its seconds went.
    int finish() const {
        if (g_estimated_bytes > 0 && out_ == stdout) print_memory_use();
        if (out_ == stdout) print_seconds_line();
        std::FILE* verdicts = out_ == stdout && verdict_stream() ? verdict_stream() : out_;
        std::fprintf(verdicts, "%sself-check tally: %d confirmed, %d MISMATCH, %d skipped\n",
                     verdicts == out_ ? "\n" : "", confirmed_, mismatched_, skipped_);
        if (!last_line_.empty()) std::fprintf(verdicts, "%s\n", last_line_.c_str());
        std::fflush(verdicts);
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
