// Swap-AB Cooperative kernel: 96 output columns (gate and up interleaved by 8 rows) x 256
// tokens per unit (128 per consumer warpgroup), 4 TMA stages, fp16.
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_coop_c96_n256_s4, fp16, cutlass::half_t, 96, 256, 4, true)
