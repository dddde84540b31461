// Swap-AB decode kernel on the grid stream-K grid: 16 tokens per CTA (WGMMA N = 16),
// 64 output columns (128 weight rows) per unit, 11 TMA stages, one CTA per SM, every resident CTA
// an equal share of all units' k tiles, cut units met through global memory, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n16_s11_gsk, bf16, cutlass::bfloat16_t, 16, 11, kSwapABGridStreamK)
