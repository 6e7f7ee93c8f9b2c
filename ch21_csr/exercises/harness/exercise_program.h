// What chapter 21's exercises share: the opening (exercise_opening.h), the inputs' type, and
// the run over the inputs, which ends with the result: line of a graph that the flags chose.
#pragma once
#include <cstdio>
#include <string>
#include <utility>
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

// The opening of an exercise on graphs, which --scale and --matrix give as they give the
// chapter's programs: `memory` is the model of the lesson that it follows.
inline KernelProgram start_graph_exercise(int argc, char** argv, const std::string& name,
                                          const std::string& title, const std::string& inputs,
                                          MemoryModel memory) {
    return start_exercise(argc, argv,
                          {name, title, inputs, "data/karate.mtx", graph_scale_input(), memory});
}

// Runs check_input(input, check) on each default input, or on the graph that the flags name,
// made an input by of_graph(name, coo), and returns the exit code.
template <class Input, class OfGraph, class CheckInput>
int run_exercise_on(const KernelProgram& p, std::vector<Input> inputs, OfGraph&& of_graph,
                    CheckInput&& check_input) {
    SelfCheck check;
    if (!p.options.book_example()) {
        const HostCoo chosen = chapter_input(p.options);
        inputs = {of_graph(p.options.chosen_input_name(), chosen)};
        check.end_with(result_line(chosen));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i > 0) std::printf("\n");
        check_input(inputs[i], check);
    }
    return check.finish();
}

template <class CheckInput>
int run_exercise(const KernelProgram& p, std::vector<ExerciseInput> inputs,
                 CheckInput&& check_input) {
    return run_exercise_on(
        p, std::move(inputs),
        [](const std::string& name, const HostCoo& coo) { return ExerciseInput{name, coo}; },
        check_input);
}
