// reference/swiglu_ref: bit-exact against hand-computed values on integer inputs (every product
// and sum exact, so only silu and the final rounding are left), strided layouts, and agreement of
// the rounded and fp64 variants.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "reference/numerics.h"
#include "reference/swiglu_ref.h"

namespace tileglu {
namespace reference {
namespace {

// m = 2, k = 8, i = 3. x and the weights are integers in [-8, 8]; padded leading dims, with the
// padding filled with NaN so that reading it would show.
//   x[0] = [1, 0,  8,  8,  8,  8,  8,  8]     x[1] = [0, 1, -8, -8, -8, -8, -8, -8]
//   w_gate[c] = [a, b, t x 6],  w_up[c] = [p, q, s x 6]
//   g[0][c] = a + 48 t,  g[1][c] = b - 48 t,  u[0][c] = p + 48 s,  u[1][c] = q - 48 s
// giving (g, u):
//   c = 0: a=1, b=-2, t=0; p=2,  q=7,  s=0   -> (1, 2)      (-2, 7)
//   c = 1: a=3, b=5,  t=0; p=-5, q=3,  s=0   -> (3, -5)     (5, 3)
//   c = 2: a=0, b=0,  t=8; p=0,  q=-8, s=-1  -> (384, -48)  (-384, 40)
struct IntegerCase {
  static constexpr int64_t m = 2, k = 8, i = 3, ldx = 16, ldw = 24, ld_out = 8;
  std::vector<uint16_t> x, w_gate, w_up;

  explicit IntegerCase(Format f) {
    const uint16_t nan = round_to(f, std::nan(""));
    x.assign(m * ldx, nan);
    w_gate.assign(i * ldw, nan);
    w_up.assign(i * ldw, nan);
    const int xs[2][8] = {{1, 0, 8, 8, 8, 8, 8, 8}, {0, 1, -8, -8, -8, -8, -8, -8}};
    const int gate[3][3] = {{1, -2, 0}, {3, 5, 0}, {0, 0, 8}};  // a, b, t
    const int up[3][3] = {{2, 7, 0}, {-5, 3, 0}, {0, -8, -1}};  // p, q, s
    for (int r = 0; r < 2; ++r) {
      for (int kk = 0; kk < 8; ++kk) x[r * ldx + kk] = round_to(f, xs[r][kk]);
    }
    for (int c = 0; c < 3; ++c) {
      for (int kk = 0; kk < 8; ++kk) {
        const int g = kk == 0 ? gate[c][0] : kk == 1 ? gate[c][1] : gate[c][2];
        const int u = kk == 0 ? up[c][0] : kk == 1 ? up[c][1] : up[c][2];
        w_gate[c * ldw + kk] = round_to(f, g);
        w_up[c * ldw + kk] = round_to(f, u);
      }
    }
  }
};

// Expected outputs, worked by hand from silu(g) * u = g * u / (1 + e^-g):
//   (1, 2):      1.46211715726...  = 1.46211715726 x 2^0
//                bf16: .46211715726 x 128  =  59.15 ->  59 -> 0x3F80 + 59  = 0x3FBB
//                fp16: .46211715726 x 1024 = 473.2  -> 473 -> 0x3C00 + 473 = 0x3DD9
//   (3, -5):    -14.2886119023... = -1.78607648779 x 2^3
//                bf16: .786076 x 128  = 100.62 -> 101 -> 0xC100 + 101 = 0xC165
//                fp16: .786076 x 1024 = 804.94 -> 805 -> 0xC800 + 805 = 0xCB25
//   (384, -48): -18432 (e^-384 is far below an fp64 ulp of 1) = -1.125 x 2^14
//                bf16: 0xC680 + 16 = 0xC690        fp16: 0xF400 + 128 = 0xF480
//   (-2, 7):    -1.66884090831... = -1.66884090831 x 2^0
//                bf16: .668841 x 128  =  85.61 ->  86 -> 0xBF80 + 86  = 0xBFD6
//                fp16: .668841 x 1024 = 684.89 -> 685 -> 0xBC00 + 685 = 0xBEAD
//   (5, 3):      14.8996072361... = 1.86245090452 x 2^3
//                bf16: .862451 x 128  = 110.39 -> 110 -> 0x4100 + 110 = 0x416E
//                fp16: .862451 x 1024 = 883.15 -> 883 -> 0x4800 + 883 = 0x4B73
//   (-384, 40): -384 * 40 * e^-384 ~ -3e-163: rounds to -0 = 0x8000 in both formats
TEST(SwigluRef, BitExactBf16) {
  const IntegerCase c(Format::kBF16);
  std::vector<uint16_t> out(IntegerCase::m * IntegerCase::ld_out, 0xDEAD);
  swiglu_ref(Format::kBF16, 2, 8, 3, c.x.data(), IntegerCase::ldx, c.w_gate.data(),
             IntegerCase::ldw, c.w_up.data(), IntegerCase::ldw, out.data(), IntegerCase::ld_out);
  const uint16_t want[2][3] = {{0x3FBB, 0xC165, 0xC690}, {0xBFD6, 0x416E, 0x8000}};
  for (int r = 0; r < 2; ++r) {
    for (int col = 0; col < 3; ++col) {
      EXPECT_EQ(out[r * 8 + col], want[r][col]) << "r=" << r << " c=" << col;
    }
    for (int col = 3; col < 8; ++col) EXPECT_EQ(out[r * 8 + col], 0xDEAD) << "padding written";
  }
}

TEST(SwigluRef, BitExactFp16) {
  const IntegerCase c(Format::kFP16);
  std::vector<uint16_t> out(IntegerCase::m * IntegerCase::ld_out, 0xDEAD);
  swiglu_ref(Format::kFP16, 2, 8, 3, c.x.data(), IntegerCase::ldx, c.w_gate.data(),
             IntegerCase::ldw, c.w_up.data(), IntegerCase::ldw, out.data(), IntegerCase::ld_out);
  const uint16_t want[2][3] = {{0x3DD9, 0xCB25, 0xF480}, {0xBEAD, 0x4B73, 0x8000}};
  for (int r = 0; r < 2; ++r) {
    for (int col = 0; col < 3; ++col) {
      EXPECT_EQ(out[r * 8 + col], want[r][col]) << "r=" << r << " c=" << col;
    }
    for (int col = 3; col < 8; ++col) EXPECT_EQ(out[r * 8 + col], 0xDEAD) << "padding written";
  }
}

TEST(SwigluRef, Fp64ResultIsTheUnroundedValue) {
  const IntegerCase c(Format::kBF16);
  std::vector<double> out(2 * 8, -1.0);
  swiglu_ref_f64(Format::kBF16, 2, 8, 3, c.x.data(), IntegerCase::ldx, c.w_gate.data(),
                 IntegerCase::ldw, c.w_up.data(), IntegerCase::ldw, out.data(), 8);
  EXPECT_DOUBLE_EQ(out[0], 2.0 / (1.0 + std::exp(-1.0)));
  EXPECT_DOUBLE_EQ(out[1], -15.0 / (1.0 + std::exp(-3.0)));
  EXPECT_EQ(out[2], -18432.0);
  EXPECT_DOUBLE_EQ(out[8], -14.0 / (1.0 + std::exp(2.0)));
  EXPECT_DOUBLE_EQ(out[9], 15.0 / (1.0 + std::exp(-5.0)));
  EXPECT_LT(out[10], 0.0);
  EXPECT_GT(out[10], -1e-150);
}

TEST(SwigluRef, SiluValue) {
  EXPECT_EQ(swiglu_value(0.0, 5.0), 0.0);
  EXPECT_DOUBLE_EQ(swiglu_value(1.0, 1.0), 0.7310585786300049);
  EXPECT_DOUBLE_EQ(swiglu_value(-1.0, 1.0), -0.2689414213699951);
  EXPECT_EQ(swiglu_value(1000.0, 2.0), 2000.0);
  EXPECT_EQ(swiglu_value(-1000.0, 2.0), -0.0);
}

// Random data, many rows (more than one row block): the rounded result is the fp64 one rounded
// once, and a sample of rows computed on their own (offset pointers) matches the full run.
TEST(SwigluRef, RoundedMatchesFp64AndRowsAreIndependent) {
  for (Format f : {Format::kBF16, Format::kFP16}) {
    const int64_t m = 70, k = 40, i = 24, ldx = 48, ldw = 40, ld_out = 32;
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<uint16_t> x(m * ldx), wg(i * ldw), wu(i * ldw);
    for (auto& v : x) v = round_to(f, normal(rng));
    for (auto& v : wg) v = round_to(f, normal(rng) * 0.2);
    for (auto& v : wu) v = round_to(f, normal(rng) * 0.2);
    std::vector<uint16_t> out(m * ld_out, 0);
    std::vector<double> out64(m * ld_out, 0.0);
    swiglu_ref(f, m, k, i, x.data(), ldx, wg.data(), ldw, wu.data(), ldw, out.data(), ld_out);
    swiglu_ref_f64(f, m, k, i, x.data(), ldx, wg.data(), ldw, wu.data(), ldw, out64.data(), ld_out);
    int nonzero = 0;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < i; ++c) {
        ASSERT_EQ(out[r * ld_out + c], round_to(f, out64[r * ld_out + c]));
        nonzero += out64[r * ld_out + c] != 0.0;
        // Against a straightforward dot product of the decoded inputs.
        double g = 0, u = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          g += to_double(f, x[r * ldx + kk]) * to_double(f, wg[c * ldw + kk]);
          u += to_double(f, x[r * ldx + kk]) * to_double(f, wu[c * ldw + kk]);
        }
        ASSERT_NEAR(out64[r * ld_out + c], g / (1 + std::exp(-g)) * u, 1e-12);
      }
    }
    EXPECT_GT(nonzero, m * i * 9 / 10);
    // Rows 33..36 alone.
    std::vector<uint16_t> part(4 * ld_out, 0);
    swiglu_ref(f, 4, k, i, x.data() + 33 * ldx, ldx, wg.data(), ldw, wu.data(), ldw, part.data(),
               ld_out);
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t c = 0; c < i; ++c) ASSERT_EQ(part[r * ld_out + c], out[(33 + r) * ld_out + c]);
    }
  }
}

}  // namespace
}  // namespace reference
}  // namespace tileglu
