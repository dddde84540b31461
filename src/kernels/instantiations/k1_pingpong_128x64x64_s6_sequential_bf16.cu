// Kernel-1 128x64x64, 6 stages, bf16: gate K sweep, then up K sweep with SiLU on the gate (ablation)
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k1_pingpong_128x64x64_s6_sequential, bf16, cutlass::bfloat16_t, 128, 64, 64, 6, 1, 0, true, true, false, false, true)
