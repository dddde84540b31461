// Kernel-2 Cooperative, 128x96 output tile (GEMM tile 128x192x64: each consumer warpgroup one m64n192k16 WGMMA per k-block), 5 stages, cluster 1x1, fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_coop_128x96x64_s5, fp16, cutlass::half_t, 128, 96, 64, 5, 1, 0, false, true, true)
