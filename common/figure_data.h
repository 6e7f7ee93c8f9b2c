// --figure-data FILE: the arrays of a lesson and the elements that each thread touches, as JSON
// (json_writer.h), for the lesson figures that `make figures` draws (bench/figures.py). Each
// program that offers it writes its own data as a named step of its proof file.
#pragma once
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "json_writer.h"
#include "options.h"

inline bool wants_figure_data(const ProgramOptions& opt) {
    return !opt.figure_data.empty();
}

// The figure's data, begun by begin_figure_data, ended and written to --figure-data's file; a
// file that cannot be written ends the program with its reason (exit 2).
inline void write_figure_data(const ProgramOptions& opt, JsonWriter& figure) {
    const std::string text = figure.end().text();
    std::FILE* out = std::fopen(opt.figure_data.c_str(), "w");
    if (out == nullptr)
        fail_bad_input("--figure-data " + opt.figure_data +
                       ": cannot write it: " + std::strerror(errno));
    const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (std::fclose(out) != 0 || !written)
        fail_bad_input("--figure-data " + opt.figure_data + ": writing it failed");
    std::printf("figure data: written to %s\n", opt.figure_data.c_str());
}

// The opening of every figure's data: which program wrote it, from which input.
inline JsonWriter begin_figure_data(const ProgramOptions& opt, const std::string& program) {
    JsonWriter figure;
    figure.begin_object().field("program", program).field("input", opt.matrix_class());
    return figure;
}

// Each row's slice of a compressed format, [offsets[r], offsets[r + 1]): the elements that one
// thread per row reads (a vertex's neighbours in CSR, a column's sources in CSC).
inline void add_slices(JsonWriter& figure, const std::string& name,
                       const std::vector<int>& offsets) {
    figure.key(name).begin_array();
    for (size_t r = 0; r + 1 < offsets.size(); ++r)
        figure.begin_object().field("begin", offsets[r]).field("end", offsets[r + 1]).end();
    figure.end();
}
