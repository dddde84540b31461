// Kernel-2 Pingpong, 64x48 output tile (GEMM tile 64x96x64), 10 stages, cluster 1x1, epilogue through shared memory and a TMA store, bf16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x48x64_s10_tma, bf16, cutlass::bfloat16_t, 64, 48, 64, 10, 1, 0, false, true, false, true)
