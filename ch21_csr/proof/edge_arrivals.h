// How chapter 21's CPU lessons print an edge, "(2->3)" or with its weight "(2->3, w=8)", and the
// input's edges in the order in which they arrive.
#pragma once
#include <cstdio>
#include <string>
#include "../chapter_inputs.h"

inline std::string edge_text(int src, int dst) {
    return "(" + std::to_string(src) + "->" + std::to_string(dst) + ")";
}

inline std::string edge_text(int src, int dst, float weight) {
    return "(" + std::to_string(src) + "->" + std::to_string(dst) + ", w=" + element_text(weight) +
           ")";
}

// Whether a lesson's edges carry weights, and so print them.
enum class EdgeText { plain, weighted };

// The edges as they arrive.
inline void show_arrivals(const HostCoo& edges, EdgeText text) {
    const bool weighted = text == EdgeText::weighted;
    std::string arrivals;
    for (size_t e = 0; e < edges.nnz(); ++e)
        arrivals += (e == 0 ? "" : " ") +
                    (weighted ? edge_text(edges.rows[e], edges.cols[e], edges.values[e])
                              : edge_text(edges.rows[e], edges.cols[e]));
    std::printf("%s, %s, in arrival order (not grouped by source):\n",
                counted(edges.num_rows, "vertex", "vertices").c_str(),
                counted(edges.nnz(), weighted ? "weighted edge" : "directed edge").c_str());
    print_wrapped("  " + arrivals, 2);
    std::printf("\n");
}
