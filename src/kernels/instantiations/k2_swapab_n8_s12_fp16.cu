// Swap-AB decode kernel: 8 tokens per CTA (WGMMA N = 8), 64 output columns (128 weight rows)
// per tile, 12 TMA stages, one CTA per SM with 12 stages in flight (cuBLAS's depth for its 128x8 tile), fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n8_s12, fp16, cutlass::half_t, 8, 12)
