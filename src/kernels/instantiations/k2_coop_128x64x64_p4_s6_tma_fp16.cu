// Kernel-2 Cooperative, 128x64 output tile (GEMM tile 128x128x64), 6 stages, cluster 1x1, fp16,
// promoted accumulation every 4 k tiles (chunked: the warpgroups half a chunk apart, the next
// tile's first WGMMAs issued under the epilogue), epilogue through shared memory and a TMA store.
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_coop_128x64x64_p4_s6_tma, fp16, cutlass::half_t, 128, 64, 64, 6, 1, 4, false, true, true, true)
