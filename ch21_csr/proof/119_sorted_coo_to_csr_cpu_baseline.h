// 119's own part of its proof: its title, its commands and its inputs. What it prints, checks
// and times is the family's, in sorted_coo_proof.cuh.
#pragma once
#include "sorted_coo_proof.cuh"

inline ProgramDescription sorted_coo_to_csr_cpu_program() {
    return ProgramDescription(
               "119 (21.3) CPU baseline: row-sorted COO -> CSR, one lower-bound search per row "
               "boundary",
               {"make 119_sorted_coo_to_csr_cpu_baseline",
                "build/119_sorted_coo_to_csr_cpu_baseline"})
        .with_book_input(
            "the card's example, one with empty rows and a duplicate, three bad inputs")
        .without_inputs();
}
