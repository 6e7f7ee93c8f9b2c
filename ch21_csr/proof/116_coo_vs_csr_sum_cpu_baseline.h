// What 116 prints, checks and times around its lesson (116_coo_vs_csr_sum_cpu_baseline.cpp):
// its family's proof, reduction_proof.h, and its own description.
#pragma once
#include "reduction_proof.h"

inline ProgramDescription coo_vs_csr_sum_program() {
    return ProgramDescription("116 (21.3) CPU baseline: total edge weight, over COO and over CSR",
                              {"make 116_coo_vs_csr_sum_cpu_baseline && "
                               "build/116_coo_vs_csr_sum_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}
