// bf16 / fp16 bit-pattern conversions and ulp distances, header-only, for the CPU reference, the
// CPU tests and (compiled by nvcc, where every function is __host__ __device__) the GPU benchmark.
//
// Values travel as uint16_t bit patterns so that no CUDA or compiler half type is needed.
// Every narrowing conversion starts from a double and rounds once, to nearest, ties to even, with
// subnormals, overflow to infinity and NaN handled as IEEE 754 does: rounding an fp64 result to
// float and then to bf16 would round twice and sometimes land one ulp off.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TILEGLU_HD __host__ __device__
#else
#define TILEGLU_HD
#endif

namespace tileglu {
namespace reference {

enum class Format : int { kBF16 = 0, kFP16 = 1 };

namespace detail {

struct Layout {
  int exp_bits;
  int mant_bits;
};

TILEGLU_HD inline Layout layout(Format f) {
  return f == Format::kBF16 ? Layout{8, 7} : Layout{5, 10};
}

TILEGLU_HD inline uint64_t double_bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  return b;
}

TILEGLU_HD inline double bits_double(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof(v));
  return v;
}

// 2^e as a double, for -1022 <= e <= 1023.
TILEGLU_HD inline double pow2(int e) { return bits_double(static_cast<uint64_t>(e + 1023) << 52); }

}  // namespace detail

// Rounds `v` once to the nearest value of format `f` (ties to even) and returns its bit pattern.
// NaN becomes the format's quiet NaN with v's sign; out-of-range values become +-infinity.
TILEGLU_HD inline uint16_t round_to(Format f, double v) {
  const detail::Layout L = detail::layout(f);
  const int bias = (1 << (L.exp_bits - 1)) - 1;
  const uint32_t exp_all_ones = (1u << L.exp_bits) - 1;
  const uint64_t b = detail::double_bits(v);
  const uint32_t sign = static_cast<uint32_t>(b >> 63) << (L.exp_bits + L.mant_bits);
  const int dexp = static_cast<int>((b >> 52) & 0x7FF);
  const uint64_t dfrac = b & ((uint64_t{1} << 52) - 1);

  if (dexp == 0x7FF) {  // infinity or NaN
    const uint32_t quiet = dfrac != 0 ? (1u << (L.mant_bits - 1)) : 0u;
    return static_cast<uint16_t>(sign | (exp_all_ones << L.mant_bits) | quiet);
  }
  if (dexp == 0 && dfrac == 0) return static_cast<uint16_t>(sign);  // +-0

  // |v| = n * 2^lsb_exp with n a 53-bit integer (or smaller, for a subnormal double).
  const uint64_t n = dexp == 0 ? dfrac : (dfrac | (uint64_t{1} << 52));
  const int lsb_exp = dexp == 0 ? -1074 : dexp - 1075;
  // Exponent of |v|'s leading bit.
  int lead = lsb_exp + 52;
  while (((n >> (lead - lsb_exp)) & 1u) == 0) --lead;

  // The target's quantum at that magnitude: 2^(max(lead, emin) - mant_bits).
  const int emin = 1 - bias;
  const int quantum_exp = (lead > emin ? lead : emin) - L.mant_bits;
  // t = round(|v| / 2^quantum_exp); the shift is > 0 because 52 > mant_bits.
  const int shift = quantum_exp - lsb_exp;
  uint64_t t;
  if (shift >= 64) {
    t = 0;  // below half the smallest subnormal
  } else {
    t = n >> shift;
    const uint64_t rem = n & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (t & 1u))) ++t;
  }
  // |result| = t * 2^quantum_exp. Normal range: t in [2^mant_bits, 2^(mant_bits+1)] and the bits
  // are ((lead + bias) << mant_bits) + (t - 2^mant_bits); written as below, a t that rounded up to
  // 2^(mant_bits+1) carries into the exponent. Subnormal range (lead < emin): the shifted field is 0
  // and the bits are t itself, t == 2^mant_bits being the smallest normal.
  const int field_exp = (lead > emin ? lead : emin) + bias - 1;
  uint64_t magnitude = (static_cast<uint64_t>(field_exp) << L.mant_bits) + t;
  if (magnitude >= (static_cast<uint64_t>(exp_all_ones) << L.mant_bits)) {
    magnitude = static_cast<uint64_t>(exp_all_ones) << L.mant_bits;  // overflow: infinity
  }
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(magnitude));
}

// The exact value of a bit pattern of format `f` (every bf16 and fp16 value is a double).
TILEGLU_HD inline double to_double(Format f, uint16_t bits) {
  const detail::Layout L = detail::layout(f);
  const int bias = (1 << (L.exp_bits - 1)) - 1;
  const uint32_t exp_all_ones = (1u << L.exp_bits) - 1;
  const bool negative = (bits >> (L.exp_bits + L.mant_bits)) & 1u;
  const uint32_t e = (bits >> L.mant_bits) & exp_all_ones;
  const uint32_t mant = bits & ((1u << L.mant_bits) - 1);
  uint64_t b;
  if (e == exp_all_ones) {
    // Infinity, or a quiet NaN keeping the payload's top bits.
    b = (uint64_t{0x7FF} << 52) | (static_cast<uint64_t>(mant) << (52 - L.mant_bits));
    if (mant != 0) b |= uint64_t{1} << 51;
    if (negative) b |= uint64_t{1} << 63;
    return detail::bits_double(b);
  }
  double magnitude;
  if (e == 0) {
    magnitude = static_cast<double>(mant) * detail::pow2(1 - bias - L.mant_bits);
  } else {
    magnitude = static_cast<double>(mant | (1u << L.mant_bits)) *
                detail::pow2(static_cast<int>(e) - bias - L.mant_bits);
  }
  return negative ? -magnitude : magnitude;
}

TILEGLU_HD inline bool is_nan(Format f, uint16_t bits) {
  const detail::Layout L = detail::layout(f);
  const uint32_t exp_all_ones = (1u << L.exp_bits) - 1;
  return ((bits >> L.mant_bits) & exp_all_ones) == exp_all_ones &&
         (bits & ((1u << L.mant_bits) - 1)) != 0;
}

TILEGLU_HD inline uint16_t float_to_bf16(float v) { return round_to(Format::kBF16, v); }
TILEGLU_HD inline uint16_t float_to_fp16(float v) { return round_to(Format::kFP16, v); }
TILEGLU_HD inline uint16_t double_to_bf16(double v) { return round_to(Format::kBF16, v); }
TILEGLU_HD inline uint16_t double_to_fp16(double v) { return round_to(Format::kFP16, v); }
TILEGLU_HD inline float bf16_to_float(uint16_t bits) {
  return static_cast<float>(to_double(Format::kBF16, bits));
}
TILEGLU_HD inline float fp16_to_float(uint16_t bits) {
  return static_cast<float>(to_double(Format::kFP16, bits));
}

// Number of representable values of format `f` between a and b: 0 when equal (+0 and -0 are
// equal), 1 for neighbours, counting across zero. A NaN on either side gives UINT32_MAX.
TILEGLU_HD inline uint32_t ulp_distance(Format f, uint16_t a, uint16_t b) {
  if (is_nan(f, a) || is_nan(f, b)) return UINT32_MAX;
  const int sign_bit = detail::layout(f).exp_bits + detail::layout(f).mant_bits;
  const uint32_t magnitude_mask = (1u << sign_bit) - 1;
  // Map sign-magnitude onto a line of integers: -x -> -|x|, +0 and -0 -> 0.
  const int32_t mag_a = static_cast<int32_t>(a & magnitude_mask);
  const int32_t mag_b = static_cast<int32_t>(b & magnitude_mask);
  const int32_t ord_a = ((a >> sign_bit) & 1u) ? -mag_a : mag_a;
  const int32_t ord_b = ((b >> sign_bit) & 1u) ? -mag_b : mag_b;
  const int32_t d = ord_a - ord_b;
  return static_cast<uint32_t>(d < 0 ? -d : d);
}

// The mismatch the benchmark and the tests count: `got` is more than one ulp away from the
// correctly rounded `reference` (an fp64 result), or is NaN where the reference is not.
TILEGLU_HD inline bool more_than_one_ulp(Format f, uint16_t got, double reference) {
  const uint16_t want = round_to(f, reference);
  if (is_nan(f, want)) return !is_nan(f, got);
  return ulp_distance(f, got, want) > 1;
}

}  // namespace reference
}  // namespace tileglu
