// Helpers shared by the CPU tests of the C API and of validation: fake device addresses and a
// valid, contiguous problem. Validation never dereferences a pointer, so none of these addresses
// needs to be mapped.
#pragma once

#include <cstdint>

#include "tileglu/tileglu.h"

namespace tileglu_test {

inline const void* at(uintptr_t address) { return reinterpret_cast<const void*>(address); }
inline void* at_mut(uintptr_t address) { return reinterpret_cast<void*>(address); }

// A valid bf16 [m, k] x [i, k] problem, every matrix contiguous (ldx = ld_gate = ld_up = k,
// ld_out = i), at the 16-byte aligned addresses x = base, w_gate = 2 base, w_up = 3 base,
// out = 4 base. `base` must be large enough for the matrices not to overlap.
inline tileglu_swiglu_problem_t valid_problem(int64_t m, int64_t k, int64_t i, uintptr_t base) {
  tileglu_swiglu_problem_t p{};
  p.dtype = TILEGLU_DTYPE_BF16;
  p.m = m;
  p.k = k;
  p.i = i;
  p.x = at(base);
  p.ldx = k;
  p.w_gate = at(2 * base);
  p.ld_gate = k;
  p.w_up = at(3 * base);
  p.ld_up = k;
  p.out = at_mut(4 * base);
  p.ld_out = i;
  return p;
}

}  // namespace tileglu_test
