// Swap-AB decode kernel: 64 tokens per CTA (WGMMA N = 64), 64 output columns (128 weight rows)
// per tile, 9 TMA stages, one CTA per SM, bf16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n64_s9, bf16, cutlass::bfloat16_t, 64, 9)
