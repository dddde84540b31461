// Swap-AB decode kernel on the grid stream-K grid: 8 tokens per CTA (WGMMA N = 8),
// 64 output columns (128 weight rows) per unit, 12 TMA stages, one CTA per SM, every resident CTA
// an equal share of all units' k tiles, cut units met through global memory, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n8_s12_gsk, fp16, cutlass::half_t, 8, 12, kSwapABGridStreamK)
