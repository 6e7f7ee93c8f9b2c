// make_rmat's graph through the cache of input_cache.h, where SUITE_RMAT_CACHE names one: the
// sweep's programs read the graph that the first of them generated.
#pragma once
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include "graph_generators.h"
#include "input_cache.h"
#include "text.h"

inline uint64_t bits_of(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

inline InputKey rmat_key(int scale, int edge_factor, const RmatParams& p, uint64_t seed) {
    return InputKey("rmat edges",
                    {static_cast<uint64_t>(scale), static_cast<uint64_t>(edge_factor), bits_of(p.a),
                     bits_of(p.b), bits_of(p.c), bits_of(p.d()), seed});
}

inline std::vector<CachedArray> rmat_arrays(HostCoo& g) {
    return {cached_array(g.rows), cached_array(g.cols), cached_array(g.values)};
}

// The checksum shows that a file is as it was written, not that the generator that wrote it
// is today's. So the first and the last chunk are made again and compared: "" when they agree.
inline std::string rmat_differs_from_generator(const HostCoo& g, const RmatGenerator& generator) {
    if (generator.num_chunks() == 0) return "";
    for (const size_t chunk : {size_t{0}, generator.num_chunks() - 1}) {
        const size_t begin = generator.chunk_begin(chunk);
        const size_t count = generator.chunk_begin(chunk + 1) - begin;
        std::vector<int> rows(count), cols(count);
        std::vector<float> values(count);
        generator.fill_chunk(chunk, rows.data(), cols.data(), values.data());
        if (!std::equal(rows.begin(), rows.end(), g.rows.begin() + begin) ||
            !std::equal(cols.begin(), cols.end(), g.cols.begin() + begin) ||
            !std::equal(values.begin(), values.end(), g.values.begin() + begin))
            return "differs from what the generator makes now, in chunk " +
                   std::to_string(chunk);
    }
    return "";
}

// make_rmat(scale, edge_factor, p, seed), announced as "generating `what`" when it is large;
// where SUITE_RMAT_CACHE names a folder, read from there when a file holds it, and written
// there when it is made.
inline HostCoo make_rmat_through_cache(int scale, int edge_factor, const RmatParams& p,
                                       uint64_t seed, const std::string& what) {
    const RmatGenerator generator(scale, edge_factor, p, seed);
    auto generate = [&] {
        announce_large(generator.num_edges(), "generating " + what);
        return make_rmat(scale, edge_factor, p, seed);
    };
    const std::string folder = input_cache_folder();
    if (folder.empty()) return generate();
    const CacheEntry entry =
        cache_entry(folder, "rmat-scale" + std::to_string(scale) + "-seed" + std::to_string(seed),
                    rmat_key(scale, edge_factor, p, seed), what, generator.num_edges());
    return read_or_make(
        entry, [&] { return generator.sized_graph(); }, rmat_arrays,
        [&](const HostCoo& g) { return rmat_differs_from_generator(g, generator); }, generate);
}
