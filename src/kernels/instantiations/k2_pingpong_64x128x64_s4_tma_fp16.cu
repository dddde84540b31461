// Kernel-2 Pingpong, 64x128 output tile (GEMM tile 64x256x64), 4 stages (room for the staging buffers), cluster 1x1, epilogue through shared memory and a TMA store, fp16.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_pingpong_64x128x64_s4_tma, fp16, cutlass::half_t, 64, 128, 64, 4, 1, 0, false, true, false, true)
