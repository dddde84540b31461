// Swap-AB Cooperative kernel: 64 output columns (gate and up interleaved by 8 rows) x 224
// tokens per unit (112 per consumer warpgroup), 5 TMA stages, bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 112: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_coop_c64_n224_s5, bf16, cutlass::bfloat16_t, 64, 224, 5, true)
