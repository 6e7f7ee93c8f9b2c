// The opening of every kernel program: parse the flags, find out whether a GPU can run the
// kernels, and print the title and the line that says where the kernels run.
#pragma once
#include <cstdio>
#include <exception>
#include <unistd.h>
#include <string>
#include <vector>
#include "cuda_support.cuh"
#include "emulator.cuh"
#include "here.cuh"
#include "options.h"
#include "text.h"

struct KernelProgram {
    ProgramOptions options;
    Backend backend;
    uint64_t seed = 0;  // the emulator's shuffle seed
    Here here = Here::gpu();

    bool on_gpu() const { return backend.gpu; }
    ThreadOrder shuffled_order() const { return ThreadOrder::shuffled(seed); }

    // The emulator's order: shuffled by the seed, unless --order names a fixed one.
    ThreadOrder emulation_order() const {
        if (options.order == "A") return ThreadOrder::ascending();
        if (options.order == "B") return ThreadOrder::repeating(kBookOrderB);
        if (options.order == "reverse") return ThreadOrder::descending();
        return shuffled_order();
    }
    // --order A, B or reverse: one order for every launch, where a seed would shuffle each.
    bool fixed_order() const { return !emulation_order().is_shuffled(); }
    std::string emulation_order_words() const {
        if (options.order == "A") return "in order A (ascending thread index)";
        if (options.order == "B")
            return "in order B (the book's order B over each group of nine threads)";
        if (options.order == "reverse") return "in reverse order (descending thread index)";
        return "in shuffled order";
    }
};

// Where the kernels ran, for a figure's data: "GPU", or the emulator and its order.
inline std::string where_kernels_ran(const KernelProgram& p) {
    return p.on_gpu() ? "GPU" : "emulated, " + p.emulation_order_words();
}

// An emulated launch over millions of items takes the host seconds: it says what it is doing
// as it starts, as every long step does (announce).
inline void announce_emulation(const KernelProgram& p, size_t items, const std::string& step) {
    if (!p.on_gpu() && items >= kAnnouncedSize) announce(step + " in emulated threads");
}

// What the emulator stops a kernel for (a lane that leaves while its warp waits for it, lanes
// that wait for each other) would hang or corrupt a GPU run: the program says what it was in one
// line and fails, exit code 1, as a wrong result does.
[[noreturn]] inline void report_stopped_kernel() {
    std::fflush(stdout);
    try {
        if (std::current_exception()) std::rethrow_exception(std::current_exception());
        std::fprintf(stderr, "error: the program stopped without a reason\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "error: an unknown exception\n");
    }
    std::_Exit(1);
}

#ifdef SUITE_RACE_CHECK
inline void print_race_check_line(const KernelProgram& p, const std::string& seed_words) {
    if (runs_threads_at_once(p.here.order()))
        std::printf(
            "[emulation] race check (ThreadSanitizer): kernels run on the host, each launch's "
            "threads on %u host threads at once, dealt out in shuffled order%s\n",
            kRaceCheckWorkers, seed_words.c_str());
    else
        std::printf(
            "[emulation] race check (ThreadSanitizer): kernels run on the host one thread at a "
            "time, %s%s: a fixed order is a replay, in which no race can show\n",
            p.emulation_order_words().c_str(), seed_words.c_str());
}
#endif

inline KernelProgram start_kernel_program(int argc, char** argv, const ProgramDescription& d) {
    std::set_terminate(report_stopped_kernel);
    keep_freed_memory_for_reuse();
    KernelProgram p;
    p.options = parse_options(argc, argv, d);
    if (p.options.quiet) keep_only_verdicts();
    p.seed = p.options.seed_given ? p.options.seed : fresh_emulation_seed();
#ifdef SUITE_RACE_CHECK
    // The race check is an emulator: it leaves a GPU that is there unused.
    p.backend.reason = "race check";
#else
    p.backend = detect_backend();
#endif
    p.here = p.on_gpu() ? Here::gpu() : Here::emulated(p.emulation_order());
    if (p.on_gpu() && !p.options.max_memory_given)
        p.options.budget = default_memory_budget(p.backend.free_bytes);
    p.options.budget.on_gpu = p.on_gpu();
    g_memory_budget = p.options.budget;
    // The title starts with the program's number: "145 (14.4) kernel: ...".
    if (p.options.scale > 0) run_seconds().program = d.title.substr(0, d.title.find(' '));
    std::printf("=== %s ===\n", d.title.c_str());
    const std::string seed_words = p.options.order.empty() || p.options.seed_given
                                       ? ", seed " + std::to_string(p.seed)
                                       : "";
#ifdef SUITE_RACE_CHECK
    print_race_check_line(p, seed_words);
#else
    print_where_kernels_run(p.backend, p.emulation_order_words() + seed_words);
    print_gpu_limits_line(p.on_gpu());
#endif
    if (p.options.step) {
        step_pauses().on = isatty(fileno(stdin)) != 0;
        if (!step_pauses().on) std::printf("(--step is off: stdin is not a terminal)\n");
    }
    std::printf("\n");
    return p;
}
