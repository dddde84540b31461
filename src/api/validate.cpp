#include "validate.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace tileglu {
namespace api {
namespace {

// Tile indices and TMA box coordinates are 32-bit in the kernels.
constexpr int64_t kMaxExtent = int64_t{1} << 31;
constexpr int64_t kMaxOutputTiles = int64_t{1} << 30;
// cuTensorMapEncodeTiled requires every global stride to be < 2^40 bytes.
constexpr int64_t kMaxStrideBytes = int64_t{1} << 40;

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return std::string(buf);
}

Validation fail(tileglu_status_t status, std::string message) {
  Validation v;
  v.status = status;
  v.message = std::move(message);
  return v;
}

Validation check_extent(const char* name, int64_t value) {
  if (value <= 0) {
    return fail(TILEGLU_ERROR_INVALID_SHAPE, format("%s (=%" PRId64 ") must be > 0", name, value));
  }
  if (value >= kMaxExtent) {
    return fail(TILEGLU_ERROR_INVALID_SHAPE,
                format("%s (=%" PRId64 ") must be < 2^31 (tile indices are 32-bit)", name, value));
  }
  return {};
}

Validation check_multiple_of_8(const char* name, int64_t value) {
  if (value % TILEGLU_ALIGNMENT_ELEMENTS != 0) {
    return fail(TILEGLU_ERROR_UNALIGNED_DIMENSION,
                format("%s (=%" PRId64 ") must be a multiple of %d", name, value,
                       TILEGLU_ALIGNMENT_ELEMENTS));
  }
  return {};
}

// One matrix's leading dimension: `ld_name` of matrix `matrix` with `rows` rows of `cols`
// elements named `cols_name`.
Validation check_leading_dim(const char* ld_name, int64_t ld, const char* cols_name, int64_t cols,
                             const char* matrix, const void* p, int64_t rows, int64_t elem) {
  if (ld < cols) {
    return fail(TILEGLU_ERROR_INVALID_LEADING_DIM,
                format("%s (=%" PRId64 ") must be >= %s (=%" PRId64 ")", ld_name, ld, cols_name,
                       cols));
  }
  if (ld % TILEGLU_ALIGNMENT_ELEMENTS != 0) {
    return fail(TILEGLU_ERROR_INVALID_LEADING_DIM,
                format("%s (=%" PRId64 ") must be a multiple of %d", ld_name, ld,
                       TILEGLU_ALIGNMENT_ELEMENTS));
  }
  if (ld >= kMaxStrideBytes / elem) {
    return fail(TILEGLU_ERROR_INVALID_LEADING_DIM,
                format("%s (=%" PRId64 ") must be < %" PRId64 " (TMA strides are < 2^40 bytes)",
                       ld_name, ld, kMaxStrideBytes / elem));
  }
  ByteRange range;
  if (!matrix_byte_range(p, rows, cols, ld, elem, &range)) {
    return fail(TILEGLU_ERROR_INVALID_LEADING_DIM,
                format("%s (=%" PRId64 ") puts the end of %s (=%p) past the end of the address "
                       "space",
                       ld_name, ld, matrix, p));
  }
  return {};
}

Validation check_aligned(const char* name, const void* p) {
  if (reinterpret_cast<uintptr_t>(p) % TILEGLU_ALIGNMENT_BYTES != 0) {
    return fail(TILEGLU_ERROR_MISALIGNED_POINTER,
                format("%s (=%p) must be %d-byte aligned", name, p, TILEGLU_ALIGNMENT_BYTES));
  }
  return {};
}

}  // namespace

ArgNames separate_arg_names() {
  ArgNames names;
  names.ld_gate = "ldw";
  names.ld_up = "ldw";
  return names;
}

ArgNames stacked_arg_names() {
  ArgNames names;
  names.w_gate = "w_gate_up";
  names.w_up = "w_gate_up + i * ldw (the up rows)";
  names.ld_gate = "ldw";
  names.ld_up = "ldw";
  return names;
}

int64_t dtype_bytes(tileglu_dtype_t dtype) {
  switch (dtype) {
    case TILEGLU_DTYPE_BF16:
    case TILEGLU_DTYPE_FP16:
      return 2;
  }
  return 0;
}

bool matrix_byte_range(const void* p, int64_t rows, int64_t cols, int64_t ld, int64_t elem_bytes,
                       ByteRange* range) {
  using u128 = unsigned __int128;
  const u128 begin = reinterpret_cast<uintptr_t>(p);
  const u128 elements = static_cast<u128>(rows - 1) * static_cast<u128>(ld) + static_cast<u128>(cols);
  const u128 end = begin + elements * static_cast<u128>(elem_bytes);
  if (end > static_cast<u128>(UINTPTR_MAX)) return false;
  range->begin = static_cast<uintptr_t>(begin);
  range->end = static_cast<uintptr_t>(end);
  return true;
}

bool ranges_overlap(const ByteRange& a, const ByteRange& b) {
  return a.begin < b.end && b.begin < a.end;
}

Validation validate_problem(const tileglu_swiglu_problem_t* problem, const ArgNames& names) {
  if (problem == nullptr) {
    return fail(TILEGLU_ERROR_NULL_POINTER, "problem is NULL");
  }
  const tileglu_swiglu_problem_t& p = *problem;

  const int64_t elem = dtype_bytes(p.dtype);
  if (elem == 0) {
    return fail(TILEGLU_ERROR_UNSUPPORTED_DTYPE,
                format("dtype (=%d) must be TILEGLU_DTYPE_BF16 (%d) or TILEGLU_DTYPE_FP16 (%d)",
                       static_cast<int>(p.dtype), TILEGLU_DTYPE_BF16, TILEGLU_DTYPE_FP16));
  }

  Validation v;
  if (!(v = check_extent("m", p.m)).ok()) return v;
  if (!(v = check_extent("k", p.k)).ok()) return v;
  if (!(v = check_extent("i", p.i)).ok()) return v;
  // The kernels index output tiles with int: bound the count for the smallest tile (64 x 64).
  if ((p.m + 63) / 64 * ((p.i + 63) / 64) > kMaxOutputTiles) {
    return fail(TILEGLU_ERROR_INVALID_SHAPE,
                format("m (=%" PRId64 ") x i (=%" PRId64 ") is too large: more than 2^30 output "
                       "tiles of 64 x 64 (tile indices are 32-bit)", p.m, p.i));
  }

  if (!(v = check_multiple_of_8("k", p.k)).ok()) return v;
  if (!(v = check_multiple_of_8("i", p.i)).ok()) return v;

  if (p.x == nullptr) return fail(TILEGLU_ERROR_NULL_POINTER, "x is NULL");
  if (p.w_gate == nullptr) return fail(TILEGLU_ERROR_NULL_POINTER, format("%s is NULL", names.w_gate));
  if (p.w_up == nullptr) return fail(TILEGLU_ERROR_NULL_POINTER, format("%s is NULL", names.w_up));
  if (p.out == nullptr) return fail(TILEGLU_ERROR_NULL_POINTER, "out is NULL");

  if (!(v = check_leading_dim("ldx", p.ldx, "k", p.k, "x", p.x, p.m, elem)).ok()) return v;
  if (!(v = check_leading_dim(names.ld_gate, p.ld_gate, "k", p.k, names.w_gate, p.w_gate, p.i,
                              elem)).ok()) {
    return v;
  }
  if (!(v = check_leading_dim(names.ld_up, p.ld_up, "k", p.k, names.w_up, p.w_up, p.i, elem)).ok()) {
    return v;
  }
  if (!(v = check_leading_dim("ld_out", p.ld_out, "i", p.i, "out", p.out, p.m, elem)).ok()) return v;

  if (!(v = check_aligned("x", p.x)).ok()) return v;
  if (!(v = check_aligned(names.w_gate, p.w_gate)).ok()) return v;
  if (!(v = check_aligned(names.w_up, p.w_up)).ok()) return v;
  if (!(v = check_aligned("out", p.out)).ok()) return v;

  // The ranges are the matrices' bounding byte ranges, so a strided out interleaved with the gaps
  // of a strided input counts as aliasing too: conservative, and never a false "no overlap".
  // The leading-dimension checks above guarantee that every range fits the address space.
  ByteRange out_range, x_range, gate_range, up_range;
  matrix_byte_range(p.out, p.m, p.i, p.ld_out, elem, &out_range);
  matrix_byte_range(p.x, p.m, p.k, p.ldx, elem, &x_range);
  matrix_byte_range(p.w_gate, p.i, p.k, p.ld_gate, elem, &gate_range);
  matrix_byte_range(p.w_up, p.i, p.k, p.ld_up, elem, &up_range);
  const struct {
    const char* name;
    const ByteRange& range;
  } inputs[] = {{"x", x_range}, {names.w_gate, gate_range}, {names.w_up, up_range}};
  for (const auto& input : inputs) {
    if (ranges_overlap(out_range, input.range)) {
      return fail(TILEGLU_ERROR_ALIASING,
                  format("out [%#" PRIxPTR ", %#" PRIxPTR ") overlaps %s [%#" PRIxPTR ", %#" PRIxPTR
                         "); out must not alias an input",
                         out_range.begin, out_range.end, input.name, input.range.begin,
                         input.range.end));
    }
  }
  return {};
}

}  // namespace api
}  // namespace tileglu
