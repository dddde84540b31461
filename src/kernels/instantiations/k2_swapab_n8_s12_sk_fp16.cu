// Swap-AB decode kernel on the cluster stream-K grid: 8 tokens per CTA (WGMMA N = 8),
// 64 output columns (128 weight rows) per unit, 12 TMA stages, one CTA per SM, clusters of 2-4
// CTAs sharing each run of units' k tiles evenly, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n8_s12_sk, fp16, cutlass::half_t, 8, 12, kSwapABStreamK)
