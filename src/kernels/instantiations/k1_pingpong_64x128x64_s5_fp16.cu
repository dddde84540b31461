// Kernel-1, 64x128 output tile with separate gate and up accumulators (two 64x128 WGMMA chains per consumer warpgroup), 5 stages, cluster 1x1, fp16, epilogue overlapped.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k1_pingpong_64x128x64_s5, fp16, cutlass::half_t, 64, 128, 64, 5, 1, 0, true, true)
