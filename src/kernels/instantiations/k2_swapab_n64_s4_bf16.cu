// Swap-AB decode kernel: 64 tokens per CTA (WGMMA N = 64), 64 output columns (128 weight rows)
// per tile, 4 TMA stages, two CTAs per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n64_s4, bf16, cutlass::bfloat16_t, 64, 4)
