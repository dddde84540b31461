// Decode kernel: 8 tokens per CTA (1 n8 MMA tile), 16 output columns per warp, 2 k steps
// of 32 in flight per warp, fp16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n8_c16_u2, fp16, cutlass::half_t, 1, 2, 2)
