// Kernel-2 Pingpong, 128x72 output tile (GEMM tile 128x144x64: one m64n144k16 WGMMA per 64-row atom
// and k-block), 6 stages, cluster 1x1, bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 144 (sm90_swiglu_mainloop_tma_gmma_ws.hpp)
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_128x72x64_s6, bf16, cutlass::bfloat16_t, 128, 72, 64, 6, 1, 0)
