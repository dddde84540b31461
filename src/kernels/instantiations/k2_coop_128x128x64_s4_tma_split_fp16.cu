// Kernel-2 Cooperative, 128x128 output tile (GEMM tile 128x256x64), 4 stages, cluster 1x1, epilogue through shared memory and a TMA store, split tail (the last wave's tiles cut along K, pieces summed through global memory), fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_coop_128x128x64_s4_tma_split, fp16, cutlass::half_t, 128, 128, 64, 4, 1, 0, false, true, true, true, false, 1, true)
