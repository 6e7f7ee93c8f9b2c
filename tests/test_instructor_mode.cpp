// Instructor mode, run as a lecture would: --quiet leaves only the verdict lines, --order fixes
// the emulator's thread order (A, B, reverse or a seed), and --step pauses after each kernel
// launch when stdin is a terminal (a pseudo-terminal here) and never otherwise.
#include <catch2/catch.hpp>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string>
#include <vector>
#include "run_program.h"

namespace {

bool is_tally(const std::string& line) {
    return line.rfind("self-check tally: ", 0) == 0 && line.find(" 0 MISMATCH") != std::string::npos;
}

// The first line of `text` that starts with `prefix`, or "".
std::string first_line(const std::string& text, const std::string& prefix) {
    for (const std::string& line : lines_of(text))
        if (line.rfind(prefix, 0) == 0) return line;
    return "";
}

}  // namespace

TEST_CASE("--quiet prints only the tally, and the result: line after it", "[instructor]") {
    const ProgramRun cpu = run_program("112_csr_conversion_cpu_baseline", {"--quiet"});
    CHECK(cpu.exit_code == 0);
    const std::vector<std::string> cpu_lines = lines_of(cpu.out);
    REQUIRE(cpu_lines.size() == 1);
    CHECK(is_tally(cpu_lines[0]));
    const ProgramRun file = run_program("143_spmv_csr_kernel", {"--quiet", "--matrix", "data/karate.mtx"});
    CHECK(file.exit_code == 0);
    const std::vector<std::string> file_lines = lines_of(file.out);
    REQUIRE(file_lines.size() == 2);
    CHECK(is_tally(file_lines[0]));
    CHECK(file_lines[1].rfind("result: rows=34 cols=34 nnz=156", 0) == 0);
    const ProgramRun book = run_program("148_spmv_merge_path_kernel", {"--quiet"});
    CHECK(book.exit_code == 0);
    REQUIRE(lines_of(book.out).size() == 1);
    CHECK(is_tally(lines_of(book.out)[0]));
}

TEST_CASE("--order and --step are refused where they mean nothing, or with --seed",
          "[instructor]") {
    CHECK(run_program("112_csr_conversion_cpu_baseline", {"--order", "A"}).exit_code == 2);
    CHECK(run_program("114_csr_construction_cpu_baseline", {"--step"}).exit_code == 2);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--order", "C"}, {"--order", "-1"}, {"--order"},
          {"--order", "A", "--seed", "3"}, {"--order", "4", "--order", "A"}}) {
        const ProgramRun run = run_program("115_csr_concurrent_construction_kernel", args);
        CHECK(run.exit_code == 2);
        CHECK(lines_of(run.err).size() >= 1);
    }
}

TEST_CASE("--order changes the emulated layout of 115 as the book's orders do",
          "[instructor][emulation]") {
    const ProgramRun a = run_program("115_csr_concurrent_construction_kernel", {"--order", "A"});
    if (a.out.find("\n[gpu] ") != std::string::npos) {
        WARN("a GPU ran the kernels, which takes no order: nothing to compare");
        return;
    }
    const ProgramRun b = run_program("115_csr_concurrent_construction_kernel", {"--order", "B"});
    const ProgramRun reverse =
        run_program("115_csr_concurrent_construction_kernel", {"--order", "reverse"});
    for (const ProgramRun* run : {&a, &b, &reverse}) CHECK(run->exit_code == 0);
    // The emulated build is the first layout printed after the baseline's (indented by two).
    auto built_layout = [](const ProgramRun& run) {
        const std::vector<std::string> lines = lines_of(run.out);
        int seen = 0;
        for (const std::string& line : lines)
            if (line.rfind("  col_idx     = ", 0) == 0 && ++seen == 2) return line;
        return std::string();
    };
    CHECK(built_layout(a) == "  col_idx     = [ 1 2 2 3 3 4 4 5 5 ]");
    CHECK(built_layout(b) == "  col_idx     = [ 2 1 3 2 3 4 5 4 5 ]");
    CHECK(built_layout(reverse) == "  col_idx     = [ 2 1 3 2 4 3 5 4 5 ]");
    CHECK(first_line(a.out, "[emulation]").find("in order A (ascending thread index)") !=
          std::string::npos);
    const ProgramRun by_order = run_program("115_csr_concurrent_construction_kernel", {"--order", "7"});
    const ProgramRun by_seed = run_program("115_csr_concurrent_construction_kernel", {"--seed", "7"});
    CHECK(by_order.exit_code == 0);
    CHECK(by_order.out == by_seed.out);
}

TEST_CASE("--step is off, and says so, when stdin is not a terminal", "[instructor]") {
    const ProgramRun plain = run_program("117_coo_edge_parallel_reduce_kernel", {"--seed", "3"});
    const ProgramRun stepped =
        run_program("117_coo_edge_parallel_reduce_kernel", {"--seed", "3", "--step"});
    CHECK(stepped.exit_code == 0);
    CHECK(stepped.out.find("(--step is off: stdin is not a terminal)") != std::string::npos);
    CHECK(stepped.out.find("[step ") == std::string::npos);
    CHECK(first_line(stepped.out, "self-check tally") == first_line(plain.out, "self-check tally"));
}

TEST_CASE("--step pauses after each launch until Enter, on a terminal", "[instructor]") {
    int terminal = -1;
    const pid_t pid = forkpty(&terminal, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
        execl(SUITE_BUILD "117_coo_edge_parallel_reduce_kernel", "117", "--step", "--seed", "3",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    std::string out;
    int pauses = 0;
    for (int waited_ms = 0; waited_ms < 60000;) {
        pollfd ready{terminal, POLLIN, 0};
        if (poll(&ready, 1, 100) <= 0) {
            waited_ms += 100;
            continue;
        }
        char buffer[4096];
        const ssize_t got = read(terminal, buffer, sizeof buffer);
        if (got <= 0) break;
        out.append(buffer, static_cast<size_t>(got));
        int prompts = 0;
        for (size_t at = out.find("press Enter"); at != std::string::npos;
             at = out.find("press Enter", at + 1))
            ++prompts;
        for (; pauses < prompts; ++pauses) REQUIRE(write(terminal, "\n", 1) == 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    close(terminal);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(pauses >= 3);
    CHECK(out.find("[step 1] a launch of ") != std::string::npos);
    CHECK(out.find(" 0 MISMATCH") != std::string::npos);
}
