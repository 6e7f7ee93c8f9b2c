// What chapter 21's exercises share: the opening (exercise_opening.h), the inputs' type, and
// the run over the inputs, which ends with the result: line of an input that the flags chose.
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "../../../common/matrix_facts.h"
#include "../../../common/self_check.h"
#include "../../chapter_inputs.h"
#include "exercise_opening.h"

struct ExerciseInput {
    std::string name;
    HostCoo coo;
};

// What --scale S gives a chapter 21 exercise, as it does the chapter's programs.
inline std::string graph_scale_input() {
    return "an R-MAT graph of 2^S vertices and 16 * 2^S edges";
}

// Runs check_input(input, check) on each default input, or on the one that the flags name,
// and returns the exit code.
template <class CheckInput>
int run_exercise(const KernelProgram& p, std::vector<ExerciseInput> inputs,
                 CheckInput&& check_input) {
    SelfCheck check;
    if (!p.options.book_example()) {
        inputs = {{p.options.chosen_input_name(), chapter_input(p.options)}};
        check.end_with(result_line(inputs.front().coo));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i > 0) std::printf("\n");
        check_input(inputs[i], check);
    }
    return check.finish();
}
