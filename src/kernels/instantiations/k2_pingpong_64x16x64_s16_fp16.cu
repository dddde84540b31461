// Kernel-2, 64x16 output tile (GEMM tile 64x32x64), 16 stages, cluster 1x1, fp16: for decode-sized
// M, four times the tiles of the 64x64 tile, so that the last wave of a persistent grid is
// nearly full (qwen2.5-7b: 1184 tiles over 132 SMs, 8.97 per SM).
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x16x64_s16, fp16, cutlass::half_t, 64, 16, 64, 16, 1, 0)
