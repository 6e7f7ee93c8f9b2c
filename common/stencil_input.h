// The --stencil input that both chapters take in place of R-MAT's at --scale S: the Poisson
// matrix of stencils.h, held against the program's memory budget before it is built, announced by
// its input: line and described by its graph: line, as the R-MAT input is.
#pragma once
#include <cstdio>
#include <string>
#include "matrix_facts.h"
#include "options.h"
#include "stencils.h"
#include "text.h"

// "2D 5-point Poisson matrix, 2,048 x 2,048 grid (4,194,304 rows, 20,963,328 entries)".
inline std::string stencil_description(const StencilShape& shape) {
    const std::string side = with_separators(shape.side);
    const bool plane = shape.dimensions() == 2;
    return std::string(plane ? "2D 5-point" : "3D 7-point") + " Poisson matrix, " + side + " x " +
           side + (plane ? "" : " x " + side) + " grid (" + counted(shape.rows(), "row") + ", " +
           counted(shape.nnz(), "entry", "entries") + ")";
}

inline HostCoo stencil_input(const ProgramOptions& opt) {
    const StencilShape shape = stencil_shape(opt.stencil, opt.scale);
    const uint64_t rows = static_cast<uint64_t>(shape.rows());
    const std::string flags = std::string("--stencil ") +
                              (opt.stencil == StencilKind::two_d ? "2d" : "3d") + " --scale " +
                              std::to_string(opt.scale);
    require_memory(opt, flags, rows, rows, static_cast<uint64_t>(shape.nnz()));
    std::printf("input: %s\n", stencil_description(shape).c_str());
    announce_large(static_cast<size_t>(shape.nnz()), "building the Poisson matrix");
    HostCoo a = make_stencil(shape);
    std::printf("%s\n", graph_line(a, opt.scale, "none", shape.name()).c_str());
    return a;
}
