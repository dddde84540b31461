// Swap-AB Cooperative kernel, its SiLU without the IEEE division: 96 output columns (gate and
// up interleaved by 8 rows) x 224 tokens per unit (112 per consumer warpgroup), 4 TMA stages,
// bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 112: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_coop_c96_n224_fs_s4, bf16, cutlass::bfloat16_t, 96, 224, 4, true, false, 1, true)
