// Swap-AB decode kernel on the cluster stream-K grid: 32 tokens per CTA (WGMMA N = 32),
// 64 output columns (128 weight rows) per unit, 9 TMA stages, one CTA per SM, clusters of 2-4
// CTAs sharing each run of units' k tiles evenly, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n32_s9_sk, bf16, cutlass::bfloat16_t, 32, 9, kSwapABStreamK)
