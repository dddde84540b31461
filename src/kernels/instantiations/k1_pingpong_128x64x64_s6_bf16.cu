// Kernel-1, 128x64 output tile with separate gate and up accumulators (two 64x64 WGMMA chains
// per consumer warpgroup), 6 stages, cluster 1x1, bf16, epilogue overlapped.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k1_pingpong_128x64x64_s6, bf16, cutlass::bfloat16_t, 128, 64, 64, 6, 1, 0, true, true)
