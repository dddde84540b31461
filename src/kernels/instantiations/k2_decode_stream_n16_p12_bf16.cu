// Streaming decode kernel: 16 tokens per CTA, a ring of 12 k steps of 32 in flight per warp, bf16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE_STREAM(k2_decode_stream_n16_p12, bf16, cutlass::bfloat16_t, 2, 12)
