// What exercises 21.2 and 21.3 share: each finds the row_offsets of a row-sorted COO with one
// kernel, on the same inputs, and is checked against 119's cross-check, 114's count of each
// row's entries and scan of the counts: it does not depend on the order of the entries, so it
// shares neither kernel's idea. The columns and values need no kernel: they are already in CSR
// order.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "../../../common/device_formats.cuh"
// 119's lesson: the CPU baseline that the exercises' answers are held to
#include "../../119_sorted_coo_to_csr_cpu_baseline.cpp"
#include "exercise_program.h"

// The card's example; empty rows at the start, in the middle and at the end, with a duplicate;
// four rows and no entries at all; and an R-MAT graph sorted by row.
inline std::vector<ExerciseInput> row_sorted_inputs() {
    return {
        {"the card's example", card_example()},
        {"empty rows and a duplicate", gaps_and_duplicate_example()},
        {"no entries", coo_of(4, 4, {}, {}, {})},
        {"R-MAT scale 10", sorted_by_row(make_rmat(10, kEdgeFactor, kDefaultSkew, kGraphSeed))}};
}

// `launch(here, coo, row_offsets)` runs the exercise's kernel on offsets that start poisoned
// (every byte 0xFF, so an offset that no thread wrote reads -1).
template <class LaunchOffsets>
void check_row_offsets(const KernelProgram& p, const ExerciseInput& input, LaunchOffsets&& launch,
                       SelfCheck& check) {
    const HostCoo coo = sorted_by_row(input.coo);
    print_wrapped("--- " + input.name + ": " + counted(coo.num_rows, "row") + ", " +
                  counted(coo.nnz(), "entry", "entries") + ", sorted by row ---");
    const DeviceCoo d(p.here, coo);
    DeviceArray<int> row_offsets(p.here, static_cast<size_t>(coo.num_rows) + 1);
    row_offsets.fill_bytes(0xFF);
    launch(p.here, d, row_offsets.data());
    const std::vector<int> got = row_offsets.download();
    const std::vector<int> row_offsets_cpu = scan_degrees(count_degrees(coo));
    if (printable(coo)) {
        print_array("rows", coo.rows, 15);
        print_array("row_offsets", got, 15);
        print_array("row_offsets_cpu", row_offsets_cpu, 15);
        std::printf("\n");
    }
    check.claim(input.name + ": every offset was written (none is still -1)",
                std::none_of(got.begin(), got.end(), [](int k) { return k < 0; }));
    check.claim(input.name + ": row_offsets equal the baseline's (count, then scan)",
                got == row_offsets_cpu);
}

// An exercise's whole run: `name` is its binary's, `launch` its kernel's launch. The memory
// model is 120's.
template <class LaunchOffsets>
int run_row_offsets_exercise(int argc, char** argv, const std::string& name,
                             const std::string& title, LaunchOffsets&& launch) {
    const KernelProgram p = start_exercise(
        argc, argv,
        {name,
         title,
         "the card's example, empty rows and a duplicate, no entries, R-MAT 2^10 rows",
         "data/netscience.mtx",
         graph_scale_input(),
         {88, 36, 900e6}});
    return run_exercise(p, row_sorted_inputs(), [&](const ExerciseInput& input, SelfCheck& check) {
        check_row_offsets(p, input, launch, check);
    });
}
