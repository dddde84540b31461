// Swap-AB decode kernel on the cluster stream-K grid with narrow units: 8 tokens per CTA
// (WGMMA N = 8), 32 output columns (64 weight rows, gate and up interleaved by 8) per unit, 24
// TMA stages, one CTA per SM, clusters of 2-4 CTAs sharing each run of units' k tiles evenly, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_c32_n8_s24_sk, bf16, cutlass::bfloat16_t, 8, 24, kSwapABStreamK, 32)
