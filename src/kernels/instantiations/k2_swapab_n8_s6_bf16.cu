// Swap-AB decode kernel: 8 tokens per CTA (WGMMA N = 8), 64 output columns (128 weight rows)
// per tile, 6 TMA stages, two CTAs per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n8_s6, bf16, cutlass::bfloat16_t, 8, 6)
