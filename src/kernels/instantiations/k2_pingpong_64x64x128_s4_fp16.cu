// Kernel-2 Pingpong, 64x64 output tile, 128-deep k tiles, 4 stages, cluster 1x1, fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x64x128_s4, fp16, cutlass::half_t, 64, 64, 128, 4, 1, 0)
