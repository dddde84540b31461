// Decode kernel: 64 tokens per CTA (8 n8 MMA tiles), 8 output columns per warp, 1 k step
// of 32 in flight per warp, fp16. For M = 33-64: the weights read once.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n64_c8_u1, fp16, cutlass::half_t, 8, 1, 1)
