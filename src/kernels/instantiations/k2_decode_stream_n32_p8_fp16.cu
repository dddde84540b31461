// Streaming decode kernel: 32 tokens per CTA, a ring of 8 k steps per warp (6 vectors a step:
// gate, up, 4 token tiles; 8 steps is the most that fits with the partial sums), fp16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE_STREAM(k2_decode_stream_n32_p8, fp16, cutlass::half_t, 4, 8)
