// Kernel-2 split-K: 64x64 output tiles (GEMM tile 64x128x64), each tile's K over a cluster of 2
// CTAs reduced through DSMEM, 4 stages, bf16.
#include "../sm90_swiglu_splitk.hpp"

TILEGLU_INSTANTIATE_SPLITK(k2_splitk2_64x64x64_s4, bf16, cutlass::bfloat16_t, 64, 4, 2)
