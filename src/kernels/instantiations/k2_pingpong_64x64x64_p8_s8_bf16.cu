// Kernel-2, 64x64 output tile (GEMM tile 64x128x64), 8 stages, cluster 1x1, bf16, with the
// tensor-core accumulator promoted into an fp32 FADD accumulator every 8 k tiles (K = 512).
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x64x64_p8_s8, bf16, cutlass::bfloat16_t, 64, 64, 64, 8, 1, 8)
