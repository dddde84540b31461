// Kernel-2, 64x128 output tile (GEMM tile 64x256x64: one m64n256k16 WGMMA per k-block), 5 stages, cluster 1x1, fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x128x64_s5, fp16, cutlass::half_t, 64, 128, 64, 5, 1, 0)
