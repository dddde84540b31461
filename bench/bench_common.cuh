// What the benchmark programs (swiglu_bench.cu, split_tail_trace.cu) share: their random inputs
// and the median of their timings, so that both draw the same kind of values and report the same
// statistic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace bench_common {

// splitmix64's finaliser: the counter-based hash behind the random inputs, so that an element's
// value depends on (seed, index) only, not on the launch shape or on how many threads filled it.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A standard normal value for element `index` of the tensor seeded `seed`: two uniforms from one
// hash, through Box-Muller. Never exactly zero in practice, so no test or timing runs on zeros.
__device__ inline float hash_normal(uint64_t seed, uint64_t index) {
  const uint64_t h = mix64(seed ^ mix64(index));
  const float u1 = (static_cast<float>(h >> 40) + 1.0f) * (1.0f / 16777216.0f);  // (0, 1]
  const float u2 = static_cast<float>(h & 0xFFFFFFull) * (1.0f / 16777216.0f);   // [0, 1)
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

// The median of a set of timings (the mean of the middle two for an even count); NaN for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace bench_common
