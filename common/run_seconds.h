// Where a run's seconds go, for the sweep (make bench): the wall seconds spent inside the timed
// GPU measurements (median_gpu_ms, warm-ups included, and the copy-bandwidth measurement around
// one) and the rest, the host's part: making or reading the input, the CPU baselines, the checks,
// the copies. A kernel program given --scale prints them before its tally in one line,
//   seconds: host=12.31 gpu=1.42 program=145
// so that a slow sweep says whether its time went to the kernels or to the host.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

using RunClock = std::chrono::steady_clock;

// Taken as the program starts, before main.
inline const RunClock::time_point kRunStart = RunClock::now();

inline double seconds_since(RunClock::time_point start) {
    return std::chrono::duration<double>(RunClock::now() - start).count();
}

struct RunSeconds {
    double gpu = 0;         // inside timed measurements
    int open_stretches = 0;  // timed stretches under way, one inside another
    std::string program;    // the number that the seconds: line names; "" prints no line
};

inline RunSeconds& run_seconds() {
    static RunSeconds seconds;
    return seconds;
}

// Its lifetime counts as GPU seconds. A stretch inside another (the copy-bandwidth measurement
// times its copies with median_gpu_ms) is already counted by the outer one.
class TimedStretch {
public:
    TimedStretch() : outermost_(run_seconds().open_stretches++ == 0) {}
    ~TimedStretch() {
        --run_seconds().open_stretches;
        if (outermost_) run_seconds().gpu += seconds_since(start_);
    }
    TimedStretch(const TimedStretch&) = delete;
    TimedStretch& operator=(const TimedStretch&) = delete;

private:
    bool outermost_;
    RunClock::time_point start_ = RunClock::now();
};

// "seconds: host=12.31 gpu=1.42 program=145": the seconds since the program started, less the
// timed ones, and the timed ones.
inline std::string seconds_line(const std::string& program) {
    const double gpu = run_seconds().gpu, host = seconds_since(kRunStart) - gpu;
    char line[96];
    std::snprintf(line, sizeof line, "seconds: host=%.2f gpu=%.2f program=%s", host, gpu,
                  program.c_str());
    return line;
}

// The line, where the program asked for one (a kernel program's --scale run).
inline void print_seconds_line() {
    if (!run_seconds().program.empty())
        std::printf("%s\n", seconds_line(run_seconds().program).c_str());
}
