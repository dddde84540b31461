// Swap-AB Cooperative kernel split by weight rows, its SiLU without the IEEE division: 128
// output columns (256 weight rows, gate and up interleaved by 8) x 144 tokens per unit, 4 TMA
// stages, bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 144: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_rowcoop_c128_n144_fs_s4, bf16, cutlass::bfloat16_t, 128, 144, 4, true, true, 1, true)
