// A small, portable random generator. std::mt19937 is portable but the std distributions are
// not, so graphs generated from a seed here are the same on every compiler and machine.
#pragma once
#include <cstdint>

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function: a bijection on 64-bit words in which every input bit changes
// about half of the output bits.
inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}

    uint64_t next() { return mix64(state_ += kGoldenGamma); }

    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

    // Uniform in [0, bound); the multiply-shift keeps the bias below 2^-32 for bounds < 2^32.
    uint32_t below(uint32_t bound) {
        return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(bound)) >> 32);
    }

private:
    uint64_t state_;
};

// Mixes two words into one seed, so that each chunk of a parallel generator gets its own stream.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream) {
    SplitMix64 g(seed ^ (stream * 0xD1B54A32D192ED03ull));
    return g.next();
}
