// Decode kernel: 8 tokens per CTA (1 n8 MMA tile), 8 output columns per warp, 6 k steps
// of 32 in flight per warp, bf16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n8_c8_u6, bf16, cutlass::bfloat16_t, 1, 1, 6)
