// Kernel-2 stacked, 256x64 output tile per CTA (two 128x64 warpgroup tiles sharing each weight
// stage; GEMM tile 256x128x64), 4 stages, cluster 1x1, bf16, epilogue through shared memory and a
// TMA store.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_stacked_256x64x64_s4_tma, bf16, cutlass::bfloat16_t, 128, 64, 64, 4, 1, 0, false, true, false, true, false, 1, 2)
