// Kernel-2 Pingpong, 64x96 output tile (GEMM tile 64x192x64: one m64n192k16 WGMMA per k-block), 6 stages, cluster 1x1, fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x96x64_s6, fp16, cutlass::half_t, 64, 96, 64, 6, 1, 0)
