// The opening of every kernel program: parse the flags, find out whether a GPU can run the
// kernels, and print the title and the line that says where the kernels run.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "cuda_support.cuh"
#include "emulator.cuh"
#include "here.cuh"
#include "options.h"

struct KernelProgram {
    ProgramOptions options;
    Backend backend;
    uint64_t seed = 0;  // the emulator's shuffle seed
    Here here = Here::gpu();

    bool on_gpu() const { return backend.gpu; }
    ThreadOrder shuffled_order() const { return ThreadOrder::shuffled(seed); }
};

inline KernelProgram start_kernel_program(int argc, char** argv, const ProgramDescription& d) {
    KernelProgram p;
    p.options = parse_options(argc, argv, d);
    p.seed = p.options.seed_given ? p.options.seed : fresh_emulation_seed();
    p.backend = detect_backend();
    p.here = p.on_gpu() ? Here::gpu() : Here::emulated(p.shuffled_order());
    if (p.on_gpu() && !p.options.max_memory_given)
        p.options.budget = default_memory_budget(p.backend.free_bytes);
    p.options.budget.on_gpu = p.on_gpu();
    g_memory_budget = p.options.budget;
    std::printf("=== %s ===\n", d.title.c_str());
    print_where_kernels_run(p.backend, p.seed);
    std::printf("\n");
    return p;
}
