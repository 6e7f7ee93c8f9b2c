// 121's own part of its proof: its title, its commands and its inputs. What it prints, checks
// and times is the family's, in sorted_coo_proof.cuh.
#pragma once
#include "sorted_coo_proof.cuh"

inline ProgramDescription chunked_coo_to_csr_program() {
    return ProgramDescription(
               "121 (21.3) kernel: sorted COO -> CSR over chunked storage, never concatenated",
               {"make 121_chunked_coo_to_csr_kernel && build/121_chunked_coo_to_csr_kernel",
                "build/121_chunked_coo_to_csr_kernel --scale 20"})
        .with_book_input("an 8-row example in 5 input and 3 output chunks, the card's, bad inputs")
        .with_memory({132, 28, 900e6});
}
