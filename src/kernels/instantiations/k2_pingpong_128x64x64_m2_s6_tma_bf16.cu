// Kernel-2 Pingpong, 128x64 output tile (GEMM tile 128x128x64), 6 stages, cluster 2x1 (weight multicast), epilogue through shared memory and a TMA store, bf16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_128x64x64_m2_s6_tma, bf16, cutlass::bfloat16_t, 128, 64, 64, 6, 1, 0, false, true, false, true, false, 2)
