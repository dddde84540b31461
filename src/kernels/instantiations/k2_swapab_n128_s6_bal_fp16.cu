// Swap-AB kernel on the balanced persistent grid: 128 tokens per CTA (WGMMA N = 128),
// 64 output columns (128 weight rows) per unit, 6 TMA stages, one CTA per SM, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n128_s6_bal, fp16, cutlass::half_t, 128, 6, true)
