// Kernel-2 Cooperative, 128x112 output tile (GEMM tile 128x224x64), 4 stages, cluster 2x1 multicasting the weights, epilogue through shared memory and a TMA store, bf16.
#define TILEGLU_WGMMA_EXTENDED_N  // GEMM N = 224: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_coop_128x112x64_m2_s4_tma, bf16, cutlass::bfloat16_t, 128, 112, 64, 4, 1, 0, false, true, true, true, false, 2)
