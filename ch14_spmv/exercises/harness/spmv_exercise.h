// What chapter 14's exercises share: the opening (exercise_opening.h), the matrices, the lessons'
// x and y0, and the reference that every y is judged by: spmv_reference, a sum in double with
// float32's error bound for each row. A matrix that --scale or --matrix chose is checked instead
// of the exercise's own, and its run ends with its result: line.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "../../../common/kernel_program.cuh"
#include "../../../common/self_check.h"
#include "../../chapter_inputs.h"
// The opening is the same in both chapters, and is written once, with chapter 21's exercises.
#include "../../../ch21_csr/exercises/harness/exercise_opening.h"

struct ExerciseMatrix {
    std::string name;
    HostCoo coo;  // sorted by row
};

// 6 x 5: rows 0, 2, 3 and 5 (the last) have no entries; (4, 3) is stored twice.
inline HostCoo empty_rows_and_duplicate() {
    return coo_of(6, 5, {1, 1, 4, 4, 4}, {0, 3, 1, 3, 3}, {2, 4, 3, 5, 7});
}

// Fig. 14.1, a matrix with empty rows and a duplicate, and an R-MAT matrix whose rows are all
// of about the same length (a = 0.25), so that ELL's padding stays small.
inline std::vector<ExerciseMatrix> exercise_matrices() {
    return {{"Fig. 14.1", fig14_1()},
            {"empty rows and a duplicate", empty_rows_and_duplicate()},
            {"R-MAT scale 8", sorted_by_row(make_rmat(8, kEdgeFactor, kMinSkew, kMatrixSeed))}};
}

// The opening of a chapter 14 exercise: `memory` is the model of the lesson that it follows.
inline KernelProgram start_spmv_exercise(int argc, char** argv, const std::string& name,
                                         const std::string& title, const std::string& matrices,
                                         MemoryModel memory) {
    return start_exercise(argc, argv,
                          {name, title, matrices, "data/1138_bus.mtx",
                           "an R-MAT matrix of 2^S rows and 16 * 2^S entries", memory});
}

inline bool any_nan(const std::vector<float>& y) {
    for (float v : y)
        if (std::isnan(v)) return true;
    return false;
}

// Runs the exercise on each matrix, or on the one that the flags name, and returns the exit
// code. multiply(here, coo, x, y0) returns y = A * x + y0 by the exercise's kernel;
// more_claims(matrix, x, y0, y, check) adds the exercise's own claims.
template <class Multiply, class MoreClaims>
int run_spmv_exercise(const KernelProgram& p, std::vector<ExerciseMatrix> matrices,
                      Multiply&& multiply, MoreClaims&& more_claims) {
    SelfCheck check;
    if (!p.options.book_example())
        matrices = {{p.options.chosen_input_name(), sorted_by_row(spmv_input(p.options))}};
    for (size_t i = 0; i < matrices.size(); ++i) {
        const ExerciseMatrix& m = matrices[i];
        if (i > 0) std::printf("\n");
        print_wrapped("--- " + m.name + ": " + with_separators(m.coo.num_rows) + " x " +
                      with_separators(m.coo.num_cols) + ", " +
                      counted(m.coo.nnz(), "entry", "entries") + ", sorted by row ---");
        const std::vector<float> x = lesson_x(m.coo.num_cols), y0 = lesson_y0(m.coo.num_rows);
        const std::vector<float> y = multiply(p.here, m.coo, x, y0);
        const SpmvReference reference = spmv_reference(m.coo, x, y0);
        if (printable(m.coo)) {
            print_array("y", y, 9);
            print_array("reference", reference.y, 9);
            std::printf("\n");
        }
        check.claim(m.name + ": y is within float32 rounding of the reference",
                    spmv_matches(y, reference));
        more_claims(m, x, y0, y, check);
    }
    if (!p.options.book_example()) {
        const HostCoo& a = matrices.front().coo;
        check.end_with(
            spmv_result_line(a, multiply(p.here, a, ones(a.num_cols), zeros(a.num_rows))));
    }
    return check.finish();
}
