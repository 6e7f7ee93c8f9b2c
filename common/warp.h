// The warp, as the kernels that cooperate within one name it.
#pragma once

constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;  // every lane of a warp, for the *_sync intrinsics
