// Swap-AB kernel on the balanced persistent grid: 104 tokens per CTA (WGMMA N = 104),
// 64 output columns (128 weight rows) per unit, 7 TMA stages, one CTA per SM, 104 tokens: M = 97-104 in one token block, fp16.
#include "../sm90_swiglu_swapab.hpp"

TILEGLU_INSTANTIATE_SWAPAB(k2_swapab_n104_s7_bal, fp16, cutlass::half_t, 104, 7, true)
