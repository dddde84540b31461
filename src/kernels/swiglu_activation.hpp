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

// silu(g) = g sigmoid(g) without the IEEE division, for the epilogues the tensor cores wait for
// (the swap-AB Cooperative units' `_fs` configs, sm90_swiglu_swapab_pingpong.hpp): g / (1 + e) or
// g e / (1 + e) with e = exp(-|g|) in (0, 1], so the denominator stays in (1, 2], where the
// approximate reciprocal (rcp.approx through __fdividef) is within ~1 fp32 ulp. The division
// costs a range check and a slow-path call per output that ptxas cannot interleave. Limits:
// g -> -inf gives g * 0 = -0, g -> +inf gives g, NaN stays NaN. Not the default everywhere: in
// the Pingpong 128x64 tile, whose epilogue overlaps the other warpgroup's mainloop, it measured
// 3-10 % slower (bench/NOTES.md, session 21).
CUTLASS_DEVICE float silu_without_division(float gate) {
  float const e = __expf(-fabsf(gate));
  float const sigmoid_of_abs = __fdividef(1.0f, 1.0f + e);  // sigmoid(|g|)
  return gate * (gate >= 0.0f ? sigmoid_of_abs : e * sigmoid_of_abs);
}

struct SiluMulWithoutDivision {
  CUTLASS_DEVICE float operator()(float gate, float up) const { return silu_without_division(gate) * up; }
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
