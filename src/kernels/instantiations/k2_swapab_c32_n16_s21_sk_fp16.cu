// Swap-AB decode kernel on the cluster stream-K grid with narrow units: 16 tokens per CTA
// (WGMMA N = 16), 32 output columns (64 weight rows, gate and up interleaved by 8) per unit, 21
// TMA stages, one CTA per SM, clusters of 2-4 CTAs sharing each run of units' k tiles evenly, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_c32_n16_s21_sk, fp16, cutlass::half_t, 16, 21, kSwapABStreamK, 32)
