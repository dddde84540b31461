// Streaming decode kernel: 8 tokens per CTA, a ring of 16 k steps of 32 in flight per warp, fp16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE_STREAM(k2_decode_stream_n8_p16, fp16, cutlass::half_t, 1, 16)
