// What 114 prints, checks and times around its lesson (114_csr_construction_cpu_baseline.cpp):
// its family's proof, build_proof.h, and its own description.
#pragma once
#include "build_proof.h"

inline ProgramDescription csr_construction_program() {
    return ProgramDescription(
               "114 (21.2) CPU baseline: CSR from a raw edge list by count, scan, scatter",
               {"make 114_csr_construction_cpu_baseline",
                "build/114_csr_construction_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}
