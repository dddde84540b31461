// Decode kernel: 8 tokens per CTA (1 n8 MMA tile), 16 output columns per warp, 2 k steps
// of 32 in flight per warp, bf16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n8_c16_u2, bf16, cutlass::bfloat16_t, 1, 2, 2)
