// Kernel-2, 64x32 output tile (GEMM tile 64x64x64), 12 stages, cluster 1x1, fp16: twice the tiles of the 64x64 tile for small M, where too few tiles leave SMs idle.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x32x64_s12, fp16, cutlass::half_t, 64, 32, 64, 12, 1, 0)
