// Swap-AB Cooperative kernel in 2-CTA clusters: 96 output columns (gate and up interleaved by 8
// rows) x 224 tokens per unit (112 per consumer warpgroup), the cluster's two CTAs on adjacent
// column blocks, each loading 112 of the tokens multicast to both; 4 TMA stages, fp16.
#define TILEGLU_WGMMA_EXTENDED_N  // N = 112: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_swapab_pingpong.hpp"

TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(k2_swapab_coop_c96_n224_x2_s4, fp16, cutlass::half_t, 96, 224, 4, true, false, 2)
