// Runs a built program as a user would, from the repository root, and reports what it printed,
// its exit code, its peak memory and its time. A program that runs past its time limit is
// killed, so that a hang fails the test instead of stalling the run.
#pragma once
// The folder that make test built the programs in (make BUILD=...), with its '/'.
#ifndef SUITE_BUILD
#define SUITE_BUILD "build/"
#endif
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

struct ProgramRun {
    int exit_code = -1;  // -1 when the program did not exit by itself
    int signal = 0;      // the signal that ended it, if one did
    bool timed_out = false;
    std::string out, err;
    double peak_bytes = 0;  // largest resident set
    double seconds = 0;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The lines of a text, without their line ends.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        lines.push_back(text.substr(start, end == std::string::npos ? end : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

// A program's output with each wrapped line (continued on a line indented by 4) made whole again.
inline std::string unwrapped(const std::string& text) {
    std::string whole;
    for (const std::string& line : lines_of(text)) {
        const bool continued = line.rfind("    ", 0) == 0 && !whole.empty();
        whole += continued ? " " + line.substr(4) : (whole.empty() ? "" : "\n") + line;
    }
    return whole;
}

// build/NAME, run with `args`; its output goes through files, so that a program that prints a
// lot cannot block on a full pipe.
// `address_space_limit`, when not 0, caps the child's virtual memory (RLIMIT_AS), so that an
// allocation fails as it would on a machine with less memory. The child then runs one OpenMP
// thread: on a machine of many cores the other threads' stacks alone would exceed the limit.
inline ProgramRun run_program(const std::string& name, const std::vector<std::string>& args,
                              double time_limit_seconds = 60, size_t address_space_limit = 0) {
    static int serial = 0;
    const std::string stem =
        (std::filesystem::temp_directory_path() /
         ("suite_run_" + std::to_string(getpid()) + "_" + std::to_string(serial++)))
            .string();
    const std::string out_path = stem + ".out", err_path = stem + ".err";
    const std::string binary = SUITE_BUILD + name;
    std::vector<std::string> argv_text = {binary};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);

    ProgramRun run;
    // Whatever this process has buffered would otherwise be written again by the child.
    std::fflush(nullptr);
    std::cout.flush();
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (address_space_limit > 0) {
            const rlimit limit{address_space_limit, address_space_limit};
            setrlimit(RLIMIT_AS, &limit);
            setenv("OMP_NUM_THREADS", "1", 1);
        }
        // stdin from /dev/null: a program never waits on the test's terminal (--step pauses
        // only where stdin is one).
        if (!std::freopen("/dev/null", "r", stdin) ||
            !std::freopen(out_path.c_str(), "w", stdout) ||
            !std::freopen(err_path.c_str(), "w", stderr))
            _exit(127);
        execv(binary.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    for (;;) {
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        if (done == pid) break;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > time_limit_seconds && !run.timed_out) {
            run.timed_out = true;
            kill(pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    run.peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
    run.out = slurp(out_path);
    run.err = slurp(err_path);
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
    return run;
}

// The value of `key=` on the program's result: line, or "" when there is none.
inline std::string result_field(const ProgramRun& run, const std::string& key) {
    const size_t line = run.out.rfind("\nresult: ");
    if (line == std::string::npos) return "";
    const std::string text = run.out.substr(line + 1, run.out.find('\n', line + 1) - line - 1);
    const size_t at = text.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size() + 2;
    return text.substr(begin, text.find(' ', begin) - begin);
}
