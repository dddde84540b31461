// Decode kernel: k2_decode_n8_c8_u4 held to 64 registers so that four CTAs share an SM, fp16:
// twice the loads in flight per SM, for small models whose weights fit in one wave.
#include "../sm90_swiglu_decode.hpp"

TILEGLU_INSTANTIATE_DECODE(k2_decode_n8_c8_u4_o4, fp16, cutlass::half_t, 1, 1, 4, 4)
