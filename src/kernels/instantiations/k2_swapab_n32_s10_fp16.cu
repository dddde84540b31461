// Swap-AB decode kernel: 32 tokens per CTA (WGMMA N = 32), 64 output columns (128 weight rows)
// per tile, 10 TMA stages, one CTA per SM, the deepest ring that fits, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n32_s10, fp16, cutlass::half_t, 32, 10)
