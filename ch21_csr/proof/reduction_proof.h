// What the programs that total a graph's edge weights print and check, the part that needs no
// GPU: 116's description, edges, loops and claims; what a right total is, for 117's kernels.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include "../../common/options.h"
#include "../../common/self_check.h"
#include "../chapter_inputs.h"

inline ProgramDescription coo_vs_csr_sum_program() {
    return ProgramDescription("116 (21.3) CPU baseline: total edge weight, over COO and over CSR",
                              {"make 116_coo_vs_csr_sum_cpu_baseline && "
                               "build/116_coo_vs_csr_sum_cpu_baseline"})
        .with_book_input("the book's example: 6 vertices, 9 weighted edges")
        .without_inputs();
}

inline void show_coo(const HostCoo& edges) {
    std::puts(
        "COO: three parallel arrays, entry e is edge e, rows[e] -> cols[e], in arrival order:");
    print_array("rows", edges.rows, 7);
    print_array("cols", edges.cols, 7);
    print_array("weights", edges.values, 7);
}

inline void show_coo_loop(const HostCoo& edges, double sum_coo) {
    std::printf("one flat loop over the %s, blind to vertices:\n",
                counted(edges.nnz(), "edge").c_str());
    std::printf("  sum_coo = %g\n\n", sum_coo);
}

// Each vertex's inner loop, with its trip count: the unevenness that the sum hides.
inline void show_csr_loops(const HostCsr& csr, double sum_csr) {
    std::printf("an outer loop over the %s, an inner loop over each one's slice:\n",
                counted(csr.num_rows, "vertex", "vertices").c_str());
    for (int v = 0; v < csr.num_rows; ++v) {
        const int length = csr.row_offsets[v + 1] - csr.row_offsets[v];
        std::printf("  vertex %d: slice [%d,%d), inner loop runs %s%s\n", v, csr.row_offsets[v],
                    csr.row_offsets[v + 1], counted(length, "time").c_str(),
                    length == 0 ? " (visited for nothing)" : "");
    }
    std::printf("  sum_csr = %g\n\n", sum_csr);
}

inline void explain_imbalance(const HostCoo& edges) {
    print_wrapped(
        "Both loops add each of the " + with_separators(edges.nnz()) +
            " weights once. The COO loop does the same step for every edge; the CSR "
            "loop's inner trip counts follow the degrees, so vertex 0 does twice the work "
            "of vertex 4 and vertex 5 does none. Split across threads, that unevenness is "
            "load imbalance, which one thread per COO edge does not have.",
        0);
    std::printf("\n");
}

inline void check_sums(const HostCsr& csr, double sum_coo, double sum_csr, SelfCheck& check) {
    check.claim("the flat COO loop's total is 41, as in the book", sum_coo == kBookTotalWeight);
    check.claim("the nested CSR loop's total is 41, as in the book", sum_csr == kBookTotalWeight);
    check.claim("the two totals agree exactly", sum_coo == sum_csr);
    check_book_csr(csr, check);
}

// What a right total is, and the claims' words for it. Weights that are not whole numbers make
// the order of the adds change a double total's last bits, so totals agree only within rounding.
struct RightTotal {
    std::string words;
    double value = 0, tolerance = 0;
    bool holds(double total) const { return std::fabs(total - value) <= tolerance; }
};

inline RightTotal right_total(bool book_example, const HostCoo& edges, double total_cpu) {
    if (book_example) return {"41, as in the book", kBookTotalWeight, 0};
    double absolute_sum = 0;
    long long not_whole = 0;
    const long long n = static_cast<long long>(edges.nnz());
#pragma omp parallel for reduction(+ : absolute_sum, not_whole) if (edges.nnz() >= kParallelSize)
    for (long long e = 0; e < n; ++e) {
        const float w = edges.values[e];
        absolute_sum += std::fabs(w);
        not_whole += !(w == std::trunc(w) && std::fabs(w) <= 1e6f);
    }
    if (not_whole == 0) return {"the CPU baseline's total exactly", total_cpu, 0};
    return {"the CPU baseline's total to 1e-12 of the sum of |w|", total_cpu, 1e-12 * absolute_sum};
}

inline void show_total_cpu(double total_cpu) {
    std::printf("CPU baseline (one flat loop, in double): total = %.17g\n", total_cpu);
}
