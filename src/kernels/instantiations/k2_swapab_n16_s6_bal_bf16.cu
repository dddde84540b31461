// Swap-AB decode kernel on the balanced persistent grid: 16 tokens per CTA (WGMMA N = 16),
// 64 output columns (128 weight rows) per unit, 6 TMA stages, two CTAs per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n16_s6_bal, bf16, cutlass::bfloat16_t, 16, 6, kSwapABBalanced)
