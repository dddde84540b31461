// Swap-AB Pingpong kernel: 64 output columns (gate and up interleaved by 8 rows) x 176
// tokens per unit, 5 TMA stages, two consumer warpgroups, bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 112 / 176: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_pp_c64_n176_s5, bf16, cutlass::bfloat16_t, 64, 176, 5)
