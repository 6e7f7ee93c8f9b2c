// The inputs that chapter 21's programs share: the book's 6-vertex, 9-edge example with the
// numbers of its sample output, and the --scale R-MAT graph.
#pragma once
#include <cstdio>
#include <vector>
#include "../common/graph_generators.h"
#include "../common/matrix_reader.h"
#include "../common/options.h"
#include "../common/rmat_cache.h"
#include "../common/self_check.h"
#include "../common/sparse_host.h"
#include "../common/stencil_input.h"
#include "../common/text.h"

// The example's edges (src, dst, weight) in the order they arrive: not grouped by source.
inline HostCoo book_example_edges() {
    HostCoo g;
    g.num_rows = g.num_cols = 6;
    g.rows = {2, 0, 3, 1, 0, 4, 2, 3, 1};
    g.cols = {3, 1, 4, 2, 2, 5, 4, 5, 3};
    g.values = {8, 4, 2, 2, 1, 3, 10, 6, 5};
    return g;
}

// The sample output's numbers for the example.
const std::vector<int> kBookDegree = {2, 2, 2, 2, 1, 0};
const std::vector<int> kBookRowOffsets = {0, 2, 4, 6, 8, 9, 9};
const std::vector<int> kBookColIdx = {1, 2, 2, 3, 3, 4, 4, 5, 5};
const std::vector<float> kBookWeights = {4, 1, 2, 5, 8, 10, 2, 6, 3};
const std::vector<long long> kBookNeighborSums = {3, 5, 7, 9, 5, 0};
constexpr double kBookTotalWeight = 41;

// The claims that a CSR built from the example is the book's: its weights too where it has them.
inline void check_book_csr(const HostCsr& csr, SelfCheck& check) {
    check.claim("row_offsets = [ 0 2 4 6 8 9 9 ], as in the book",
                csr.row_offsets == kBookRowOffsets);
    check.claim("col_idx = [ 1 2 2 3 3 4 4 5 5 ], as in the book", csr.col_idx == kBookColIdx);
    if (!csr.values.empty())
        check.claim("weights = [ 4 1 2 5 8 10 2 6 3 ], as in the book", csr.values == kBookWeights);
}

constexpr uint64_t kGraphSeed = 21;

// The book's example; with --scale S an R-MAT graph of 2^S vertices and 16 * 2^S edges (through
// rmat_cache.h), or with --stencil a Poisson matrix (stencil_input.h); with --matrix FILE the
// file's graph. An input beyond the memory budget, or a file that cannot be read, exits 2.
inline HostCoo chapter_input(const ProgramOptions& opt) {
    if (!opt.matrix.empty()) return read_matrix_option(opt);
    if (opt.scale == 0) return book_example_edges();
    if (opt.stencil != StencilKind::none) return stencil_input(opt);
    const uint64_t vertices = uint64_t{1} << opt.scale;
    require_memory(opt, "--scale " + std::to_string(opt.scale), vertices, vertices,
                   vertices * kEdgeFactor);
    std::printf("input: R-MAT graph, scale %d (%s vertices, %s edges), a,b,c,d = %s\n", opt.scale,
                with_separators(vertices).c_str(), with_separators(vertices * kEdgeFactor).c_str(),
                opt.rmat.text().c_str());
    HostCoo generated =
        make_rmat_through_cache(opt.scale, kEdgeFactor, opt.rmat, kGraphSeed, "the R-MAT graph");
    std::printf("%s\n", graph_line(generated, opt.scale, opt.rmat.text(), "rmat").c_str());
    return generated;
}
