// What 113 prints, checks and times around its lesson (113_csr_neighbor_sum_kernel.cu):
// its family's proof, reduction_proof.cuh, and its own description.
#pragma once
#include "reduction_proof.cuh"

inline ProgramDescription neighbor_sum_program() {
    return ProgramDescription(
               "113 (21.1) kernel: one thread per vertex sums its CSR slice",
               {"make 113_csr_neighbor_sum_kernel && build/113_csr_neighbor_sum_kernel",
                "build/113_csr_neighbor_sum_kernel --scale 20 --skew 0.7",
                "build/113_csr_neighbor_sum_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 directed edges")
        .with_memory({56, 72, 900e6});
}
