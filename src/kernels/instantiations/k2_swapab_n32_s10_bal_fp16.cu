// Swap-AB decode kernel on the balanced persistent grid: 32 tokens per CTA (WGMMA N = 32),
// 64 output columns (128 weight rows) per unit, 10 TMA stages, one CTA per SM, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n32_s10_bal, fp16, cutlass::half_t, 32, 10, kSwapABBalanced)
