// 122's own part of its proof: its title, its commands and its inputs. What it prints, checks
// and times is the family's, in sorted_coo_proof.cuh.
#pragma once
#include "sorted_coo_proof.cuh"

inline ProgramDescription one_pass_program() {
    return ProgramDescription(
               "122 (21.3) kernel: row-sorted COO -> CSR, one coalesced pass over the row ids",
               {"make 122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel",
                "build/122_sorted_coo_to_csr_one_pass_kernel --scale 22 --max-memory 8G"})
        .with_book_input("the card's example and one with empty rows and a duplicate")
        .with_memory({88, 36, 900e6});
}
