// The opening that the exercises of both chapters share (chapter 14's include it from here): the
// flags, the title, the line that says where the kernels run, and the name of an input that the
// flags chose. An exercise checks its own small inputs; --scale S or --matrix FILE checks that
// input instead, and --seed N repeats an emulated run's thread order.
#pragma once
#include <string>
#include "../../../common/kernel_program.cuh"

struct ExerciseFacts {
    std::string name;          // the binary's: build/exercises/NAME
    std::string title;         // the first line that it prints
    std::string inputs;        // what it checks when no input is given
    std::string example_file;  // a file of data/, for the --matrix example of its --help
    std::string scale_input;   // what --scale S gives
    MemoryModel memory;        // the lesson's measured model, which covers the exercise's arrays
};

inline KernelProgram start_exercise(int argc, char** argv, const ExerciseFacts& facts) {
    const std::string binary = "build/exercises/" + facts.name;
    return start_kernel_program(
        argc, argv,
        ProgramDescription(facts.title,
                           {"make exercises", "make " + facts.name + " && " + binary,
                            binary + " --seed 7", binary + " --matrix " + facts.example_file})
            .with_book_input(facts.inputs)
            .with_scale_input(facts.scale_input)
            .with_memory(facts.memory));
}
