// Kernel-2 Pingpong, 128x64 output tile, 128-deep k tiles, 3 stages, cluster 1x1, bf16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_128x64x128_s3, bf16, cutlass::bfloat16_t, 128, 64, 128, 3, 1, 0)
