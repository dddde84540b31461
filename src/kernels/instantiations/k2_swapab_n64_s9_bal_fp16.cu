// Swap-AB decode kernel on the balanced persistent grid: 64 tokens per CTA (WGMMA N = 64),
// 64 output columns (128 weight rows) per unit, 9 TMA stages, one CTA per SM, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n64_s9_bal, fp16, cutlass::half_t, 64, 9, kSwapABBalanced)
