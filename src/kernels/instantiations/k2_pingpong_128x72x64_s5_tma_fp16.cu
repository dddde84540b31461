// Kernel-2 Pingpong, 128x72 output tile (GEMM tile 128x144x64), 5 stages, cluster 1x1, epilogue
// through a row-major shared-memory buffer and a TMA store, fp16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 144 (sm90_swiglu_mainloop_tma_gmma_ws.hpp)
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_128x72x64_s5_tma, fp16, cutlass::half_t, 128, 72, 64, 5, 1, 0, false, true, false, true)
