// validate_problem(): every error in its documented order, each with its status and a message
// that names the argument; valid odd shapes; the aliasing detector's range arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api/validate.h"
#include "test_problem.h"

namespace tileglu {
namespace api {
namespace {

// Fake, 16-byte aligned, far apart device addresses: validation never dereferences them.
using tileglu_test::at;
using tileglu_test::at_mut;

// m = 3, k = 16, i = 24, contiguous, bf16, at 0x100000 .. 0x400000.
tileglu_swiglu_problem_t valid_problem() {
  return tileglu_test::valid_problem(3, 16, 24, 0x100000);
}

// Asserts the status and that the message contains `needle` (the argument and its value).
void expect_error(const tileglu_swiglu_problem_t& p, tileglu_status_t status,
                  const std::string& needle, const ArgNames& names = ArgNames{}) {
  const Validation v = validate_problem(&p, names);
  EXPECT_EQ(v.status, status) << "message: " << v.message;
  EXPECT_NE(v.message.find(needle), std::string::npos)
      << "message \"" << v.message << "\" does not contain \"" << needle << "\"";
}

TEST(Validate, AcceptsValidProblem) {
  const tileglu_swiglu_problem_t p = valid_problem();
  const Validation v = validate_problem(&p);
  EXPECT_EQ(v.status, TILEGLU_SUCCESS);
  EXPECT_TRUE(v.message.empty());
}

TEST(Validate, NullProblem) {
  const Validation v = validate_problem(nullptr);
  EXPECT_EQ(v.status, TILEGLU_ERROR_NULL_POINTER);
  EXPECT_EQ(v.message, "problem is NULL");
}

TEST(Validate, UnsupportedDtype) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.dtype = static_cast<tileglu_dtype_t>(2);
  expect_error(p, TILEGLU_ERROR_UNSUPPORTED_DTYPE, "dtype (=2)");
  p.dtype = static_cast<tileglu_dtype_t>(-1);
  expect_error(p, TILEGLU_ERROR_UNSUPPORTED_DTYPE, "dtype (=-1)");
}

TEST(Validate, NonPositiveExtents) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.m = 0;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "m (=0) must be > 0");
  p = valid_problem();
  p.m = -5;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "m (=-5) must be > 0");
  p = valid_problem();
  p.k = 0;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "k (=0) must be > 0");
  p = valid_problem();
  p.i = -8;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "i (=-8) must be > 0");
}

TEST(Validate, ExtentsMustFit32BitTileIndices) {
  const int64_t two31 = int64_t{1} << 31;
  tileglu_swiglu_problem_t p = valid_problem();
  p.m = two31;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "m (=2147483648) must be < 2^31");
  p = valid_problem();
  p.k = two31;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "k (=2147483648) must be < 2^31");
  p = valid_problem();
  p.i = int64_t{1} << 40;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "i (=1099511627776) must be < 2^31");
  // The largest m accepted (its out range is far past 0x400000, so give out its own space).
  p = valid_problem();
  p.m = two31 - 1;
  p.out = at_mut(uintptr_t{1} << 44);
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS) << validate_problem(&p).message;
}

TEST(Validate, OutputTileCountMustFit32BitTileIndices) {
  // 2^15 x 2^15 = 2^30 tiles of 64 x 64 is the most accepted; one more row of tiles is not.
  tileglu_swiglu_problem_t p = valid_problem();
  p.m = int64_t{1} << 21;
  p.i = int64_t{1} << 21;
  p.ld_out = p.i;
  p.out = at_mut(uintptr_t{1} << 44);  // far from the inputs: the output spans 2^43 bytes
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS) << validate_problem(&p).message;
  p.m += 1;
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE,
               "m (=2097153) x i (=2097152) is too large: more than 2^30 output tiles");
}

TEST(Validate, DimensionsMustBeMultiplesOf8) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.k = 100;
  p.ldx = p.ld_gate = p.ld_up = 104;
  expect_error(p, TILEGLU_ERROR_UNALIGNED_DIMENSION, "k (=100) must be a multiple of 8");
  p = valid_problem();
  p.i = 12;
  expect_error(p, TILEGLU_ERROR_UNALIGNED_DIMENSION, "i (=12) must be a multiple of 8");
  // m has no alignment requirement.
  p = valid_problem();
  p.m = 7;
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS);
}

TEST(Validate, NullPointers) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.x = nullptr;
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "x is NULL");
  p = valid_problem();
  p.w_gate = nullptr;
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "w_gate is NULL");
  p = valid_problem();
  p.w_up = nullptr;
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "w_up is NULL");
  p = valid_problem();
  p.out = nullptr;
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "out is NULL");
}

TEST(Validate, LeadingDimsAtLeastRowLength) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.k = 128;
  p.ld_gate = p.ld_up = 128;
  p.ldx = 100;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ldx (=100) must be >= k (=128)");
  p = valid_problem();
  p.ld_gate = 8;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_gate (=8) must be >= k (=16)");
  p = valid_problem();
  p.ld_up = 0;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_up (=0) must be >= k (=16)");
  p = valid_problem();
  p.ld_out = 16;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_out (=16) must be >= i (=24)");
}

TEST(Validate, LeadingDimsMultiplesOf8) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.ldx = 20;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ldx (=20) must be a multiple of 8");
  p = valid_problem();
  p.ld_gate = 17;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_gate (=17) must be a multiple of 8");
  p = valid_problem();
  p.ld_up = 30;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_up (=30) must be a multiple of 8");
  p = valid_problem();
  p.ld_out = 25;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_out (=25) must be a multiple of 8");
}

TEST(Validate, LeadingDimsWithinTmaStrideLimit) {
  // 2^39 bf16 elements = 2^40 bytes: the first stride TMA cannot describe.
  tileglu_swiglu_problem_t p = valid_problem();
  p.ldx = int64_t{1} << 39;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ldx (=549755813888) must be < 549755813888");
  p.ldx = (int64_t{1} << 39) - 8;
  p.out = at_mut(uintptr_t{1} << 45);  // x now spans ~2^41 bytes past 0x100000
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS) << validate_problem(&p).message;
}

TEST(Validate, MatrixPastEndOfAddressSpace) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.x = at(UINTPTR_MAX - 15);  // aligned; 3 rows of 32 bytes do not fit
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ldx (=16) puts the end of x");
}

TEST(Validate, MisalignedPointers) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.x = at(0x100008);
  expect_error(p, TILEGLU_ERROR_MISALIGNED_POINTER, "x (=0x100008) must be 16-byte aligned");
  p = valid_problem();
  p.w_gate = at(0x200002);
  expect_error(p, TILEGLU_ERROR_MISALIGNED_POINTER, "w_gate (=0x200002) must be 16-byte aligned");
  p = valid_problem();
  p.w_up = at(0x300001);
  expect_error(p, TILEGLU_ERROR_MISALIGNED_POINTER, "w_up (=0x300001) must be 16-byte aligned");
  p = valid_problem();
  p.out = at_mut(0x40000c);
  expect_error(p, TILEGLU_ERROR_MISALIGNED_POINTER, "out (=0x40000c) must be 16-byte aligned");
}

TEST(Validate, OutAliasingAnInput) {
  // x spans [0x100000, 0x100060): 3 rows of 16 bf16.
  tileglu_swiglu_problem_t p = valid_problem();
  p.out = at_mut(0x100000);
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps x [0x100000, 0x100060)");
  // out's last row ends inside x's first row.
  p = valid_problem();
  p.out = at_mut(0x100000 - 0x80);  // out spans 0x90 bytes: [0xfff80, 0x100010)
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps x");
  p = valid_problem();
  p.out = at_mut(0x200000 + 0x100);  // inside w_gate's [0x200000, 0x200300)
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps w_gate");
  p = valid_problem();
  p.out = at_mut(0x300000 + 0x2f0);  // the last 16 bytes of w_up's [0x300000, 0x300300)
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps w_up");
}

TEST(Validate, OutAdjacentToInputsIsNotAliasing) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.out = at_mut(0x100060);  // begins where x ends
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS) << validate_problem(&p).message;
  p.out = at_mut(0x300000 - 0x90);  // ends where w_up begins (0x90 = out's span)
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS) << validate_problem(&p).message;
}

TEST(Validate, InputsMayAliasEachOther) {
  // Read-only operands may share memory (e.g. the same weight used for gate and up).
  tileglu_swiglu_problem_t p = valid_problem();
  p.w_up = p.w_gate;
  p.x = p.w_gate;
  EXPECT_EQ(validate_problem(&p).status, TILEGLU_SUCCESS);
}

TEST(Validate, StridedOutInsideInputGapsCountsAsAliasing) {
  // Bounding ranges are compared: out's rows in the gaps of a padded x still overlap its range.
  tileglu_swiglu_problem_t p = valid_problem();
  p.ldx = 64;                        // x rows at 0x100000, 0x100080, 0x100100 (32 bytes each)
  p.out = at_mut(0x100000 + 0x20);  // out row 0 in x's padding
  p.ld_out = 64;
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps x");
}

TEST(Validate, OddValidShapes) {
  const int64_t ms[] = {1, 3, 17, 100, 1537, 5000};
  const int64_t ks[] = {8, 24, 896};
  const int64_t is[] = {8, 40, 4864};
  for (int64_t m : ms) {
    for (int64_t k : ks) {
      for (int64_t i : is) {
        tileglu_swiglu_problem_t p = valid_problem();
        p.dtype = (m % 2) ? TILEGLU_DTYPE_FP16 : TILEGLU_DTYPE_BF16;
        p.m = m;
        p.k = k;
        p.i = i;
        p.ldx = k + 8;  // padded rows
        p.ld_gate = k;
        p.ld_up = k + 64;
        p.ld_out = i + 16;
        p.x = at(uintptr_t{1} << 32);
        p.w_gate = at(uintptr_t{2} << 32);
        p.w_up = at(uintptr_t{3} << 32);
        p.out = at_mut(uintptr_t{4} << 32);
        const Validation v = validate_problem(&p);
        EXPECT_EQ(v.status, TILEGLU_SUCCESS) << "m=" << m << " k=" << k << " i=" << i << ": "
                                             << v.message;
      }
    }
  }
}

TEST(Validate, ChecksRunInDocumentedOrder) {
  // Every later check fails too; only the earliest is reported.
  tileglu_swiglu_problem_t p = valid_problem();
  p.ld_out = 9;           // 6: leading dim
  p.x = at(0x100004);     // 7: alignment
  p.out = at_mut(0x100000);  // 8: aliasing
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ld_out (=9)");
  p.w_up = nullptr;       // 5: null
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "w_up is NULL");
  p.i = 12;               // 4: unaligned dimension
  expect_error(p, TILEGLU_ERROR_UNALIGNED_DIMENSION, "i (=12)");
  p.m = 0;                // 3: shape
  expect_error(p, TILEGLU_ERROR_INVALID_SHAPE, "m (=0)");
  p.dtype = static_cast<tileglu_dtype_t>(9);  // 2: dtype
  expect_error(p, TILEGLU_ERROR_UNSUPPORTED_DTYPE, "dtype (=9)");
}

TEST(Validate, MessagesUseTheCallersNames) {
  tileglu_swiglu_problem_t p = valid_problem();
  p.ld_up = 8;
  expect_error(p, TILEGLU_ERROR_INVALID_LEADING_DIM, "ldw (=8) must be >= k (=16)",
               separate_arg_names());
  p = valid_problem();
  p.w_gate = nullptr;
  expect_error(p, TILEGLU_ERROR_NULL_POINTER, "w_gate_up is NULL", stacked_arg_names());
  p = valid_problem();
  p.out = at_mut(0x300000);
  expect_error(p, TILEGLU_ERROR_ALIASING, "overlaps w_gate_up + i * ldw (the up rows)",
               stacked_arg_names());
}

TEST(ByteRanges, MatrixExtent) {
  ByteRange r;
  // 3 rows, 16 columns, ld 24, 2 bytes: (2 * 24 + 16) * 2 = 128 bytes.
  ASSERT_TRUE(matrix_byte_range(at(0x1000), 3, 16, 24, 2, &r));
  EXPECT_EQ(r.begin, 0x1000u);
  EXPECT_EQ(r.end, 0x1000u + 128u);
  // One row: the leading dimension does not matter.
  ASSERT_TRUE(matrix_byte_range(at(0x1000), 1, 16, 1 << 20, 2, &r));
  EXPECT_EQ(r.end, 0x1000u + 32u);
  // Past the end of the address space.
  EXPECT_FALSE(matrix_byte_range(at(UINTPTR_MAX - 31), 1, 16, 16, 2, &r));
  ASSERT_TRUE(matrix_byte_range(at(UINTPTR_MAX - 32), 1, 16, 16, 2, &r));
  EXPECT_EQ(r.end, UINTPTR_MAX);
}

TEST(ByteRanges, Overlap) {
  const ByteRange a{100, 200};
  EXPECT_TRUE(ranges_overlap(a, ByteRange{100, 200}));  // identical
  EXPECT_TRUE(ranges_overlap(a, ByteRange{150, 160}));  // inside
  EXPECT_TRUE(ranges_overlap(a, ByteRange{50, 300}));   // around
  EXPECT_TRUE(ranges_overlap(a, ByteRange{199, 250}));  // last byte shared
  EXPECT_TRUE(ranges_overlap(a, ByteRange{50, 101}));   // first byte shared
  EXPECT_FALSE(ranges_overlap(a, ByteRange{200, 300}));  // adjacent after
  EXPECT_FALSE(ranges_overlap(a, ByteRange{0, 100}));    // adjacent before
  EXPECT_FALSE(ranges_overlap(a, ByteRange{500, 600}));  // disjoint
  EXPECT_TRUE(ranges_overlap(ByteRange{150, 160}, a));   // symmetric
  EXPECT_FALSE(ranges_overlap(ByteRange{200, 300}, a));
}

TEST(Dtype, Bytes) {
  EXPECT_EQ(dtype_bytes(TILEGLU_DTYPE_BF16), 2);
  EXPECT_EQ(dtype_bytes(TILEGLU_DTYPE_FP16), 2);
  EXPECT_EQ(dtype_bytes(static_cast<tileglu_dtype_t>(7)), 0);
}

}  // namespace
}  // namespace api
}  // namespace tileglu
