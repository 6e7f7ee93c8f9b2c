// The stencil generator (common/stencils.h): its shapes at the sweep's scale, its entry count
// against an independent count of grid neighbours, symmetry, row sums and the diagonals.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <utility>
#include "../common/stencils.h"

namespace {
// Entries counted by brute force: each grid point and every point at distance 1 inside the grid.
int64_t neighbour_pairs(int dims, int side) {
    int64_t count = 0;
    const int zs = dims == 3 ? side : 1;
    for (int z = 0; z < zs; ++z)
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                count += 1 + (x > 0) + (x + 1 < side) + (y > 0) + (y + 1 < side);
                if (dims == 3) count += (z > 0) + (z + 1 < side);
            }
    return count;
}
}  // namespace

TEST_CASE("stencils: the sweep's shapes at scale 22 are the ones its targets name", "[common]") {
    CHECK(stencil_shape(StencilKind::two_d, 22).rows() == 4194304);
    CHECK(stencil_shape(StencilKind::three_d, 22).rows() == 4173281);
    CHECK(stencil_shape(StencilKind::two_d, 0).rows() == 1);
    CHECK(stencil_shape(StencilKind::three_d, 0).rows() == 1);
    CHECK(stencil_shape(StencilKind::two_d, 22).name() == "stencil2d");
    CHECK(stencil_shape(StencilKind::three_d, 22).name() == "stencil3d");
    CHECK_THROWS(stencil_shape(StencilKind::none, 4));
}

TEST_CASE("stencils: entries, symmetry, row sums and diagonals on small grids", "[common]") {
    for (const StencilKind kind : {StencilKind::two_d, StencilKind::three_d})
        for (int side : {1, 2, 3, 7}) {
            StencilShape shape;
            shape.kind = kind;
            shape.side = side;
            CAPTURE(shape.dimensions(), side);
            const HostCoo a = make_stencil(shape);
            REQUIRE(static_cast<int64_t>(a.nnz()) == neighbour_pairs(shape.dimensions(), side));
            REQUIRE(static_cast<int64_t>(a.nnz()) == shape.nnz());
            REQUIRE(a.num_rows == shape.rows());
            std::map<std::pair<int, int>, float> entries;
            std::vector<double> row_sum(a.num_rows, 0.0);
            std::set<int> offsets;
            for (size_t k = 0; k < a.nnz(); ++k) {
                REQUIRE(entries.emplace(std::make_pair(a.rows[k], a.cols[k]), a.values[k]).second);
                row_sum[a.rows[k]] += a.values[k];
                offsets.insert(a.cols[k] - a.rows[k]);
                if (k > 0 && a.rows[k] == a.rows[k - 1]) REQUIRE(a.cols[k] > a.cols[k - 1]);
                if (k > 0) REQUIRE(a.rows[k] >= a.rows[k - 1]);
            }
            for (const auto& [at, value] : entries) {
                const auto mirror = entries.find({at.second, at.first});
                REQUIRE(mirror != entries.end());
                REQUIRE(mirror->second == value);
                REQUIRE(value == (at.first == at.second ? 2.0f * shape.dimensions() : -1.0f));
            }
            // A point's row sums to the number of its missing neighbours: 0 inside the grid.
            for (double sum : row_sum) REQUIRE(sum >= 0.0);
            if (side >= 3) REQUIRE(row_sum[shape.rows() / 2] == 0.0);
            const size_t diagonals = side == 1 ? 1 : 1 + 2 * static_cast<size_t>(shape.dimensions());
            REQUIRE(offsets.size() == diagonals);
        }
}
