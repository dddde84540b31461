// Decode kernel: 16 tokens per CTA (2 n8 MMA tiles), 8 output columns per warp, 4 k steps
// of 32 in flight per warp, fp16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n16_c8_u4, fp16, cutlass::half_t, 2, 1, 4)
