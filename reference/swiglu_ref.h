// CPU reference for tileglu's SwiGLU forward, beside the op it checks (quack's *_ref habit).
//
//   out[r, c] = round( silu(g) * u ),  g = sum_k x[r, k] * w_gate[c, k],  u = sum_k x[r, k] * w_up[c, k]
//
// Inputs are bf16 or fp16 bit patterns (reference/numerics.h), products and sums in fp64, silu in
// fp64, one rounding to the output format at the end. Rows are independent, so a caller that checks
// a sample of rows passes x + r0 * ldx and out + r0 * ld_out with m = the number of rows.
#pragma once

#include <cstdint>

#include "numerics.h"

namespace tileglu {
namespace reference {

// silu(g) * u in fp64, the quantity the kernels approximate.
double swiglu_value(double g, double u);

// The unrounded fp64 result: out[r * ld_out + c] for r < m, c < i.
void swiglu_ref_f64(Format format, int64_t m, int64_t k, int64_t i, const uint16_t* x,
                    int64_t ldx, const uint16_t* w_gate, int64_t ld_gate, const uint16_t* w_up,
                    int64_t ld_up, double* out, int64_t ld_out);

// The correctly rounded result in `format`: what a kernel matches bit for bit at 0 ulp.
void swiglu_ref(Format format, int64_t m, int64_t k, int64_t i, const uint16_t* x, int64_t ldx,
                const uint16_t* w_gate, int64_t ld_gate, const uint16_t* w_up, int64_t ld_up,
                uint16_t* out, int64_t ld_out);

}  // namespace reference
}  // namespace tileglu
