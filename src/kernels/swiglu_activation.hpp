// The SwiGLU math every kernel family shares, and the one rounding to the output type. Kept
// free of CuTe so that the decode kernel (sm90_swiglu_decode.hpp) compiles without it.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>

namespace tileglu::kernels {

// silu(g) in fp32. __expf is the fast exponential (ex2.approx): a few fp32 ulp, far below one
// bf16/fp16 ulp; g -> -inf gives g / inf = -0. The IEEE division stays: g * sigmoid by way of
// __fdividef made the Pingpong tiles 3-10 % slower on an H100 (bench/NOTES.md, session 21).
CUTLASS_DEVICE float silu(float gate) { return gate / (1.0f + __expf(-gate)); }

// silu(g) * u in fp32: the epilogue's activation.
struct SiluMul {
  CUTLASS_DEVICE float operator()(float gate, float up) const { return silu(gate) * up; }
};

// g * u for a gate accumulator that already holds silu(g): the sequential Kernel-1 applies SiLU
// during its up K sweep (sm90_swiglu_mainloop_tma_gmma_ws.hpp), so its epilogue only multiplies.
struct MulActivated {
  CUTLASS_DEVICE float operator()(float silu_gate, float up) const { return silu_gate * up; }
};

// Packs two fp32 values into one 32-bit word of the output type, rounding each once (RNE).
template <class Element>
CUTLASS_DEVICE uint32_t pack_rounded_pair(float lo, float hi);

template <>
CUTLASS_DEVICE uint32_t pack_rounded_pair<cutlass::bfloat16_t>(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

template <>
CUTLASS_DEVICE uint32_t pack_rounded_pair<cutlass::half_t>(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// One fp32 value rounded once (RNE) to the output type, as its 16 bits.
template <class Element>
CUTLASS_DEVICE uint16_t round_to_bits(float value);

template <>
CUTLASS_DEVICE uint16_t round_to_bits<cutlass::bfloat16_t>(float value) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(value));
}

template <>
CUTLASS_DEVICE uint16_t round_to_bits<cutlass::half_t>(float value) {
  return __half_as_ushort(__float2half_rn(value));
}

}  // namespace tileglu::kernels
