// Kernel-2 Pingpong, 64x112 output tile (GEMM tile 64x224x64), 5 stages, cluster 1x1, epilogue through shared memory and a TMA store, fp16.
#define TILEGLU_WGMMA_EXTENDED_N  // GEMM N = 224: see sm90_wgmma_k_sweep.hpp
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x112x64_s5_tma, fp16, cutlass::half_t, 64, 112, 64, 5, 1, 0, false, true, false, true)
