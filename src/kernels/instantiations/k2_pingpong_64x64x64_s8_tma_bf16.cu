// Kernel-2 Pingpong, 64x64 output tile (GEMM tile 64x128x64), 8 stages, cluster 1x1, epilogue through shared memory and a TMA store, bf16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x64x64_s8_tma, bf16, cutlass::bfloat16_t, 64, 64, 64, 8, 1, 0, false, true, false, true)
