// Kernel-1, 64x128 output tile with separate gate and up accumulators (two 64x128 WGMMA chains per consumer warpgroup), 5 stages, cluster 1x1, bf16, epilogue overlapped.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k1_pingpong_64x128x64_s5, bf16, cutlass::bfloat16_t, 64, 128, 64, 5, 1, 0, true, true)
