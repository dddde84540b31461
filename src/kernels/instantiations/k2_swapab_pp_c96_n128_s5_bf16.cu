// Swap-AB Pingpong kernel: 96 output columns (gate and up interleaved by 8 rows) x 128
// tokens per unit, 5 TMA stages, two consumer warpgroups, bf16.
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_pp_c96_n128_s5, bf16, cutlass::bfloat16_t, 96, 128, 5)
