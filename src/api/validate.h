// Host-side argument checks for one SwiGLU problem. Pure host code: touches no device memory and
// calls no CUDA function, so every check here runs (and is tested) on a machine without a GPU.
#pragma once

#include <cstdint>
#include <string>

#include "tileglu/tileglu.h"

namespace tileglu {
namespace api {

// The names the messages use for the weight arguments, so that an error from
// tileglu_swiglu_stacked() names `w_gate_up` and `ldw`, not fields the caller never set.
struct ArgNames {
  const char* w_gate = "w_gate";
  const char* w_up = "w_up";
  const char* ld_gate = "ld_gate";
  const char* ld_up = "ld_up";
};

// Names for tileglu_swiglu_separate(): one leading dimension `ldw` for both weights.
ArgNames separate_arg_names();
// Names for tileglu_swiglu_stacked(): both weights are views of `w_gate_up`.
ArgNames stacked_arg_names();

struct Validation {
  tileglu_status_t status = TILEGLU_SUCCESS;
  std::string message;  // empty on success, else names the argument at fault and its value
  bool ok() const { return status == TILEGLU_SUCCESS; }
};

// Checks, in this order, stopping at the first failure:
//   1. problem is non-NULL                                   TILEGLU_ERROR_NULL_POINTER
//   2. dtype is BF16 or FP16                                 TILEGLU_ERROR_UNSUPPORTED_DTYPE
//   3. 0 < m, k, i < 2^31 (tile indices are 32-bit)          TILEGLU_ERROR_INVALID_SHAPE
//   4. k, i multiples of 8                                   TILEGLU_ERROR_UNALIGNED_DIMENSION
//   5. x, w_gate, w_up, out non-NULL                         TILEGLU_ERROR_NULL_POINTER
//   6. each leading dim >= its row length, a multiple of 8,
//      within the TMA stride limit, and its matrix's byte
//      range inside the address space                        TILEGLU_ERROR_INVALID_LEADING_DIM
//   7. x, w_gate, w_up, out 16-byte aligned                  TILEGLU_ERROR_MISALIGNED_POINTER
//   8. out's byte range overlaps none of x, w_gate, w_up     TILEGLU_ERROR_ALIASING
Validation validate_problem(const tileglu_swiglu_problem_t* problem,
                            const ArgNames& names = ArgNames{});

// A half-open byte range [begin, end).
struct ByteRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

// The bytes a row-major [rows, cols] matrix with leading dimension `ld` (elements) spans:
// [p, p + ((rows - 1) * ld + cols) * elem_bytes). Returns false when that end does not fit in the
// address space. Requires rows, cols >= 1 and ld >= cols.
bool matrix_byte_range(const void* p, int64_t rows, int64_t cols, int64_t ld, int64_t elem_bytes,
                       ByteRange* range);

// True when the two half-open ranges share at least one byte (adjacent ranges do not overlap).
bool ranges_overlap(const ByteRange& a, const ByteRange& b);

// Bytes per element of a supported dtype (2 for BF16 and FP16), 0 for anything else.
int64_t dtype_bytes(tileglu_dtype_t dtype);

}  // namespace api
}  // namespace tileglu
