// Swap-AB decode kernel on the balanced persistent grid: 64 tokens per CTA (WGMMA N = 64),
// 64 output columns (128 weight rows) per unit, 9 TMA stages, one CTA per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n64_s9_bal, bf16, cutlass::bfloat16_t, 64, 9, kSwapABBalanced)
