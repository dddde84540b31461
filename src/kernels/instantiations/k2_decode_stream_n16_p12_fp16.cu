// Streaming decode kernel: 16 tokens per CTA, a ring of 12 k steps of 32 in flight per warp, fp16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE_STREAM(k2_decode_stream_n16_p12, fp16, cutlass::half_t, 2, 12)
