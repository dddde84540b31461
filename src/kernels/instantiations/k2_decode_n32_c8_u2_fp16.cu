// Decode kernel: 32 tokens per CTA (4 n8 MMA tiles), 8 output columns per warp, 2 k steps
// of 32 in flight per warp (4 would spill: 128 registers at two CTAs per SM), fp16. For
// M = 17-32, where the 8- and 16-token kernels read the weights two to four times.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n32_c8_u2, fp16, cutlass::half_t, 4, 1, 2)
