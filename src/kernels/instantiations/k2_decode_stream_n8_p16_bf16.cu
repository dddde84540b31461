// Streaming decode kernel: 8 tokens per CTA, a ring of 16 k steps of 32 in flight per warp, bf16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE_STREAM(k2_decode_stream_n8_p16, bf16, cutlass::bfloat16_t, 1, 16)
