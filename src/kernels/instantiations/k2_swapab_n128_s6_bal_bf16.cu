// Swap-AB kernel on the balanced persistent grid: 128 tokens per CTA (WGMMA N = 128),
// 64 output columns (128 weight rows) per unit, 6 TMA stages, one CTA per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n128_s6_bal, bf16, cutlass::bfloat16_t, 128, 6, true)
