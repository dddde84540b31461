// reference/numerics.h: bf16/fp16 rounding (once, to nearest even), decoding, ulp distances.
// The rounding is checked against hand-worked values and, independently, against an exhaustive
// oracle: the nearest of all finite values of the format, found by search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "reference/numerics.h"

namespace tileglu {
namespace reference {
namespace {

uint32_t float_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Bf16, HandWorkedRounding) {
  EXPECT_EQ(double_to_bf16(1.0), 0x3F80);
  EXPECT_EQ(double_to_bf16(-2.0), 0xC000);
  EXPECT_EQ(double_to_bf16(0.0), 0x0000);
  EXPECT_EQ(double_to_bf16(-0.0), 0x8000);
  // 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7: ties to even.
  EXPECT_EQ(double_to_bf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(double_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  // Just above the tie rounds up.
  EXPECT_EQ(double_to_bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
  // 1/3 = 0x3EAAAAAB in float -> 0x3EAB in bf16 (0xAAAB: the dropped 0xAAAB > 0x8000 rounds up).
  EXPECT_EQ(double_to_bf16(1.0 / 3.0), 0x3EAB);
  // Largest finite bf16: (2 - 2^-7) * 2^127; halfway to 2^128 is (2 - 2^-8) * 2^127.
  EXPECT_EQ(double_to_bf16(std::ldexp(2.0 - std::ldexp(1.0, -7), 127)), 0x7F7F);
  EXPECT_EQ(double_to_bf16(std::ldexp(2.0 - std::ldexp(1.0, -8), 127) * (1 - 1e-12)), 0x7F7F);
  EXPECT_EQ(double_to_bf16(std::ldexp(2.0 - std::ldexp(1.0, -8), 127)), 0x7F80);  // tie -> inf
  EXPECT_EQ(double_to_bf16(1e39), 0x7F80);
  EXPECT_EQ(double_to_bf16(-1e300), 0xFF80);
  EXPECT_EQ(double_to_bf16(kInf), 0x7F80);
  EXPECT_EQ(double_to_bf16(-kInf), 0xFF80);
}

TEST(Bf16, Subnormals) {
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -133)), 0x0001);  // smallest subnormal
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -134)), 0x0000);  // tie with 0 -> 0 (even)
  EXPECT_EQ(double_to_bf16(std::ldexp(3.0, -135)), 0x0001);  // 0.75 of the smallest -> 1
  EXPECT_EQ(double_to_bf16(std::ldexp(3.0, -134)), 0x0002);  // 1.5 -> 2 (even)
  EXPECT_EQ(double_to_bf16(-std::ldexp(1.0, -140)), 0x8000);
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -126)), 0x0080);  // smallest normal
  // Halfway between the largest subnormal 0x007F and the smallest normal 0x0080 -> 0x0080.
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -126) - std::ldexp(1.0, -134)), 0x0080);
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -126) - std::ldexp(3.0, -135)), 0x007F);
  EXPECT_EQ(double_to_bf16(5e-324), 0x0000);  // a subnormal double
}

TEST(Bf16, NaN) {
  EXPECT_EQ(double_to_bf16(kNaN), 0x7FC0);
  EXPECT_EQ(double_to_bf16(-kNaN), 0xFFC0);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::quiet_NaN()), 0x7FC0);
  EXPECT_TRUE(is_nan(Format::kBF16, 0x7FC0));
  EXPECT_TRUE(is_nan(Format::kBF16, 0x7F81));  // signalling pattern
  EXPECT_TRUE(is_nan(Format::kBF16, 0xFFFF));
  EXPECT_FALSE(is_nan(Format::kBF16, 0x7F80));  // infinity
  EXPECT_TRUE(std::isnan(bf16_to_float(0x7F81)));
  EXPECT_TRUE(std::isnan(to_double(Format::kBF16, 0xFFC0)));
  EXPECT_TRUE(std::signbit(to_double(Format::kBF16, 0xFFC0)));
}

TEST(Bf16, RoundsOnceFromDouble) {
  // 1 + 2^-8 + 2^-30: above the bf16 tie, so it rounds up. Through float it would round twice:
  // to 1 + 2^-8 (2^-30 is below half a float ulp), then the tie goes to even, 1.0.
  const double v = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(double_to_bf16(v), 0x3F81);
  EXPECT_EQ(float_to_bf16(static_cast<float>(v)), 0x3F80);
}

TEST(Bf16, EveryPatternRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = bf16_to_float(bits);
    if (is_nan(Format::kBF16, bits)) {
      EXPECT_TRUE(std::isnan(f));
      EXPECT_TRUE(is_nan(Format::kBF16, float_to_bf16(f)));
      continue;
    }
    // bf16 is the top half of a float.
    ASSERT_EQ(float_bits(f), b << 16) << std::hex << b;
    ASSERT_EQ(float_to_bf16(f), bits) << std::hex << b;
    ASSERT_EQ(double_to_bf16(to_double(Format::kBF16, bits)), bits) << std::hex << b;
  }
}

TEST(Bf16, MatchesTheIntegerRoundingTrickOnRandomFloats) {
  // The classic float -> bf16 RNE: (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16, valid for every
  // non-NaN float (overflow carries into the infinity pattern).
  std::mt19937 rng(1234);
  for (int n = 0; n < 200000; ++n) {
    const uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    if (std::isnan(f)) continue;
    const uint16_t want = static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    ASSERT_EQ(float_to_bf16(f), want) << std::hex << bits;
  }
}

TEST(Fp16, HandWorkedRounding) {
  EXPECT_EQ(double_to_fp16(1.0), 0x3C00);
  EXPECT_EQ(double_to_fp16(-1.5), 0xBE00);
  EXPECT_EQ(double_to_fp16(0.1), 0x2E66);  // 0.0999755859375
  EXPECT_EQ(double_to_fp16(-0.0), 0x8000);
  EXPECT_EQ(double_to_fp16(65504.0), 0x7BFF);  // largest finite
  EXPECT_EQ(double_to_fp16(65519.99), 0x7BFF);
  EXPECT_EQ(double_to_fp16(65520.0), 0x7C00);  // halfway to 65536: ties to even -> infinity
  EXPECT_EQ(double_to_fp16(1e6), 0x7C00);
  EXPECT_EQ(double_to_fp16(-1e6), 0xFC00);
  // 1 + 2^-11: tie between 1 (even) and 1 + 2^-10.
  EXPECT_EQ(double_to_fp16(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(double_to_fp16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  EXPECT_EQ(double_to_fp16(2049.0), 0x6800);  // 2048 + 1: tie -> 2048
  EXPECT_EQ(double_to_fp16(2051.0), 0x6802);  // 2050 + 1: tie -> 2052
}

TEST(Fp16, Subnormals) {
  EXPECT_EQ(double_to_fp16(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(double_to_fp16(std::ldexp(1.0, -25)), 0x0000);  // tie -> 0
  EXPECT_EQ(double_to_fp16(std::ldexp(3.0, -26)), 0x0001);
  EXPECT_EQ(double_to_fp16(std::ldexp(3.0, -25)), 0x0002);  // 1.5 -> 2
  EXPECT_EQ(double_to_fp16(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(double_to_fp16(std::ldexp(1.0, -14) - std::ldexp(1.0, -25)), 0x0400);
  EXPECT_EQ(double_to_fp16(std::ldexp(1.0, -14) - std::ldexp(3.0, -26)), 0x03FF);
  EXPECT_EQ(to_double(Format::kFP16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(to_double(Format::kFP16, 0x03FF), std::ldexp(1023.0, -24));
  EXPECT_EQ(to_double(Format::kFP16, 0x8001), -std::ldexp(1.0, -24));
}

TEST(Fp16, NaNAndInfinity) {
  EXPECT_EQ(double_to_fp16(kNaN), 0x7E00);
  EXPECT_EQ(double_to_fp16(-kNaN), 0xFE00);
  EXPECT_EQ(double_to_fp16(kInf), 0x7C00);
  EXPECT_EQ(to_double(Format::kFP16, 0x7C00), kInf);
  EXPECT_EQ(to_double(Format::kFP16, 0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7C01)));
  EXPECT_TRUE(is_nan(Format::kFP16, 0x7E00));
  EXPECT_FALSE(is_nan(Format::kFP16, 0x7C00));
}

TEST(Fp16, EveryPatternRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    if (is_nan(Format::kFP16, bits)) {
      EXPECT_TRUE(is_nan(Format::kFP16, float_to_fp16(fp16_to_float(bits))));
      continue;
    }
    ASSERT_EQ(float_to_fp16(fp16_to_float(bits)), bits) << std::hex << b;
  }
}

// Independent oracle: the nearest finite value of the format by search over all of them, ties to
// the even bit pattern, infinity past the overflow threshold (max + half an ulp, inclusive).
uint16_t nearest_by_search(double v, const std::vector<std::pair<double, uint16_t>>& sorted,
                           double overflow_threshold, uint16_t inf_bits) {
  if (v >= overflow_threshold) return inf_bits;
  if (v <= -overflow_threshold) return static_cast<uint16_t>(inf_bits | 0x8000);
  auto hi = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(v, uint16_t{0}));
  if (hi == sorted.begin()) return hi->second;           // in (-threshold, -max]
  if (hi == sorted.end()) return sorted.back().second;  // in (max, threshold)
  if (hi->first == v) return hi->second;
  auto lo = hi - 1;
  const double dlo = v - lo->first, dhi = hi->first - v;
  if (dlo < dhi) return lo->second;
  if (dhi < dlo) return hi->second;
  return (lo->second & 1u) == 0 ? lo->second : hi->second;
}

// Random doubles are drawn with binary exponents in [min_exp, max_exp].
void check_against_oracle(Format f, uint16_t inf_bits, double max_finite, double max_ulp,
                          int min_exp, int max_exp) {
  std::vector<std::pair<double, uint16_t>> sorted;
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const double v = to_double(f, bits);
    if (std::isnan(v) || std::isinf(v)) continue;
    if (v == 0 && std::signbit(v)) continue;  // keep +0 only; signs of zero checked elsewhere
    sorted.emplace_back(v, bits);
  }
  std::sort(sorted.begin(), sorted.end());
  const double threshold = max_finite + max_ulp / 2;

  std::mt19937_64 rng(42);
  std::vector<double> values;
  // Every midpoint between neighbours, and just beside it: the cases rounding gets wrong.
  for (size_t n = 0; n + 1 < sorted.size(); n += 7) {
    const double mid = (sorted[n].first + sorted[n + 1].first) / 2;
    values.push_back(mid);
    values.push_back(std::nextafter(mid, -kInf));
    values.push_back(std::nextafter(mid, kInf));
  }
  // Random doubles over the format's whole range.
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(min_exp, max_exp);
  for (int n = 0; n < 100000; ++n) values.push_back(std::ldexp(unit(rng), exponent(rng)));
  for (double v : values) {
    for (double s : {v, -v}) {
      uint16_t want = nearest_by_search(s, sorted, threshold, inf_bits);
      const uint16_t got = round_to(f, s);
      // The oracle holds +0 only: a negative value rounding to zero is -0.
      if (want == 0 && s < 0) want = 0x8000;
      ASSERT_EQ(got, want) << std::hexfloat << s;
    }
  }
}

TEST(Bf16, MatchesExhaustiveNearestSearch) {
  check_against_oracle(Format::kBF16, 0x7F80, std::ldexp(2.0 - std::ldexp(1.0, -7), 127),
                       std::ldexp(1.0, 127 - 7), -137, 129);
}

TEST(Fp16, MatchesExhaustiveNearestSearch) {
  check_against_oracle(Format::kFP16, 0x7C00, 65504.0, 32.0, -27, 16);
}

TEST(Ulp, Distance) {
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x3F80, 0x3F80), 0u);
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x3F80, 0x3F81), 1u);
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x3F81, 0x3F80), 1u);
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x3F7F, 0x3F80), 1u);  // across a binade
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x0000, 0x8000), 0u);  // +0 == -0
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x0001, 0x8001), 2u);  // across zero
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x7F7F, 0x7F80), 1u);  // max finite to infinity
  EXPECT_EQ(ulp_distance(Format::kBF16, 0x7FC0, 0x7FC0), UINT32_MAX);
  EXPECT_EQ(ulp_distance(Format::kFP16, 0x3C00, 0x3C05), 5u);
  EXPECT_EQ(ulp_distance(Format::kFP16, 0xBC00, 0x3C00), 2u * 0x3C00);
  EXPECT_EQ(ulp_distance(Format::kFP16, 0x7E00, 0x3C00), UINT32_MAX);
}

TEST(Ulp, MoreThanOneUlp) {
  const double ref = 1.0 + std::ldexp(1.0, -9);  // rounds to 1.0 = 0x3F80 in bf16
  EXPECT_FALSE(more_than_one_ulp(Format::kBF16, 0x3F80, ref));
  EXPECT_FALSE(more_than_one_ulp(Format::kBF16, 0x3F81, ref));
  EXPECT_FALSE(more_than_one_ulp(Format::kBF16, 0x3F7F, ref));
  EXPECT_TRUE(more_than_one_ulp(Format::kBF16, 0x3F82, ref));
  EXPECT_TRUE(more_than_one_ulp(Format::kBF16, 0x3F7E, ref));
  EXPECT_TRUE(more_than_one_ulp(Format::kBF16, 0x7FC0, ref));  // NaN where a number is expected
  EXPECT_FALSE(more_than_one_ulp(Format::kBF16, 0x7FC1, kNaN));
  EXPECT_TRUE(more_than_one_ulp(Format::kBF16, 0x3F80, kNaN));
  EXPECT_FALSE(more_than_one_ulp(Format::kFP16, 0x7BFF, 65520.0));  // want inf; max is 1 ulp off
  EXPECT_TRUE(more_than_one_ulp(Format::kFP16, 0x7BFE, 65520.0));
}

}  // namespace
}  // namespace reference
}  // namespace tileglu
