// Kernel-2 Pingpong, 64x128 output tile, 128-deep k tiles (256 contiguous bytes of each weight row per stage), 2 stages, cluster 1x1, bf16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x128x128_s2, bf16, cutlass::bfloat16_t, 64, 128, 128, 2, 1, 0)
