// The suite's one timing table. It measures the device-to-device copy bandwidth once, then
// prints one row per timed kernel for people (median time, GB/s of the bytes that the kernel
// must move at least, and that as a share of copy bandwidth), each followed by the timing: line
// of timing_line.h for scripts, which the sweep (make bench) collects. A comparison of two
// times is printed as a measurement; it never becomes a self-check.
#pragma once
#include <cstdio>
#include <string>
#include "cuda_support.cuh"
#include "kernel_program.cuh"
#include "text.h"
#include "timing_line.h"

class TimingTable {
public:
    // `program` is the number ("143"); `skew` the R-MAT skew, or a negative number where the
    // program's input is never an R-MAT matrix; a --matrix file, the book's example and a
    // --stencil matrix are none either way. `bytes_note` says what the byte counts count.
    TimingTable(const KernelProgram& p, std::string program, double skew,
                const std::string& bytes_note)
        : program_(std::move(program)),
          scale_(p.options.scale),
          matrix_(p.options.matrix_class()),
          skew_(matrix_ == "rmat" ? skew : -1),
          rmat_(skew_ >= 0 ? p.options.rmat.text() : "none"),
          device_(p.backend.device_name),
          copy_gbs_(measure_copy_gbs()) {
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s):\n", device_.c_str(),
                    timing_description().c_str(), copy_gbs_);
        if (!bytes_note.empty()) print_wrapped("  " + bytes_note, 2);
    }

    // Times `launch`, prints its rows, and returns the median in milliseconds. `kernel` names
    // it for scripts (letters, digits and underscores), `label` for people.
    template <class Launch>
    double time(const std::string& kernel, const std::string& label, double bytes,
                Launch&& launch) {
        const StepPausesHeld held;
        const double ms = median_gpu_ms(launch);
        report(kernel, label, bytes, ms);
        return ms;
    }

    // The rows of a time measured otherwise, such as one run of a whole solve.
    void report(const std::string& kernel, const std::string& label, double bytes,
                double ms) const {
        const double gbs = gb_per_s(bytes, ms);
        std::printf("  %-46s %9.3f ms %7.0f GB/s (%5.1f%% of copy)\n", label.c_str(), ms, gbs,
                    100 * gbs / copy_gbs_);
        std::printf("%s\n", timing_line(kernel, ms, gbs).c_str());
    }

    // "  ratio cuSPARSE / thread per row: 0.75", with what a ratio below 1 means.
    void ratio(const std::string& what, double value, const std::string& below_one = "") const {
        std::printf("  ratio %s: %.2f%s\n", what.c_str(), value,
                    below_one.empty() ? "" : (" (below 1: " + below_one + ")").c_str());
    }

    // A kernel not timed on this input: `why` for people, its skipped: line for scripts.
    void skipped(const std::string& kernel, const std::string& why,
                 const std::string& reason) const {
        print_wrapped("  (" + why + ")", 4);
        std::printf("%s\n", skipped_line({program_, kernel, scale_, skew_, rmat_, 0, 0, copy_gbs_,
                                           device_, matrix_},
                                          reason)
                               .c_str());
    }

    double copy_gbs() const { return copy_gbs_; }

    std::string timing_line(const std::string& kernel, double ms, double gbs) const {
        return ::timing_line(
            {program_, kernel, scale_, skew_, rmat_, ms, gbs, copy_gbs_, device_, matrix_});
    }

private:
    std::string program_;
    int scale_;
    std::string matrix_;
    double skew_;
    std::string rmat_;
    std::string device_;
    double copy_gbs_;
};
