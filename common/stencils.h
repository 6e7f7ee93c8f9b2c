// Structured matrices beside R-MAT's unstructured ones: the Poisson matrices of the 5-point (2D)
// and 7-point (3D) finite-difference Laplacian on a square or cubic grid of side n, Dirichlet
// boundary. Row r is grid point r (x fastest, then y, then z); its entries are the point itself
// (4 in 2D, 6 in 3D) and each neighbour inside the grid (-1), in column order. Every row has
// about the same length, the entries lie on 5 or 7 diagonals, and consecutive rows touch
// neighbouring columns: the structure that DIA and ELL are built for.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "host_threads.h"
#include "sparse_host.h"

enum class StencilKind { none, two_d, three_d };

struct StencilShape {
    StencilKind kind = StencilKind::none;
    int side = 0;  // grid points along each axis

    int dimensions() const { return kind == StencilKind::two_d ? 2 : 3; }
    int64_t rows() const {
        int64_t n = 1;
        for (int d = 0; d < dimensions(); ++d) n *= side;
        return n;
    }
    // Each point has 2 neighbours along an axis, less one at each of the axis's two faces.
    int64_t nnz() const {
        const int64_t faces = rows() / side;  // points on one face of the grid
        return rows() * (1 + 2 * dimensions()) - 2 * dimensions() * faces;
    }
    // The name that `result:`, `timing:` and the sweep's CSV give the class.
    std::string name() const { return kind == StencilKind::two_d ? "stencil2d" : "stencil3d"; }
};

// The grid whose point count is nearest 2^scale: side 2^(scale/2) in 2D, the rounded cube root
// of 2^scale in 3D (scale 22: 2,048^2 = 4,194,304 rows, and 161^3 = 4,173,281).
inline StencilShape stencil_shape(StencilKind kind, int scale) {
    if (kind == StencilKind::none) throw std::invalid_argument("no stencil was asked for");
    if (scale < 0 || scale > 30) throw std::invalid_argument("stencil scale must be in [0, 30]");
    StencilShape shape;
    shape.kind = kind;
    const double side = std::exp2(scale / static_cast<double>(shape.dimensions()));
    shape.side = static_cast<int>(std::lround(side));
    return shape;
}

inline HostCoo make_stencil(const StencilShape& shape) {
    if (shape.kind == StencilKind::none || shape.side < 1)
        throw std::invalid_argument("a stencil needs a kind and a side of at least 1");
    const int64_t n = shape.rows(), side = shape.side;
    const bool three_d = shape.dimensions() == 3;
    const int64_t plane = three_d ? side * side : n;
    const float diagonal = 2.0f * static_cast<float>(shape.dimensions());
    // Row r's entries, in column order: add(column, value) for each.
    auto each_entry = [&](int64_t r, auto&& add) {
        const int64_t x = r % side, y = r / side % side, z = r / plane;
        if (three_d && z > 0) add(r - plane, -1.0f);
        if (y > 0) add(r - side, -1.0f);
        if (x > 0) add(r - 1, -1.0f);
        add(r, diagonal);
        if (x + 1 < side) add(r + 1, -1.0f);
        if (y + 1 < side) add(r + side, -1.0f);
        if (three_d && z + 1 < side) add(r + plane, -1.0f);
    };
    // Each row's first entry, from the rows' counts; then the rows are written on every core.
    std::vector<int64_t> first(static_cast<size_t>(n) + 1, 0);
#pragma omp parallel for if (static_cast<size_t>(n) >= kParallelSize)
    for (int64_t r = 0; r < n; ++r) each_entry(r, [&](int64_t, float) { ++first[r + 1]; });
    for (int64_t r = 0; r < n; ++r) first[r + 1] += first[r];
    HostCoo a;
    a.num_rows = a.num_cols = static_cast<int>(n);
    a.rows.resize(static_cast<size_t>(first[n]));
    a.cols.resize(static_cast<size_t>(first[n]));
    a.values.resize(static_cast<size_t>(first[n]));
#pragma omp parallel for if (static_cast<size_t>(n) >= kParallelSize)
    for (int64_t r = 0; r < n; ++r) {
        int64_t k = first[r];
        each_entry(r, [&](int64_t col, float value) {
            a.rows[k] = static_cast<int>(r);
            a.cols[k] = static_cast<int>(col);
            a.values[k++] = value;
        });
    }
    return a;
}
