// The emulator with its threads visited in a shuffled order from `seed`, which each test that
// uses it prints or fixes, so that a failing order can be replayed.
#pragma once
#include <cstdint>
#include "../common/here.cuh"

inline Here emulated(uint64_t seed) { return Here::emulated(ThreadOrder::shuffled(seed)); }
