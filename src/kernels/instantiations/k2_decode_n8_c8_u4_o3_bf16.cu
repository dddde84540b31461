// Decode kernel: k2_decode_n8_c8_u4 held to 80 registers so that three CTAs share an SM, bf16.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n8_c8_u4_o3, bf16, cutlass::bfloat16_t, 1, 1, 4, 3)
