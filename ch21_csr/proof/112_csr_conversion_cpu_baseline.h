// What 112 prints, checks and times around its lesson (112_csr_conversion_cpu_baseline.cpp):
// its family's proof, build_proof.h, and its own description.
#pragma once
#include "build_proof.h"

inline ProgramDescription csr_conversion_program() {
    return ProgramDescription("112 (21.1) CPU baseline: adjacency list -> CSR",
                              {"make 112_csr_conversion_cpu_baseline && "
                               "build/112_csr_conversion_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_figure_data("the adjacency list, the CSR arrays and each vertex's slice")
        .without_inputs();
}
