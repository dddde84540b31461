// Swap-AB Cooperative kernel: 128 output columns (gate and up interleaved by 8 rows) x 128
// tokens per unit (64 per consumer warpgroup), 4 TMA stages, fp16.
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_coop_c128_n128_s4, fp16, cutlass::half_t, 128, 128, 4, true)
