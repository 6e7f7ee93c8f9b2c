// Deterministic graph generators: the same seed gives the same graph on every machine.
// Edges come out in no particular order, as raw edge lists do. Weights are small integers
// (stored as float), so that sums of them are exact and can be compared exactly.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include "random.h"
#include "rmat_params.h"
#include "sparse_host.h"

constexpr int kMaxWeight = 16;

inline float random_weight(SplitMix64& g) { return static_cast<float>(1 + g.below(kMaxWeight)); }

// Every edge picks its endpoints uniformly: degrees are nearly even.
inline HostCoo make_uniform_random(int num_vertices, size_t num_edges, uint64_t seed) {
    if (num_vertices <= 0 && num_edges > 0)
        throw std::invalid_argument("a graph with edges needs at least one vertex");
    HostCoo g;
    g.num_rows = g.num_cols = num_vertices;
    g.rows.resize(num_edges);
    g.cols.resize(num_edges);
    g.values.resize(num_edges);
    SplitMix64 rng(seed);
    for (size_t e = 0; e < num_edges; ++e) {
        g.rows[e] = static_cast<int>(rng.below(num_vertices));
        g.cols[e] = static_cast<int>(rng.below(num_vertices));
        g.values[e] = random_weight(rng);
    }
    return g;
}

// A bijection on [0, 2^scale): an xor with a constant, odd multipliers and xor-shifts are each
// invertible modulo 2^scale.
// It spreads R-MAT's hubs, which would otherwise all sit at the low vertex ids.
inline uint32_t scramble_vertex_id(uint32_t v, int scale, uint64_t seed) {
    const uint64_t mask = (scale >= 32) ? 0xFFFFFFFFull : ((1ull << scale) - 1);
    const uint64_t m1 = (mix_seed(seed, 1) | 1) & mask, m2 = (mix_seed(seed, 2) | 1) & mask;
    const int shift = scale / 2 + 1;
    const uint64_t offset = mix_seed(seed, 3) & mask;  // without it, 0 would map to 0
    uint64_t x = v ^ offset;
    x = (x * m1) & mask;
    x ^= x >> shift;
    x = (x * m2) & mask;
    x ^= x >> shift;
    return static_cast<uint32_t>(x);
}

// R-MAT (Chakrabarti, Zhan and Faloutsos): each edge descends `scale` levels of the adjacency
// matrix, picking the top-left quadrant with probability a, top-right b, bottom-left c and
// bottom-right d = 1 - a - b - c. a = b = c = d = 0.25 is uniform; a large a concentrates the
// edges on a few hub vertices. Graph500's parameters are a = 0.57, b = c = 0.19, d = 0.05.
// The edges come in fixed-size chunks, each from its own stream: the graph does not depend on
// the number of threads, and any one chunk can be made again alone (rmat_cache.h checks a read
// graph that way).
class RmatGenerator {
public:
    static constexpr size_t kChunkEdges = size_t{1} << 16;

    RmatGenerator(int scale, int edge_factor, const RmatParams& p, uint64_t seed)
        : scale_(scale), seed_(seed) {
        if (scale < 1 || scale > 30) throw std::invalid_argument("R-MAT scale must be in [1, 30]");
        if (!p.valid())
            throw std::invalid_argument("R-MAT parameters must be positive, summing to 1");
        num_edges_ = num_vertices() * static_cast<size_t>(edge_factor);
        // b + c first: with b = c that is 2b exactly, so --skew's graphs stay as they always were.
        t0_ = static_cast<uint64_t>(p.a * 4294967296.0);
        t1_ = static_cast<uint64_t>((p.a + p.b) * 4294967296.0);
        t2_ = static_cast<uint64_t>((p.a + (p.b + p.c)) * 4294967296.0);
    }

    size_t num_vertices() const { return size_t{1} << scale_; }
    size_t num_edges() const { return num_edges_; }
    size_t num_chunks() const { return (num_edges_ + kChunkEdges - 1) / kChunkEdges; }
    size_t chunk_begin(size_t chunk) const { return std::min(num_edges_, chunk * kChunkEdges); }

    // A graph of this one's size, its edges not filled in yet.
    HostCoo sized_graph() const {
        const int vertices = static_cast<int>(num_vertices());
        return coo_of_size(vertices, vertices, num_edges_);
    }

    // Edges [chunk_begin(chunk), chunk_begin(chunk + 1)), written from rows[0], cols[0] and
    // values[0] on.
    void fill_chunk(size_t chunk, int* rows, int* cols, float* values) const {
        SplitMix64 rng(mix_seed(seed_, chunk));
        const size_t count = chunk_begin(chunk + 1) - chunk_begin(chunk);
        for (size_t e = 0; e < count; ++e) {
            uint32_t src = 0, dst = 0;
            for (int level = 0; level < scale_; ++level) {
                const uint64_t r = rng.next() >> 32;
                const uint32_t down = (r >= t1_) ? 1u : 0u;
                const uint32_t right = (r >= t0_ && r < t1_) || r >= t2_ ? 1u : 0u;
                src = (src << 1) | down;
                dst = (dst << 1) | right;
            }
            rows[e] = static_cast<int>(scramble_vertex_id(src, scale_, seed_));
            cols[e] = static_cast<int>(scramble_vertex_id(dst, scale_, seed_));
            values[e] = random_weight(rng);
        }
    }

private:
    int scale_;
    uint64_t seed_;
    size_t num_edges_;
    uint64_t t0_, t1_, t2_;
};

inline HostCoo make_rmat(int scale, int edge_factor, const RmatParams& p, uint64_t seed) {
    const RmatGenerator generator(scale, edge_factor, p, seed);
    HostCoo g = generator.sized_graph();
    const long long num_chunks = static_cast<long long>(generator.num_chunks());
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < num_chunks; ++c) {
        const size_t begin = generator.chunk_begin(static_cast<size_t>(c));
        generator.fill_chunk(static_cast<size_t>(c), g.rows.data() + begin,
                             g.cols.data() + begin, g.values.data() + begin);
    }
    return g;
}

// --skew A: the other three quadrants get (1 - A) / 3 each.
inline HostCoo make_rmat(int scale, int edge_factor, double skew, uint64_t seed) {
    return make_rmat(scale, edge_factor, RmatParams::from_skew(skew), seed);
}

// One hub with an edge to every other vertex: the most skewed graph there is.
inline HostCoo make_star(int num_vertices, int hub, uint64_t seed) {
    if (hub < 0 || hub >= num_vertices) throw std::invalid_argument("the hub must be a vertex");
    HostCoo g;
    g.num_rows = g.num_cols = num_vertices;
    SplitMix64 rng(seed);
    for (int v = 0; v < num_vertices; ++v) {
        if (v == hub) continue;
        g.rows.push_back(hub);
        g.cols.push_back(v);
        g.values.push_back(random_weight(rng));
    }
    return g;
}
