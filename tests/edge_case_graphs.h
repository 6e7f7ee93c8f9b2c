// The randomized sweep that the tests of chapter 21 share. Graph i of a seed is always the same
// graph. Sizes vary from graph to graph, and the sweep is arranged to include the inputs that trip
// CSR builders: no vertices, vertices but no edges, a last vertex that no edge touches (its slice
// is empty at the very end), self-loops, and duplicate edges, some with a different weight.
#pragma once
#include "../common/graph_generators.h"

constexpr int kSweepGraphs = 1200;

inline HostCoo edge_case_graph(int i, uint64_t seed) {
    SplitMix64 rng(mix_seed(seed, static_cast<uint64_t>(i)));
    if (i % 50 == 0) return make_uniform_random(0, 0, rng.next());
    const int num_vertices = 1 + static_cast<int>(rng.below(40));
    const size_t num_edges = i % 50 == 1 ? 0 : rng.below(4 * num_vertices + 10);
    const bool isolated_last = i % 2 == 0 && num_vertices > 1;
    const int touched = isolated_last ? num_vertices - 1 : num_vertices;
    HostCoo g = make_uniform_random(touched, num_edges, rng.next());
    g.num_rows = g.num_cols = num_vertices;
    if (i % 3 == 0)
        for (int k = 0; k < 3; ++k) {
            const int v = static_cast<int>(rng.below(touched));
            g.rows.push_back(v);
            g.cols.push_back(v);
            g.values.push_back(random_weight(rng));
        }
    if (i % 4 == 0 && g.nnz() > 0)
        for (int k = 0; k < 3; ++k) {
            const size_t e = rng.below(static_cast<uint32_t>(g.nnz()));
            g.rows.push_back(g.rows[e]);
            g.cols.push_back(g.cols[e]);
            g.values.push_back(k == 0 ? random_weight(rng) : g.values[e]);
        }
    return g;
}
