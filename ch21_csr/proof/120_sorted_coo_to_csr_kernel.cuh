// 120's own part of its proof: its title, its commands and its inputs. What it prints, checks
// and times is the family's, in sorted_coo_proof.cuh.
#pragma once
#include "sorted_coo_proof.cuh"

inline ProgramDescription sorted_coo_to_csr_program() {
    return ProgramDescription(
               "120 (21.3) kernel: row-sorted COO -> CSR, one lower-bound search per row boundary",
               {"make 120_sorted_coo_to_csr_kernel && build/120_sorted_coo_to_csr_kernel",
                "build/120_sorted_coo_to_csr_kernel --scale 22 --max-memory 8G",
                "build/120_sorted_coo_to_csr_kernel --matrix data/netscience.mtx"})
        .with_book_input("the card's example, one with empty rows and a duplicate, bad inputs")
        .with_memory({88, 36, 900e6});
}
