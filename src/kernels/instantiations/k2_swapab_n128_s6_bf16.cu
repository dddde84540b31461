// Swap-AB decode kernel: 128 tokens per CTA (WGMMA N = 128), 64 output columns (128 weight rows)
// per tile, 6 TMA stages, one CTA per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n128_s6, bf16, cutlass::bfloat16_t, 128, 6)
