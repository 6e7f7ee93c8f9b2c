// What 117 prints, checks and times around its lesson (117_coo_edge_parallel_reduce_kernel.cu):
// its family's proof, reduction_proof.cuh, and its own description.
#pragma once
#include "reduction_proof.cuh"

inline ProgramDescription edge_parallel_reduce_program() {
    return ProgramDescription(
               "117 (21.3) kernel: edge-parallel reduction over COO, one thread per edge",
               {"make 117_coo_edge_parallel_reduce_kernel",
                "build/117_coo_edge_parallel_reduce_kernel --scale 22",
                "build/117_coo_edge_parallel_reduce_kernel --matrix data/karate.mtx"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .with_memory({24, 0, 900e6});
}
