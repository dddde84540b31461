// swiglu_bench: correctness check and benchmark of tileglu against cuBLASLt, in one process.
//
// Why one program: GPU time is scarce, so a single invocation must check every model shape and time
// every baseline, writing one JSON file that later runs can be diffed against.
//
// Check phase. Inputs are drawn on the device from a counter-based hash (fresh per case, seeded by the
// case index) and rounded to bf16/fp16. The reference is an fp64 GEMM of the same rounded values run
// on the GPU (SiLU in double), then correctly rounded to the output type: the 1-ulp mismatch share is
// measured against that value, the relative L2 error against the unrounded fp64 value. The output is
// poisoned (0xFFFF, a NaN in both types) before each run and the WHOLE output is scanned for poison,
// NaN and Inf; padding columns and a guard region past the end must still hold the poison. Input
// padding (ld > row length) holds NaN, so a kernel that reads past a row's end produces NaN.
//
// Bench phase. (a) tileglu stacked, (b) one merged cuBLASLt GEMM [M,K]x[2I,K]^T -> [M,2I], (c) (b) plus
// a vectorized silu-and-mul kernel (what vLLM runs), (d) PyTorch-eager-like: two GEMMs, a silu kernel,
// a mul kernel. The L2 is flushed (a write of 2x the device's L2 size) before every timed run; each
// run is bracketed by CUDA events; the median is reported. For small M the same variants are also
// timed inside a CUDA graph (events captured as graph nodes around each call) to take launch
// overhead out.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "stream_probe.cuh"
#include "tileglu/tileglu.h"

// ------------------------------------------------------------------------------------------------
// Error handling: every CUDA / cuBLASLt call is checked; a failure names file:line and exits.
// ------------------------------------------------------------------------------------------------
#define CUDA_CHECK(expr)                                                                         \
  do {                                                                                           \
    cudaError_t err_ = (expr);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorName(err_), cudaGetErrorString(err_), #expr);                     \
      std::fflush(stderr);                                                                       \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

#define CUBLAS_CHECK(expr)                                                                       \
  do {                                                                                           \
    cublasStatus_t st_ = (expr);                                                                 \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                          \
      std::fprintf(stderr, "%s:%d: cuBLAS error %d (%s) in %s\n", __FILE__, __LINE__,            \
                   static_cast<int>(st_), cublasLtGetStatusString(st_), #expr);                  \
      std::fflush(stderr);                                                                       \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

// After a kernel launch: catches launch-configuration errors at the line that caused them.
#define LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

namespace {

// Published dense bf16 tensor-core peak of an H100/H200 SXM (no sparsity), the "% of 989" column.
constexpr double kBf16DensePeakTflops = 989.0;
// 0xFFFF is a NaN in both bf16 and fp16: an output element still holding it was never written.
constexpr uint16_t kPoison = 0xFFFF;
// Elements past the end of the output that must still hold the poison after a run.
constexpr int64_t kGuardElems = 4096;
// Pass threshold on the share of checked outputs more than 1 ulp from the correctly rounded value.
constexpr double kMaxMismatchPct = 0.01;
// The relative L2 error may be at most this multiple of the error of the correctly rounded value
// itself (the unavoidable rounding error of the output type).
constexpr double kMaxRelL2OverRounding = 2.0;
// Without --strict the mismatch share may be this multiple of the cuBLASLt fp32 baseline's share.
constexpr double kMaxBaselineFactor = 2.0;
// Above this M the reference evaluates a subset of rows (always all columns).
constexpr int64_t kAllRowsMaxM = 1024;
constexpr int kSubsetHead = 64, kSubsetTail = 64, kSubsetMiddle = 384;
constexpr size_t kLtWorkspaceBytes = 64ull << 20;

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// ------------------------------------------------------------------------------------------------
// A small JSON reader (objects, arrays, strings, numbers, true/false/null): enough for shapes.json.
// ------------------------------------------------------------------------------------------------
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;  // keeps file order

  const Json* get(const std::string& key) const {
    for (const auto& kv : obj)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}
  bool parse(Json* out, std::string* err) {
    if (!value(out)) {
      *err = err_ + " at offset " + std::to_string(pos_);
      return false;
    }
    skip_ws();
    if (pos_ != s_.size()) {
      *err = "trailing characters at offset " + std::to_string(pos_);
      return false;
    }
    return true;
  }

 private:
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool fail(const char* what) {
    err_ = what;
    return false;
  }
  bool literal(const char* word) {
    size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0) return fail("bad literal");
    pos_ += n;
    return true;
  }
  bool string(std::string* out) {
    if (s_[pos_] != '"') return fail("expected string");
    ++pos_;
    out->clear();
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) return fail("bad escape");
        char e = s_[pos_++];
        switch (e) {
          case 'n': out->push_back('\n'); break;
          case 't': out->push_back('\t'); break;
          case 'r': out->push_back('\r'); break;
          case 'b': out->push_back('\b'); break;
          case 'f': out->push_back('\f'); break;
          case 'u':  // shapes.json is ASCII; keep a \uXXXX escape as '?'
            if (pos_ + 4 > s_.size()) return fail("bad \\u escape");
            pos_ += 4;
            out->push_back('?');
            break;
          default: out->push_back(e); break;  // \" \\ \/
        }
      } else {
        out->push_back(c);
      }
    }
    if (pos_ >= s_.size()) return fail("unterminated string");
    ++pos_;
    return true;
  }
  bool value(Json* v) {
    skip_ws();
    if (pos_ >= s_.size()) return fail("unexpected end");
    char c = s_[pos_];
    if (c == '{') {
      v->kind = Json::kObject;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      while (true) {
        skip_ws();
        std::string key;
        if (pos_ >= s_.size() || !string(&key)) return fail("expected key");
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
        ++pos_;
        Json child;
        if (!value(&child)) return false;
        v->obj.emplace_back(key, std::move(child));
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v->kind = Json::kArray;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      while (true) {
        Json child;
        if (!value(&child)) return false;
        v->arr.push_back(std::move(child));
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v->kind = Json::kString;
      return string(&v->str);
    }
    if (c == 't') {
      v->kind = Json::kBool;
      v->b = true;
      return literal("true");
    }
    if (c == 'f') {
      v->kind = Json::kBool;
      return literal("false");
    }
    if (c == 'n') {
      v->kind = Json::kNull;
      return literal("null");
    }
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    v->num = std::strtod(begin, &end);
    if (end == begin) return fail("expected value");
    v->kind = Json::kNumber;
    pos_ += static_cast<size_t>(end - begin);
    return true;
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string err_;
};

// ------------------------------------------------------------------------------------------------
// A small JSON writer: one value per call, commas handled by the caller through `first` flags.
// ------------------------------------------------------------------------------------------------
std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o.push_back('\\');
      o.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      o += buf;
    } else {
      o.push_back(c);
    }
  }
  return o;
}
std::string jstr(const std::string& s) { return "\"" + json_escape(s) + "\""; }
// Non-finite numbers (a missing measurement is NaN here) become null.
std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}
std::string jint(int64_t v) { return std::to_string(v); }

// ------------------------------------------------------------------------------------------------
// Element types. The bench keeps its own small conversion helpers so that it depends only on the
// public header.
// ------------------------------------------------------------------------------------------------
template <typename T>
struct TypeInfo;
template <>
struct TypeInfo<__nv_bfloat16> {
  static constexpr tileglu_dtype_t kDtype = TILEGLU_DTYPE_BF16;
  static constexpr cudaDataType_t kCuda = CUDA_R_16BF;
  static constexpr const char* kName = "bf16";
  static constexpr int kMantBits = 7;       // explicit fraction bits
  static constexpr int kMinExp = -126;      // exponent of the smallest normal
  static __host__ __device__ double max_finite() { return 3.38953138925153547590470800371487866880e38; }
  static __device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }
  static __device__ __nv_bfloat16 from_bits(uint16_t b) { return __ushort_as_bfloat16(b); }
  static __device__ uint16_t to_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
};
template <>
struct TypeInfo<__half> {
  static constexpr tileglu_dtype_t kDtype = TILEGLU_DTYPE_FP16;
  static constexpr cudaDataType_t kCuda = CUDA_R_16F;
  static constexpr const char* kName = "fp16";
  static constexpr int kMantBits = 10;
  static constexpr int kMinExp = -14;
  static __host__ __device__ double max_finite() { return 65504.0; }
  static __device__ float to_float(__half v) { return __half2float(v); }
  static __device__ __half from_float(float v) { return __float2half_rn(v); }
  static __device__ __half from_bits(uint16_t b) { return __ushort_as_half(b); }
  static __device__ uint16_t to_bits(__half v) { return __half_as_ushort(v); }
};

// SiLU in fp32 with the fast exponential, as every fused epilogue and vLLM's kernel compute it.
__device__ __forceinline__ float silu_f32(float g) { return g / (1.0f + __expf(-g)); }

// Correct rounding of a double to the format (round to nearest even), returned as a double that the
// format holds exactly. Scaling by a power of two is exact, so rint() does the whole rounding.
template <typename T>
__device__ double round_to_format(double v) {
  if (isnan(v)) return v;
  double a = fabs(v);
  if (a == 0.0) return v;
  int e = ilogb(a);
  if (e < TypeInfo<T>::kMinExp) e = TypeInfo<T>::kMinExp;  // subnormal range: fixed quantum
  double q = ldexp(1.0, e - TypeInfo<T>::kMantBits);
  double r = rint(a / q) * q;
  if (r > TypeInfo<T>::max_finite()) r = INFINITY;
  return copysign(r, v);
}

// Distance in representable values between two bit patterns of T (0: equal, +0 == -0; 1:
// neighbours, across zero too); a NaN on either side is "infinitely" far. This is the "1 ulp" of
// the check, the same definition as reference/numerics.h's ulp_distance.
template <typename T>
__device__ float ulp_steps(uint16_t a, uint16_t b) {
  const uint16_t exp_mask = TypeInfo<T>::kMantBits == 7 ? 0x7F80u : 0x7C00u;
  const uint16_t mant_mask = static_cast<uint16_t>(0x7FFFu & ~exp_mask);
  auto is_nan = [&](uint16_t v) { return (v & exp_mask) == exp_mask && (v & mant_mask) != 0; };
  if (is_nan(a) || is_nan(b)) return INFINITY;
  // Sign-magnitude onto a line of integers: -x -> -|x|, both zeros -> 0.
  const int ord_a = (a & 0x8000u) ? -static_cast<int>(a & 0x7FFFu) : static_cast<int>(a & 0x7FFFu);
  const int ord_b = (b & 0x8000u) ? -static_cast<int>(b & 0x7FFFu) : static_cast<int>(b & 0x7FFFu);
  return static_cast<float>(abs(ord_a - ord_b));
}

// ------------------------------------------------------------------------------------------------
// Device-side random inputs: bench_common::hash_normal of (seed, element index), counter-based, so
// the values do not depend on the launch shape.
// ------------------------------------------------------------------------------------------------
// Fills a [rows, cols] matrix with leading dimension ld: N(0, stddev^2) rounded to T; the padding
// columns [cols, ld) get a NaN so that a kernel reading past a row's end is caught.
template <typename T>
__global__ void fill_normal_kernel(T* p, int64_t rows, int64_t cols, int64_t ld, uint64_t seed,
                                   float stddev) {
  const int64_t n = rows * ld;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = idx / ld, c = idx % ld;
    if (c >= cols) {
      p[idx] = TypeInfo<T>::from_bits(kPoison);
      continue;
    }
    const float z = bench_common::hash_normal(seed, static_cast<uint64_t>(r * cols + c));
    p[idx] = TypeInfo<T>::from_float(z * stddev);
  }
}

__global__ void fill_u16_kernel(uint16_t* p, int64_t n, uint16_t v) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x)
    p[idx] = v;
}

// ------------------------------------------------------------------------------------------------
// fp64 reference: ref[r, c] = silu(g) * u with g, u the double dot products of X row rows[r] with
// Wg row c and Wu row c. 64 rows x 64 columns (of both gate and up) per block, 4x4x2 per thread.
// ------------------------------------------------------------------------------------------------
constexpr int kRefTile = 64, kRefK = 16, kRefThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kRefThreads)
    reference_kernel(const T* __restrict__ x, int64_t ldx, const T* __restrict__ wg,
                     const T* __restrict__ wu, int64_t ldw, const int* __restrict__ rows,
                     int num_rows, int64_t k, int64_t i, double* __restrict__ ref) {
  __shared__ double xs[kRefK][kRefTile];
  __shared__ double gs[kRefK][kRefTile];
  __shared__ double us[kRefK][kRefTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kRefTile;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kRefTile;
  double accg[4][4] = {}, accu[4][4] = {};
  for (int64_t k0 = 0; k0 < k; k0 += kRefK) {
    // 64 rows x 16 k of each operand: 1024 elements, 4 per thread; k fastest for coalescing.
    for (int e = threadIdx.x; e < kRefTile * kRefK; e += kRefThreads) {
      const int rr = e / kRefK, kk = e % kRefK;
      const int64_t kg = k0 + kk;
      double xv = 0, gv = 0, uv = 0;
      if (kg < k) {
        if (row0 + rr < num_rows)
          xv = TypeInfo<T>::to_float(x[static_cast<int64_t>(rows[row0 + rr]) * ldx + kg]);
        if (col0 + rr < i) {
          gv = TypeInfo<T>::to_float(wg[(col0 + rr) * ldw + kg]);
          uv = TypeInfo<T>::to_float(wu[(col0 + rr) * ldw + kg]);
        }
      }
      xs[kk][rr] = xv;
      gs[kk][rr] = gv;
      us[kk][rr] = uv;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRefK; ++kk) {
      double a[4], bg[4], bu[4];
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        a[t] = xs[kk][ty + 16 * t];
        bg[t] = gs[kk][tx + 16 * t];
        bu[t] = us[kk][tx + 16 * t];
      }
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          accg[r][c] = fma(a[r], bg[c], accg[r][c]);
          accu[r][c] = fma(a[r], bu[c], accu[r][c]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int rr = row0 + ty + 16 * r;
      const int64_t cc = col0 + tx + 16 * c;
      if (rr < num_rows && cc < i) {
        const double g = accg[r][c];
        ref[static_cast<int64_t>(rr) * i + cc] = g / (1.0 + exp(-g)) * accu[r][c];
      }
    }
}

// Accumulated over one comparison. Doubles summed with atomics after a block reduction.
struct CheckStats {
  unsigned long long mismatches;  // checked outputs more than 1 ulp from the rounded reference
  unsigned long long base_mismatches;  // the same count for the cuBLASLt fp32-accumulation baseline
  unsigned long long nonfinite;   // whole output: poison left, NaN or Inf
  unsigned long long overrun;     // padding columns / guard region no longer holding the poison
  double err2;                    // sum (out - ref)^2, ref the unrounded fp64 value
  double ref2;                    // sum ref^2
  double round2;                  // sum (rounded ref - ref)^2: the output type's own error
  unsigned int max_ulp_bits;      // float bits of the largest distance in ulp steps (positive)
};

template <typename V>
__device__ V warp_sum(V v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

// Compares the checked rows (all columns) with the reference.
// `base` is the baseline's fp32 [num_rows, 2i] GEMM output (gate columns, then up): SwiGLU in fp32
// and one rounding, as a fused epilogue would do; its mismatches set the achievable floor.
template <typename T>
__global__ void compare_kernel(const T* __restrict__ out, int64_t ld_out,
                               const double* __restrict__ ref, const float* __restrict__ base,
                               const int* __restrict__ rows, int num_rows, int64_t i,
                               CheckStats* stats) {
  unsigned long long mism = 0, base_mism = 0;
  double err2 = 0, ref2 = 0, round2 = 0;
  float max_ulp = 0;
  const int64_t n = static_cast<int64_t>(num_rows) * i;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = idx / i, c = idx % i;
    const T got = out[static_cast<int64_t>(rows[r]) * ld_out + c];
    const double o = TypeInfo<T>::to_float(got);
    const double e = ref[idx];
    const double rr = round_to_format<T>(e);
    // rr is a value of T (an overflow is Inf), so this conversion is exact.
    const uint16_t want = TypeInfo<T>::to_bits(TypeInfo<T>::from_float(static_cast<float>(rr)));
    const float dist = ulp_steps<T>(TypeInfo<T>::to_bits(got), want);
    if (dist > 1.0f) ++mism;  // NaN is infinitely far
    if (base) {
      const float g = base[r * 2 * i + c], u = base[r * 2 * i + i + c];
      if (ulp_steps<T>(TypeInfo<T>::to_bits(TypeInfo<T>::from_float(silu_f32(g) * u)), want) > 1.0f)
        ++base_mism;
    }
    max_ulp = fmaxf(max_ulp, dist);
    err2 += (o - e) * (o - e);
    ref2 += e * e;
    round2 += (rr - e) * (rr - e);
  }
  mism = warp_sum(mism);
  base_mism = warp_sum(base_mism);
  err2 = warp_sum(err2);
  ref2 = warp_sum(ref2);
  round2 = warp_sum(round2);
  for (int o = 16; o > 0; o >>= 1) max_ulp = fmaxf(max_ulp, __shfl_xor_sync(0xFFFFFFFFu, max_ulp, o));
  if ((threadIdx.x & 31) == 0) {
    if (mism) atomicAdd(&stats->mismatches, mism);
    if (base_mism) atomicAdd(&stats->base_mismatches, base_mism);
    atomicAdd(&stats->err2, err2);
    atomicAdd(&stats->ref2, ref2);
    atomicAdd(&stats->round2, round2);
    atomicMax(&stats->max_ulp_bits, __float_as_uint(max_ulp));
  }
}

// Scans the whole output [m, ld_out] plus the guard region: every element of [m, i) must be finite
// (poison is a NaN), every padding column and guard element must still be the poison.
__global__ void scan_output_kernel(const uint16_t* __restrict__ out, int64_t m, int64_t i,
                                   int64_t ld_out, int64_t guard, bool is_bf16, CheckStats* stats) {
  unsigned long long nonfinite = 0, overrun = 0;
  const int64_t n = m * ld_out + guard;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint16_t v = out[idx];
    const bool in_matrix = idx < m * ld_out && (idx % ld_out) < i;
    if (in_matrix) {
      // Exponent all ones: Inf or NaN (bf16: 8 exponent bits, fp16: 5).
      const bool bad = is_bf16 ? ((v & 0x7F80u) == 0x7F80u) : ((v & 0x7C00u) == 0x7C00u);
      nonfinite += bad;
    } else {
      overrun += (v != kPoison);
    }
  }
  nonfinite = warp_sum(nonfinite);
  overrun = warp_sum(overrun);
  if ((threadIdx.x & 31) == 0) {
    if (nonfinite) atomicAdd(&stats->nonfinite, nonfinite);
    if (overrun) atomicAdd(&stats->overrun, overrun);
  }
}

// Counts elements that are not the poison (an invalid call must leave the output untouched).
__global__ void count_not_poison_kernel(const uint16_t* __restrict__ p, int64_t n,
                                        unsigned long long* count) {
  unsigned long long c = 0;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x)
    c += (p[idx] != kPoison);
  c = warp_sum(c);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

// Copies the checked rows of x into a compact [num_rows, k] matrix for the baseline GEMM.
__global__ void gather_rows_kernel(const uint16_t* __restrict__ x, int64_t ldx,
                                   const int* __restrict__ rows, int num_rows, int64_t k,
                                   uint16_t* __restrict__ xg) {
  const int64_t n = static_cast<int64_t>(num_rows) * k;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x)
    xg[idx] = x[static_cast<int64_t>(rows[idx / k]) * ldx + idx % k];
}

// Reads a buffer (the second half of the "clean" L2 flush): the L2 is left holding clean lines of
// an unrelated buffer, so the timed kernel pays no write-backs of the flush's own writes.
__global__ void read_buffer_kernel(const uint4* __restrict__ p, int64_t n, unsigned* sink) {
  unsigned acc = 0;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[idx];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads; practically never taken
}

// ------------------------------------------------------------------------------------------------
// Baseline elementwise kernels, 16-byte loads and stores, grid-stride, fp32 math, rounded once.
// Every row length is a multiple of 8 elements, so a vector never straddles two rows.
// ------------------------------------------------------------------------------------------------

// vLLM's silu_and_mul: gu is [m, 2i] (gate columns [0, i), up [i, 2i)), out [m, i].
template <typename T>
__global__ void silu_and_mul_kernel(const T* __restrict__ gu, T* __restrict__ out, int64_t m,
                                    int64_t i) {
  const int64_t vec_per_row = i / 8;
  const int64_t n = m * vec_per_row;
  for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < n;
       v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = v / vec_per_row, cv = v % vec_per_row;
    const uint4 gv = *reinterpret_cast<const uint4*>(gu + r * 2 * i + cv * 8);
    const uint4 uv = *reinterpret_cast<const uint4*>(gu + r * 2 * i + i + cv * 8);
    const T* g = reinterpret_cast<const T*>(&gv);
    const T* u = reinterpret_cast<const T*>(&uv);
    uint4 ov;
    T* o = reinterpret_cast<T*>(&ov);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      o[j] = TypeInfo<T>::from_float(silu_f32(TypeInfo<T>::to_float(g[j])) *
                                     TypeInfo<T>::to_float(u[j]));
    *reinterpret_cast<uint4*>(out + r * i + cv * 8) = ov;
  }
}

// PyTorch eager's F.silu: out = silu(in), n elements (a multiple of 8).
template <typename T>
__global__ void silu_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < n / 8;
       v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 iv = *reinterpret_cast<const uint4*>(in + v * 8);
    const T* a = reinterpret_cast<const T*>(&iv);
    uint4 ov;
    T* o = reinterpret_cast<T*>(&ov);
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = TypeInfo<T>::from_float(silu_f32(TypeInfo<T>::to_float(a[j])));
    *reinterpret_cast<uint4*>(out + v * 8) = ov;
  }
}

// PyTorch eager's a * b.
template <typename T>
__global__ void mul_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                           int64_t n) {
  for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < n / 8;
       v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 av = *reinterpret_cast<const uint4*>(a + v * 8);
    const uint4 bv = *reinterpret_cast<const uint4*>(b + v * 8);
    const T* x = reinterpret_cast<const T*>(&av);
    const T* y = reinterpret_cast<const T*>(&bv);
    uint4 ov;
    T* o = reinterpret_cast<T*>(&ov);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      o[j] = TypeInfo<T>::from_float(TypeInfo<T>::to_float(x[j]) * TypeInfo<T>::to_float(y[j]));
    *reinterpret_cast<uint4*>(out + v * 8) = ov;
  }
}

// ------------------------------------------------------------------------------------------------
// Device context: properties read once, buffers allocated once at the largest size any case needs.
// ------------------------------------------------------------------------------------------------
struct Device {
  int id = 0;
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* lt_workspace = nullptr;
  void* flush_buf = nullptr;
  size_t flush_bytes = 0;
  int flush_counter = 0;
  bool flush_clean = true;  // --flush clean (default): write then read; --flush write: write only
  unsigned* sink = nullptr;

  // Grid for a grid-stride kernel over n items with 256 threads.
  unsigned grid_for(int64_t n) const {
    const int64_t blocks = (n + 255) / 256;
    return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, sm_count * 8)));
  }
  // Evicts the L2 by writing 2x its size (the value changes so no write is ever a no-op). A
  // write-only flush leaves the L2 full of dirty lines whose write-back the timed kernel then pays
  // (on an H200 the 0.5B M=1 merged GEMM took 12.0 us after it, 9.9 us after the clean flush), so
  // by default the buffer is read back as well: the L2 ends up holding clean, unrelated lines.
  cudaError_t flush_l2(cudaStream_t s) {
    cudaError_t e = cudaMemsetAsync(flush_buf, (++flush_counter) & 0xFF, flush_bytes, s);
    if (e != cudaSuccess || !flush_clean) return e;
    read_buffer_kernel<<<static_cast<unsigned>(sm_count * 4), 512, 0, s>>>(
        static_cast<const uint4*>(flush_buf), static_cast<int64_t>(flush_bytes / 16), sink);
    return cudaGetLastError();
  }
};

template <typename T>
T* dalloc(size_t elems) {
  void* p = nullptr;
  if (elems == 0) elems = 1;
  CUDA_CHECK(cudaMalloc(&p, elems * sizeof(T)));
  return static_cast<T*>(p);
}

template <typename T>
void fill_normal(Device& dev, T* p, int64_t rows, int64_t cols, int64_t ld, uint64_t seed,
                 float stddev) {
  fill_normal_kernel<T><<<dev.grid_for(rows * ld), 256, 0, dev.stream>>>(p, rows, cols, ld, seed,
                                                                         stddev);
  LAUNCH_CHECK();
}

void fill_poison(Device& dev, void* p, int64_t elems) {
  fill_u16_kernel<<<dev.grid_for(elems), 256, 0, dev.stream>>>(static_cast<uint16_t*>(p), elems,
                                                               kPoison);
  LAUNCH_CHECK();
}

uint64_t case_seed(uint64_t case_index, uint64_t tensor) {
  return bench_common::mix64(0x7115E61Dull ^ bench_common::mix64(case_index * 8 + tensor));
}

// ------------------------------------------------------------------------------------------------
// cuBLASLt: D[m, n] (column-major) = op(A)[m, k] * B[k, n], A stored [k, m] with op T. With row-major
// weights W[rows, K] and X[M, K] this is m = rows, n = M: D is row-major [M, rows].
// ------------------------------------------------------------------------------------------------
struct LtGemm {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool ok = false;

  LtGemm(Device& dev, cudaDataType_t dt, int64_t m, int64_t n, int64_t k, int64_t lda,
         int64_t ldb, int64_t ldd, cudaDataType_t dt_d) {
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof(opT)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof(opN)));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a, dt, k, m, lda));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b, dt, k, n, ldb));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d, dt_d, m, n, ldd));
    cublasLtMatmulPreference_t pref = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = kLtWorkspaceBytes;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(dev.lt, desc, a, b, d, d, pref, 1, &result, &found));
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    if (found > 0 && result.state == CUBLAS_STATUS_SUCCESS) {
      algo = result.algo;
      ok = true;
    }
  }
  ~LtGemm() {
    cublasLtMatrixLayoutDestroy(d);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatmulDescDestroy(desc);
  }
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  void run(Device& dev, const void* A, const void* B, void* D, cudaStream_t s) const {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(dev.lt, desc, &alpha, A, a, B, b, &beta, D, d, D, d, &algo,
                                dev.lt_workspace, kLtWorkspaceBytes, s));
  }
};

// ------------------------------------------------------------------------------------------------
// Timing.
// ------------------------------------------------------------------------------------------------
struct TimingOptions {
  double target_ms = 100.0;  // timed runs per variant aim at this much kernel time
  int min_runs = 10, max_runs = 200;
  int fixed_runs = 0;        // --reps: exactly this many timed runs
  double warmup_ms = 20.0;
  int warmup_min_runs = 3;
  int graph_calls = 20;      // calls captured into one graph
  double graph_target_ms = 40.0;
  int graph_min_replays = 3, graph_max_replays = 30;
};

struct Timing {
  double median_us = NAN;
  int runs = 0;
};

using bench_common::median;

class EventPool {
 public:
  cudaEvent_t get(size_t idx) {
    while (events_.size() <= idx) {
      cudaEvent_t e;
      CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return events_[idx];
  }
  ~EventPool() {
    for (auto e : events_) cudaEventDestroy(e);
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// `fn` enqueues one call on the stream. Warm-up: at least warmup_min_runs calls and warmup_ms; the
// warm-up's mean sizes the timed run count. Each timed call follows an L2 flush, between events.
Timing time_variant(Device& dev, EventPool& ev, const TimingOptions& opt,
                    const std::function<void(cudaStream_t)>& fn) {
  cudaStream_t s = dev.stream;
  cudaEvent_t w0 = ev.get(0), w1 = ev.get(1);
  int warm_runs = 0;
  float warm_ms = 0;
  int batch = opt.warmup_min_runs;
  while (true) {
    CUDA_CHECK(cudaEventRecord(w0, s));
    for (int r = 0; r < batch; ++r) fn(s);
    CUDA_CHECK(cudaEventRecord(w1, s));
    CUDA_CHECK(cudaEventSynchronize(w1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, w0, w1));
    warm_ms += ms;
    warm_runs += batch;
    if (warm_ms >= opt.warmup_ms && warm_runs >= opt.warmup_min_runs) break;
    const double per = std::max(1e-4, static_cast<double>(warm_ms) / warm_runs);
    batch = static_cast<int>(std::min(1000.0, std::ceil((opt.warmup_ms - warm_ms) / per)));
    batch = std::max(batch, 1);
  }
  const double per_ms = warm_ms / warm_runs;
  int runs = opt.fixed_runs;
  if (runs <= 0) {
    runs = static_cast<int>(std::ceil(opt.target_ms / std::max(per_ms, 1e-4)));
    runs = std::max(opt.min_runs, std::min(opt.max_runs, runs));
  }
  for (int r = 0; r < runs; ++r) {
    CUDA_CHECK(dev.flush_l2(s));
    CUDA_CHECK(cudaEventRecord(ev.get(2 + 2 * r), s));
    fn(s);
    CUDA_CHECK(cudaEventRecord(ev.get(3 + 2 * r), s));
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us(runs);
  for (int r = 0; r < runs; ++r) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.get(2 + 2 * r), ev.get(3 + 2 * r)));
    us[r] = 1e3 * ms;
  }
  return {median(us), runs};
}

// Soft-checked CUDA call for the graph section: a failure there costs only the graph numbers.
#define GRAPH_TRY(expr)                                                                          \
  do {                                                                                           \
    cudaError_t err_ = (expr);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::printf("  [graph] %s failed: %s (%s:%d)\n", #expr, cudaGetErrorString(err_),         \
                  __FILE__, __LINE__);                                                           \
      std::fflush(stdout);                                                                       \
      ok = false;                                                                                \
    }                                                                                            \
  } while (0)

// Captures graph_calls x (L2 flush, event, call, event) into one graph and replays it; the events
// are external event nodes, so each call's time is read without the flush. Returns the per-call
// median over all replays. `fn` returns false if the call could not be enqueued.
Timing time_variant_graph(Device& dev, const TimingOptions& opt,
                          const std::function<bool(cudaStream_t)>& fn) {
  Timing t;
  cudaStream_t s = dev.stream;
  const int n = opt.graph_calls;
  std::vector<cudaEvent_t> ev(2 * n);
  for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
  bool ok = true;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  GRAPH_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  if (ok) {
    for (int c = 0; c < n && ok; ++c) {
      GRAPH_TRY(dev.flush_l2(s));
      GRAPH_TRY(cudaEventRecordWithFlags(ev[2 * c], s, cudaEventRecordExternal));
      if (!fn(s)) ok = false;
      GRAPH_TRY(cudaEventRecordWithFlags(ev[2 * c + 1], s, cudaEventRecordExternal));
    }
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (end != cudaSuccess) {
      std::printf("  [graph] capture failed: %s\n", cudaGetErrorString(end));
      ok = false;
    }
  }
  if (ok) GRAPH_TRY(cudaGraphInstantiate(&exec, graph, 0));
  if (ok) GRAPH_TRY(cudaGraphUpload(exec, s));
  std::vector<double> us;
  if (ok) {
    // Two warm-up replays; the second's time sizes the replay count.
    double t0 = 0;
    for (int w = 0; w < 2 && ok; ++w) {
      t0 = now_seconds();
      GRAPH_TRY(cudaGraphLaunch(exec, s));
      GRAPH_TRY(cudaStreamSynchronize(s));
      t0 = now_seconds() - t0;
    }
    int replays = static_cast<int>(std::ceil(opt.graph_target_ms * 1e-3 / std::max(t0, 1e-6)));
    replays = std::max(opt.graph_min_replays, std::min(opt.graph_max_replays, replays));
    for (int r = 0; r < replays && ok; ++r) {
      GRAPH_TRY(cudaGraphLaunch(exec, s));
      GRAPH_TRY(cudaStreamSynchronize(s));
      for (int c = 0; c < n && ok; ++c) {
        float ms = 0;
        GRAPH_TRY(cudaEventElapsedTime(&ms, ev[2 * c], ev[2 * c + 1]));
        us.push_back(1e3 * ms);
      }
    }
    t.runs = replays * n;
  }
  if (!ok) {
    cudaGetLastError();  // clear a sticky-free error so later work is unaffected
    cudaStreamCaptureStatus cs;
    if (cudaStreamIsCapturing(s, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s, &g);
      if (g) cudaGraphDestroy(g);
    }
    cudaGetLastError();
  } else {
    t.median_us = median(us);
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  for (auto e : ev) cudaEventDestroy(e);
  return t;
}

// Several variants of one case, timed in `rounds` interleaved rounds: round r times them in the
// order rotated by r, and each variant's result is the median of its round medians. Why: one
// pass times the variants one after another, and the clocks drift under the power limit by as
// much as a ratio near 1 is off from it (session 11: the rows 0-6 % behind the faster baseline
// moved 3-10 % between runs); interleaving puts the drift on every variant alike.
// `graph` variants go through time_variant_graph (fn returns false if it could not enqueue).
struct TimedVariant {
  std::function<bool(cudaStream_t)> fn;
  Timing* out;
  std::vector<double>* round_us = nullptr;  // each round's median, when the caller keeps them
};

void time_interleaved(Device& dev, EventPool& ev, const TimingOptions& opt, bool graph,
                      const std::vector<TimedVariant>& variants, int rounds) {
  const size_t n = variants.size();
  std::vector<std::vector<double>> per(n);
  std::vector<int> runs(n, 0);
  for (int r = 0; r < rounds; ++r) {
    for (size_t j = 0; j < n; ++j) {
      const size_t v = (j + r) % n;
      const auto& fn = variants[v].fn;
      const Timing t = graph ? time_variant_graph(dev, opt, fn)
                             : time_variant(dev, ev, opt, [&](cudaStream_t s) { fn(s); });
      per[v].push_back(t.median_us);
      runs[v] += t.runs;
    }
  }
  for (size_t v = 0; v < n; ++v) {
    // A round that failed (a graph that could not be captured) fails the variant.
    const bool all_finite = std::all_of(per[v].begin(), per[v].end(),
                                        [](double us) { return std::isfinite(us); });
    *variants[v].out = {all_finite ? median(per[v]) : NAN, all_finite ? runs[v] : 0};
    if (variants[v].round_us) *variants[v].round_us = per[v];
  }
}

// ------------------------------------------------------------------------------------------------
// Cases and results.
// ------------------------------------------------------------------------------------------------
struct Model {
  std::string name;
  int64_t k = 0;  // hidden
  int64_t i = 0;  // intermediate
};

struct CheckResult {
  bool ran = false;
  bool pass = false;
  std::string dtype;
  double mismatch_pct = NAN;  // worst over the layouts
  double max_ulp = NAN;
  double rel_l2 = NAN;
  double rel_l2_rounding = NAN;  // the correctly rounded reference's own error
  double base_mismatch_pct = NAN;  // the cuBLASLt fp32-accumulation baseline on the same inputs
  double limit_pct = NAN;          // the mismatch limit this case was judged by
  bool pass_strict = false;        // mismatch_pct <= 0.01% (and the other conditions) regardless
  int64_t unwritten = 0;         // summed over layouts
  int64_t overrun = 0;
  int64_t check_rows = 0;
  int layouts = 0;
  std::string status;  // a tileglu status other than success, if one came back
};

// A tuned config whose re-timed rounds spread past this share of their median is scored by its
// slowest round (Row::Tuned::score_us): the same-process spread of a stable tile is 1-2 %
// (kIncumbentMargin), so a wider one means a config whose time the next run may not repeat.
constexpr double kTuneUnstableSpread = 0.05;

struct Row {
  std::string model;
  int64_t m = 0, k = 0, i = 0;
  int kernel = -1;
  std::string config = "?";
  CheckResult bf16, fp16;
  bool benched = false;
  Timing ours, gemm, gemm_silu, eager;
  Timing ours_graph, gemm_silu_graph, eager_graph, gemm_graph;
  bool graphed = false;
  // --tune: every configuration valid for the shape, timed like `ours` (graph too when M <= 64).
  struct Tuned {
    std::string config;
    bool eligible = true;  // not an ablation, not promoted accumulation: a table may name it
    bool clustered = false;  // launched in thread-block clusters of a fixed shape (cluster_m x cluster_n > 1)
    Timing t, graph;
    // Every pass's score, the first pass's first (tune_case); t and graph are the first pass's.
    std::vector<double> rounds;
    double first_us() const { return graph.runs > 0 ? graph.median_us : t.median_us; }
    // What the tuner ranks by: graph replay for decode sizes (what a server sees), else events;
    // the median over the rounds where the config was re-timed, or the slowest round where the
    // rounds spread past kTuneUnstableSpread. Why: on an H100 the wave split won qwen2.5-7b
    // M = 5000 on the median of 2079, 2082 and 2434 us and ran 2248 in the bench, 1.07x cuBLAS,
    // where the Cooperative tiles timed 2205 (bench/NOTES.md session 19).
    double score_us() const {
      if (rounds.empty()) return first_us();
      const double med = median(rounds);
      const auto [lo, hi] = std::minmax_element(rounds.begin(), rounds.end());
      return *hi - *lo > kTuneUnstableSpread * med ? *hi : med;
    }
  };
  std::vector<Tuned> tuned;
  // The config the library ran for this row before tuning (its tables or cost model, unforced):
  // what a tuning table has to beat (write_tuning_table).
  std::string incumbent;
  // --ab-table: the loaded table's choice against the embedded default's (table_ab_case).
  struct TableAB {
    bool ran = false;
    std::string default_config, table_config, error;
    double default_us = NAN, table_us = NAN;  // median over the rounds
    double noise = NAN;  // the larger of the two configs' (max - min) / median over the rounds
    int rounds = 0;      // 0: both choices are the same config (nothing to time)
    bool pass = false;   // table_us <= default_us * (1 + noise)
  } ab;
  // --read-knobs: the dispatched config under each weight-read setting, interleaved rounds.
  struct ReadKnob {
    std::string setting;  // "BATCH/PROMOTION[/STAGGER[/p|k]]", "-" for unset; the first "-/-", the default read
    double us = NAN;      // median over the rounds
    double noise = NAN;   // (max - min) / median over the rounds
    int64_t differ = -1;  // outputs whose bits differ from the default read's (-1: not compared)
    std::string skipped;  // why the setting was not run (a packed read the config cannot take)
  };
  std::vector<ReadKnob> read_knobs;
  int read_knob_rounds = 0;
};

struct Options {
  bool check = false, bench = false;
  std::string shapes = "bench/shapes.json";
  std::vector<std::string> models;
  std::vector<int64_t> m_override;
  std::string dtype = "both";
  std::string out = "bench_results.json";
  std::string config;
  bool ceilings = true;      // --no-ceilings: skip the copy and 8192^3 GEMM (for profilers)
  bool baselines = true;     // --no-baselines: time tileglu only (cuBLASLt variants skipped)
  std::vector<std::string> tune_configs;  // --tune-configs a,b: only these (default: all)
  std::string tune;          // --tune PATH: time every config, write the fastest per shape there
  std::string ab_table;      // --ab-table PATH: this table's choice vs the embedded default's
  std::vector<std::string> read_knobs;  // --read-knobs B/P[/S[/p|k]],...: weight-read settings to A/B
  int rounds = 1;            // --rounds N: interleaved timing rounds of the variants per case
  int reps = 0;
  bool quick = false;
  bool strict = false;       // judge the mismatch share by 0.01% alone
  bool flush_clean = true;   // --flush clean | write
};

tileglu_swiglu_problem_t make_problem(tileglu_dtype_t dt, int64_t m, int64_t k, int64_t i,
                                      const void* x, int64_t ldx, const void* wg, const void* wu,
                                      int64_t ldw, void* out, int64_t ld_out) {
  tileglu_swiglu_problem_t p{};
  p.dtype = dt;
  p.m = m;
  p.k = k;
  p.i = i;
  p.x = x;
  p.ldx = ldx;
  p.w_gate = wg;
  p.ld_gate = ldw;
  p.w_up = wu;
  p.ld_up = ldw;
  p.out = out;
  p.ld_out = ld_out;
  return p;
}

// Rows the reference evaluates: all when m <= kAllRowsMaxM, else the first 64, the last 64 and 384
// spread evenly over the middle.
std::vector<int> check_rows_for(int64_t m) {
  std::vector<int> rows;
  if (m <= kAllRowsMaxM) {
    for (int64_t r = 0; r < m; ++r) rows.push_back(static_cast<int>(r));
    return rows;
  }
  for (int r = 0; r < kSubsetHead; ++r) rows.push_back(r);
  const int64_t mid = m - kSubsetHead - kSubsetTail;
  for (int j = 0; j < kSubsetMiddle; ++j)
    rows.push_back(static_cast<int>(kSubsetHead + (j * mid) / kSubsetMiddle));
  for (int64_t r = m - kSubsetTail; r < m; ++r) rows.push_back(static_cast<int>(r));
  return rows;
}

// Buffers shared by every case, sized once for the largest.
struct Buffers {
  void* x = nullptr;       // [M, ldx]
  void* w = nullptr;       // stacked [2I, ldw]
  void* wu_sep = nullptr;  // separately allocated up weight [I, ldw]
  void* out = nullptr;     // [M, ld_out] + guard
  double* ref = nullptr;   // [rows, I]
  void* xg = nullptr;      // the checked rows of x, compact [rows, K] (baseline GEMM input)
  float* base = nullptr;   // baseline fp32 GEMM output [rows, 2I]
  int* rows = nullptr;
  CheckStats* stats = nullptr;
  unsigned long long* counter = nullptr;
  // bench only
  void* gu = nullptr;   // [M, 2I]
  void* tmp = nullptr;  // [M, I]
  size_t x_elems = 0, w_elems = 0, out_elems = 0, ref_elems = 0, rows_elems = 0, gu_elems = 0;
  size_t xg_elems = 0, base_elems = 0;
};

struct Context {
  Device dev;
  Buffers buf;
  Options opt;
  TimingOptions topt;
  EventPool events;
  uint64_t case_counter = 0;
  int failures = 0;
};

// One check of one layout: poison, run, compare. Accumulates into `res`.
template <typename T>
void check_one_layout(Context& ctx, const char* layout, int64_t m, int64_t k, int64_t i,
                      int64_t ldx, int64_t ldw, int64_t ld_out, const void* wg, const void* wu,
                      bool stacked, int num_rows, CheckResult* res) {
  Device& dev = ctx.dev;
  Buffers& b = ctx.buf;
  const int64_t out_span = m * ld_out + kGuardElems;
  fill_poison(dev, b.out, out_span);
  tileglu_status_t st;
  if (stacked)
    st = tileglu_swiglu_stacked(TypeInfo<T>::kDtype, m, k, i, b.x, ldx, wg, ldw, b.out, ld_out,
                                dev.stream);
  else
    st = tileglu_swiglu_separate(TypeInfo<T>::kDtype, m, k, i, b.x, ldx, wg, wu, ldw, b.out, ld_out,
                                 dev.stream);
  CUDA_CHECK(cudaGetLastError());
  if (st != TILEGLU_SUCCESS) {
    res->status = std::string(layout) + ": " + tileglu_status_string(st) + " (" +
                  tileglu_last_error_message() + ")";
    std::printf("    FAIL layout=%s: %s\n", layout, res->status.c_str());
    res->pass = false;
    return;
  }
  CUDA_CHECK(cudaMemsetAsync(b.stats, 0, sizeof(CheckStats), dev.stream));
  compare_kernel<T><<<dev.grid_for(static_cast<int64_t>(num_rows) * i), 256, 0, dev.stream>>>(
      static_cast<const T*>(b.out), ld_out, b.ref, b.base, b.rows, num_rows, i, b.stats);
  LAUNCH_CHECK();
  scan_output_kernel<<<dev.grid_for(out_span), 256, 0, dev.stream>>>(
      static_cast<const uint16_t*>(b.out), m, i, ld_out, kGuardElems,
      TypeInfo<T>::kDtype == TILEGLU_DTYPE_BF16, b.stats);
  LAUNCH_CHECK();
  CheckStats s{};
  CUDA_CHECK(cudaMemcpyAsync(&s, b.stats, sizeof(s), cudaMemcpyDeviceToHost, dev.stream));
  CUDA_CHECK(cudaStreamSynchronize(dev.stream));
  const double checked = static_cast<double>(num_rows) * i;
  const double mism = 100.0 * s.mismatches / checked;
  const double base_mism = 100.0 * s.base_mismatches / checked;
  const double rel = std::sqrt(s.err2 / s.ref2);
  const double rel_round = std::sqrt(s.round2 / s.ref2);
  float max_ulp;
  std::memcpy(&max_ulp, &s.max_ulp_bits, sizeof(max_ulp));
  // Even an exact-to-fp32 GEMM misses the correctly rounded value by more than 1 ulp where the
  // output is near zero (the fp32 accumulation error of g and u is then many output ulps), and
  // that share grows with K. So, unless --strict, the limit is the larger of 0.01% and twice the
  // share of the cuBLASLt fp32-accumulation baseline on the same inputs.
  const double limit =
      ctx.opt.strict ? kMaxMismatchPct : std::max(kMaxMismatchPct, kMaxBaselineFactor * base_mism);
  const bool other_ok =
      s.nonfinite == 0 && s.overrun == 0 && rel <= kMaxRelL2OverRounding * rel_round;
  const bool pass = mism <= limit && other_ok;
  const bool pass_strict = mism <= kMaxMismatchPct && other_ok;
  // Worst over the layouts; NaN (an unwritten output) wins.
  auto worst = [&](double acc, double v) {
    if (res->layouts == 0 || std::isnan(v)) return v;
    return std::isnan(acc) ? acc : std::max(acc, v);
  };
  res->mismatch_pct = worst(res->mismatch_pct, mism);
  res->rel_l2 = worst(res->rel_l2, rel);
  res->max_ulp = worst(res->max_ulp, max_ulp);
  res->pass = res->pass && pass;
  res->pass_strict = (res->layouts == 0 || res->pass_strict) && pass_strict;
  res->base_mismatch_pct = base_mism;
  res->limit_pct = limit;
  res->rel_l2_rounding = rel_round;
  res->unwritten += static_cast<int64_t>(s.nonfinite);
  res->overrun += static_cast<int64_t>(s.overrun);
  res->layouts++;
  if (!pass)
    std::printf("    FAIL layout=%s mismatch=%.4f%% (limit %.4f%%) max_ulp=%.3g rel_l2=%.3e "
                "(rounding %.3e) unwritten=%llu overrun=%llu\n",
                layout, mism, limit, max_ulp, rel, rel_round, s.nonfinite, s.overrun);
}

// Checks one problem in the three weight layouts against one fp64 reference. Inputs are generated
// here: x [m, ldx], stacked w [2i, ldw], the separate up weight a copy of the stacked up half.
template <typename T>
CheckResult check_problem(Context& ctx, int64_t m, int64_t k, int64_t i, int64_t ldx, int64_t ldw,
                          int64_t ld_out, bool all_rows) {
  Device& dev = ctx.dev;
  Buffers& b = ctx.buf;
  CheckResult res;
  res.ran = true;
  res.pass = true;
  res.dtype = TypeInfo<T>::kName;
  const uint64_t cs = ctx.case_counter++;
  T* x = static_cast<T*>(b.x);
  T* w = static_cast<T*>(b.w);
  fill_normal<T>(dev, x, m, k, ldx, case_seed(cs, 0), 1.0f);
  fill_normal<T>(dev, w, 2 * i, k, ldw, case_seed(cs, 1), 0.02f);
  CUDA_CHECK(cudaMemcpyAsync(b.wu_sep, w + i * ldw, sizeof(T) * i * ldw, cudaMemcpyDeviceToDevice,
                             dev.stream));
  std::vector<int> rows;
  if (all_rows)
    for (int64_t r = 0; r < m; ++r) rows.push_back(static_cast<int>(r));
  else
    rows = check_rows_for(m);
  const int nr = static_cast<int>(rows.size());
  res.check_rows = nr;
  CUDA_CHECK(cudaMemcpyAsync(b.rows, rows.data(), sizeof(int) * nr, cudaMemcpyHostToDevice,
                             dev.stream));
  dim3 grid(static_cast<unsigned>((i + kRefTile - 1) / kRefTile),
            static_cast<unsigned>((nr + kRefTile - 1) / kRefTile));
  reference_kernel<T><<<grid, kRefThreads, 0, dev.stream>>>(x, ldx, w, w + i * ldw, ldw, b.rows, nr,
                                                            k, i, b.ref);
  LAUNCH_CHECK();
  // Baseline: cuBLASLt on the same rows, fp32 accumulation and fp32 output [nr, 2i].
  gather_rows_kernel<<<dev.grid_for(static_cast<int64_t>(nr) * k), 256, 0, dev.stream>>>(
      static_cast<const uint16_t*>(b.x), ldx, b.rows, nr, k, static_cast<uint16_t*>(b.xg));
  LAUNCH_CHECK();
  {
    LtGemm base_gemm(dev, TypeInfo<T>::kCuda, 2 * i, nr, k, ldw, k, 2 * i, CUDA_R_32F);
    if (!base_gemm.ok) {
      std::printf("    cuBLASLt found no fp32-output algorithm: no baseline for this case\n");
      CUDA_CHECK(cudaMemsetAsync(b.base, 0xFF, sizeof(float) * nr * 2 * i, dev.stream));  // NaN
    } else {
      base_gemm.run(dev, w, b.xg, b.base, dev.stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(dev.stream));  // before base_gemm's descriptors go
  }
  check_one_layout<T>(ctx, "stacked", m, k, i, ldx, ldw, ld_out, w, nullptr, true, nr, &res);
  check_one_layout<T>(ctx, "separate_halves", m, k, i, ldx, ldw, ld_out, w, w + i * ldw, false, nr,
                      &res);
  check_one_layout<T>(ctx, "separate_alloc", m, k, i, ldx, ldw, ld_out, w, b.wu_sep, false, nr,
                      &res);
  // The rows vector is read by the kernels above before the synchronizations in check_one_layout.
  return res;
}

// Invalid calls: each returns its status and leaves the poisoned output untouched.
struct InvalidResult {
  std::string name;
  std::string expected, got;
  int64_t touched = 0;
  bool message = false;
  bool pass = false;
};

void run_invalid_calls(Context& ctx, std::vector<InvalidResult>* results) {
  Device& dev = ctx.dev;
  Buffers& b = ctx.buf;
  using T = __nv_bfloat16;
  const int64_t m = 64, k = 128, i = 64;
  T* x = static_cast<T*>(b.x);
  T* w = static_cast<T*>(b.w);
  T* out = static_cast<T*>(b.out);
  const tileglu_dtype_t bf = TILEGLU_DTYPE_BF16;
  fill_normal<T>(dev, x, m, k, k, case_seed(ctx.case_counter, 0), 1.0f);
  fill_normal<T>(dev, w, 2 * i, k, k, case_seed(ctx.case_counter++, 1), 0.02f);
  struct Case {
    const char* name;
    tileglu_status_t expected;
    std::function<tileglu_status_t()> call;
    void* poisoned;  // region that must stay poisoned
    int64_t elems;
  };
  const char* xb = reinterpret_cast<const char*>(x);
  std::vector<Case> cases = {
      {"misaligned x (x + 1 element)", TILEGLU_ERROR_MISALIGNED_POINTER,
       [&] { return tileglu_swiglu_stacked(bf, m, k, i, xb + 2, k, w, k, out, i, dev.stream); },
       out, m * i},
      {"misaligned out (out + 1 element)", TILEGLU_ERROR_MISALIGNED_POINTER,
       [&] { return tileglu_swiglu_stacked(bf, m, k, i, x, k, w, k, out + 1, i, dev.stream); },
       out, m * i + 8},
      {"aliasing out == x", TILEGLU_ERROR_ALIASING,
       [&] { return tileglu_swiglu_stacked(bf, m, k, i, x, k, w, k, x, i, dev.stream); },
       x, m * k},
      {"aliasing out == w_up", TILEGLU_ERROR_ALIASING,
       [&] { return tileglu_swiglu_separate(bf, m, k, i, x, k, w, w + i * k, k, w + i * k, i, dev.stream); },
       w + i * k, i * k},
      {"null x", TILEGLU_ERROR_NULL_POINTER,
       [&] { return tileglu_swiglu_stacked(bf, m, k, i, nullptr, k, w, k, out, i, dev.stream); },
       out, m * i},
      {"k = 12 (not a multiple of 8)", TILEGLU_ERROR_UNALIGNED_DIMENSION,
       [&] { return tileglu_swiglu_stacked(bf, m, 12, i, x, 16, w, 16, out, i, dev.stream); },
       out, m * i},
      {"ldx < k", TILEGLU_ERROR_INVALID_LEADING_DIM,
       [&] { return tileglu_swiglu_stacked(bf, m, k, i, x, k - 8, w, k, out, i, dev.stream); },
       out, m * i},
      {"m = 0", TILEGLU_ERROR_INVALID_SHAPE,
       [&] { return tileglu_swiglu_stacked(bf, 0, k, i, x, k, w, k, out, i, dev.stream); },
       out, m * i},
      {"dtype = 7", TILEGLU_ERROR_UNSUPPORTED_DTYPE,
       [&] {
         return tileglu_swiglu_stacked(static_cast<tileglu_dtype_t>(7), m, k, i, x, k, w, k, out, i,
                                       dev.stream);
       },
       out, m * i},
  };
  for (auto& c : cases) {
    fill_poison(dev, c.poisoned, c.elems);
    CUDA_CHECK(cudaStreamSynchronize(dev.stream));
    InvalidResult r;
    r.name = c.name;
    r.expected = tileglu_status_string(c.expected);
    const tileglu_status_t st = c.call();
    r.got = tileglu_status_string(st);
    r.message = std::strlen(tileglu_last_error_message()) > 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemsetAsync(b.counter, 0, sizeof(unsigned long long), dev.stream));
    count_not_poison_kernel<<<dev.grid_for(c.elems), 256, 0, dev.stream>>>(
        static_cast<const uint16_t*>(c.poisoned), c.elems, b.counter);
    LAUNCH_CHECK();
    unsigned long long touched = 0;
    CUDA_CHECK(cudaMemcpyAsync(&touched, b.counter, sizeof(touched), cudaMemcpyDeviceToHost,
                               dev.stream));
    CUDA_CHECK(cudaStreamSynchronize(dev.stream));
    r.touched = static_cast<int64_t>(touched);
    r.pass = st == c.expected && touched == 0 && r.message;
    std::printf("  invalid: %-34s expected %-34s got %-34s touched=%lld message=%s %s\n", c.name,
                r.expected.c_str(), r.got.c_str(), static_cast<long long>(touched),
                r.message ? "yes" : "no", r.pass ? "PASS" : "FAIL");
    std::fflush(stdout);
    if (!r.pass) ctx.failures++;
    results->push_back(r);
  }
  // The weights were overwritten by the aliasing case; later cases regenerate their inputs.
}

struct EdgeCase {
  int64_t m, k, i, ldx, ldw, ld_out;
  std::string what;
};

std::vector<EdgeCase> edge_cases() {
  std::vector<EdgeCase> v;
  for (int64_t k : {8, 16})
    for (int64_t i : {8, 24})
      for (int64_t m : {1, 3, 63, 65, 129}) v.push_back({m, k, i, k, k, i, "tiny K/I"});
  // Non-contiguous: ldx > k, ldw > k, ld_out > i (padding of inputs holds NaN).
  v.push_back({100, 264, 200, 272, 288, 216, "strided ldx/ldw/ld_out"});
  v.push_back({129, 520, 136, 600, 528, 152, "strided ldx/ldw/ld_out"});
  v.push_back({65, 1024, 512, 1024, 1024, 520, "strided ld_out"});
  // K and I off the usual tile multiples.
  v.push_back({416, 1032, 1000, 1032, 1032, 1000, "K = 1024 + 8, I not a tile multiple"});
  v.push_back({1, 4104, 72, 4104, 4104, 72, "M = 1, long K"});
  v.push_back({333, 2048, 5000, 2048, 2048, 5000, "odd M, I = 5000"});
  return v;
}

// ------------------------------------------------------------------------------------------------
// --tune: every compiled configuration on one (model, M), forced through TILEGLU_FORCE_CONFIG
// (read by the library on every call). A config the library does not run for this shape (the
// query names another) is skipped. The environment is restored as it was (ScopedEnv).
// ------------------------------------------------------------------------------------------------
//
// Why the re-timing rounds: one pass times the configs one after another, and the clocks drift
// under the power limit by more than the configs within a few percent of each other differ (H200,
// session 8: the 23 rows whose config a one-pass table changed ran from 8 % faster to 8 % slower
// than with the embedded table's config in the run that followed). So the configs within
// kRetimeWindow of the pass's best, and the incumbent, are timed kRetimeRounds more times,
// interleaved and in a rotating order, and ranked by the median of all their timings.
constexpr double kRetimeWindow = 0.05;

// An environment variable as it was at construction, put back at destruction: the tuner and the
// table A/B force configs one after another (TILEGLU_FORCE_CONFIG), the read-knob A/B sets the
// knobs, and each must leave the caller's setting as it found it.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    const char* value = std::getenv(name);
    had_ = value != nullptr;
    if (had_) saved_ = value;
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, saved_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string saved_;
};
constexpr int kRetimeRounds = 2;

template <typename T>
void tune_case(Context& ctx, Row* row, const T* x, const T* w, T* out) {
  Device& dev = ctx.dev;
  const int64_t m = row->m, k = row->k, i = row->i;
  const tileglu_dtype_t dt = TypeInfo<T>::kDtype;
  const int count = tileglu_config_count();
  const ScopedEnv restore_forced("TILEGLU_FORCE_CONFIG");
  auto call = [&](cudaStream_t s) {
    return tileglu_swiglu_stacked(dt, m, k, i, x, k, w, k, out, i, s) == TILEGLU_SUCCESS;
  };
  // Times one config; the first pass's Timings stay in `tuned` (t, graph), every pass's score
  // goes to tuned->rounds.
  auto time_config = [&](Row::Tuned* tuned) {
    setenv("TILEGLU_FORCE_CONFIG", tuned->config.c_str(), 1);
    Row::Tuned timed;
    timed.t = time_variant(dev, ctx.events, ctx.topt, [&](cudaStream_t s) { call(s); });
    if (m <= 64) timed.graph = time_variant_graph(dev, ctx.topt, call);
    CUDA_CHECK(cudaGetLastError());
    if (tuned->rounds.empty()) {
      tuned->t = timed.t;
      tuned->graph = timed.graph;
    }
    tuned->rounds.push_back(timed.first_us());
  };
  {
    unsetenv("TILEGLU_FORCE_CONFIG");
    tileglu_swiglu_problem_t p = make_problem(dt, m, k, i, x, k, w, w + i * k, k, out, i);
    tileglu_config_t runs{};
    if (tileglu_query_config(&p, &runs) == TILEGLU_SUCCESS) row->incumbent = runs.name;
  }
  for (int idx = 0; idx < count; ++idx) {
    tileglu_config_t cfg{};
    if (tileglu_config_at(idx, &cfg) != TILEGLU_SUCCESS) continue;
    // --tune-configs limits the candidates; the incumbent is timed always, so that the table's
    // margin over it (write_tuning_table) can apply.
    const auto& only = ctx.opt.tune_configs;
    if (!only.empty() && std::find(only.begin(), only.end(), std::string(cfg.name)) == only.end() &&
        row->incumbent != cfg.name)
      continue;
    setenv("TILEGLU_FORCE_CONFIG", cfg.name, 1);
    tileglu_swiglu_problem_t p = make_problem(dt, m, k, i, x, k, w, w + i * k, k, out, i);
    tileglu_config_t runs{};
    if (tileglu_query_config(&p, &runs) != TILEGLU_SUCCESS || std::strcmp(runs.name, cfg.name) != 0)
      continue;
    Row::Tuned tuned;
    tuned.config = cfg.name;
    tuned.eligible = !cfg.ablation && cfg.promote_k_tiles == 0;
    tuned.clustered = cfg.cluster_m * cfg.cluster_n > 1;
    time_config(&tuned);
    row->tuned.push_back(tuned);
  }
  // Re-timing rounds: the eligible configs near the first pass's best, and the incumbent.
  double best = INFINITY;
  for (const auto& t : row->tuned)
    if (t.eligible && std::isfinite(t.first_us())) best = std::min(best, t.first_us());
  std::vector<Row::Tuned*> close;
  for (auto& t : row->tuned) {
    const bool near_best = t.eligible && t.first_us() <= best * (1.0 + kRetimeWindow);
    if (std::isfinite(t.first_us()) && (near_best || t.config == row->incumbent)) close.push_back(&t);
  }
  if (close.size() > 1) {
    for (int round = 0; round < kRetimeRounds; ++round) {
      for (size_t j = 0; j < close.size(); ++j) time_config(close[(j + round + 1) % close.size()]);
    }
  }
}

// A clustered config is chosen over the best unclustered one only where it is faster by more than
// this share. Why: the cluster configs' times vary by up to 12 % between runs of the same binary
// (H200, qwen2.5-0.5b M = 5000: 0.92x and 1.05x the unclustered 128x64 tile in two tune runs a
// minute apart), the unclustered tiles' by 1-2 %; a cluster config that won a run by less than
// that lost the next run's bench by up to 11 % (bench/NOTES.md session 6).
constexpr double kClusterWinMargin = 0.05;
// A row keeps the config the library already runs there (Row::incumbent) unless the tuner's best
// beats it by more than this share: within it, two of the unclustered tiles' re-timed medians are
// not told apart from one run to the next (1-2 % in session 6's same-process A/B).
constexpr double kIncumbentMargin = 0.02;

// The tuning table (format: src/dispatch/tuning_table.h): per row, the eligible config of least
// score, a clustered config only by kClusterWinMargin. Ablations and promoted-accumulation
// configs are timed (for the record) but never chosen.
bool write_tuning_table(const std::string& path, const Device& dev, const std::string& dtype,
                        const std::vector<Row>& rows) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::fprintf(f, "# written by swiglu_bench --tune at commit %s\n",
               std::getenv("TILEGLU_COMMIT") ? std::getenv("TILEGLU_COMMIT") : "unknown");
  std::fprintf(f, "tileglu-tuning-table 1\nlibrary %d.%d.%d\ndevice %s\nsm_count %d\n",
               TILEGLU_VERSION_MAJOR, TILEGLU_VERSION_MINOR, TILEGLU_VERSION_PATCH,
               dev.name.c_str(), dev.sm_count);
  std::fprintf(f, "# dtype K I M config time_us (graph replay for M <= 64, else events)\n");
  for (const Row& r : rows) {
    const Row::Tuned* best_plain = nullptr;
    const Row::Tuned* best_clustered = nullptr;
    for (const Row::Tuned& t : r.tuned) {
      if (!t.eligible || !std::isfinite(t.score_us())) continue;
      const Row::Tuned*& best = t.clustered ? best_clustered : best_plain;
      if (!best || t.score_us() < best->score_us()) best = &t;
    }
    const Row::Tuned* best = best_plain;
    if (best_clustered &&
        (!best_plain || best_clustered->score_us() * (1.0 + kClusterWinMargin) < best_plain->score_us()))
      best = best_clustered;
    if (!best) continue;
    for (const Row::Tuned& t : r.tuned) {
      if (t.config == r.incumbent && t.eligible && std::isfinite(t.score_us()) &&
          !(best->score_us() * (1.0 + kIncumbentMargin) < t.score_us()))
        best = &t;
    }
    std::fprintf(f, "%s %lld %lld %lld %s %.3f\n", dtype.c_str(), (long long)r.k, (long long)r.i,
                 (long long)r.m, best->config.c_str(), best->score_us());
  }
  std::fclose(f);
  return true;
}

// ------------------------------------------------------------------------------------------------
// --ab-table PATH: does a tuning table, loaded back, run anything slower than the embedded default
// would? Per row, the config each one picks (tileglu_load_tuning_table of NULL, then of PATH,
// then tileglu_query_config) and, where they differ, both forced and timed in kAbMinRounds (or
// --rounds) interleaved rounds, scored as the tuner scores (graph replay at M <= 64). The table
// passes a row when its config's median is within the rounds' own spread of the default's: the
// run-to-run noise, measured on the same rows in the same process. The table stays loaded, so
// the bench's `ours` column runs it.
// ------------------------------------------------------------------------------------------------
constexpr int kAbMinRounds = 5;

template <typename T>
void table_ab_case(Context& ctx, Row* row, const T* x, const T* w, T* out) {
  const int64_t m = row->m, k = row->k, i = row->i;
  const tileglu_dtype_t dt = TypeInfo<T>::kDtype;
  Row::TableAB& ab = row->ab;
  ab.ran = true;
  tileglu_swiglu_problem_t p = make_problem(dt, m, k, i, x, k, w, w + i * k, k, out, i);
  auto choice = [&](const char* table, std::string* name) {
    tileglu_status_t st = tileglu_load_tuning_table(table);
    tileglu_config_t cfg{};
    if (st == TILEGLU_SUCCESS) st = tileglu_query_config(&p, &cfg);
    if (st != TILEGLU_SUCCESS) {
      ab.error = std::string(tileglu_status_string(st)) + ": " + tileglu_last_error_message();
      return false;
    }
    *name = cfg.name;
    return true;
  };
  const ScopedEnv restore_forced("TILEGLU_FORCE_CONFIG");
  unsetenv("TILEGLU_FORCE_CONFIG");
  if (!choice(nullptr, &ab.default_config) || !choice(ctx.opt.ab_table.c_str(), &ab.table_config)) return;
  if (ab.default_config == ab.table_config) {
    ab.pass = true;
    return;
  }
  // Both forced in turn; time_interleaved rotates which goes first each round.
  const bool graph = m <= 64;
  auto forced_call = [&](const std::string& config) {
    return [&, config](cudaStream_t s) {
      // Set per call: the library reads the variable on every call (sm90_heuristics.cpp), and
      // a graph captures the launch it picks.
      setenv("TILEGLU_FORCE_CONFIG", config.c_str(), 1);
      return tileglu_swiglu_stacked(dt, m, k, i, x, k, w, k, out, i, s) == TILEGLU_SUCCESS;
    };
  };
  Timing def_t, tab_t;
  std::vector<double> def_rounds, tab_rounds;
  ab.rounds = std::max(kAbMinRounds, ctx.opt.rounds);
  time_interleaved(ctx.dev, ctx.events, ctx.topt, graph,
                   {{forced_call(ab.default_config), &def_t, &def_rounds},
                    {forced_call(ab.table_config), &tab_t, &tab_rounds}},
                   ab.rounds);
  CUDA_CHECK(cudaGetLastError());
  auto spread = [](const std::vector<double>& v, double med) {
    return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / med;
  };
  ab.default_us = def_t.median_us;
  ab.table_us = tab_t.median_us;
  if (!std::isfinite(ab.default_us) || !std::isfinite(ab.table_us)) {
    ab.error = "a timing failed";
    return;
  }
  ab.noise = std::max(spread(def_rounds, ab.default_us), spread(tab_rounds, ab.table_us));
  ab.pass = ab.table_us <= ab.default_us * (1.0 + ab.noise);
}

// The stacked weights [Wg; Wu] (leading dimension k) packed slot by slot for
// TILEGLU_SWAPAB_PACKED_WEIGHTS (kernels/decode_plan.h): one thread per 16 bytes of the packed
// buffer; slot (t, j) = 64 gate rows then 64 up rows of tile t, k values 64 j .. 64 j + 63, the
// slots in tile order (t major) or k order (j major).
template <typename T>
__global__ void pack_swapab_slots(const T* __restrict__ w, int64_t i, int64_t k, bool k_order, T* __restrict__ packed) {
  const int64_t chunks = 2 * i * k / 8, k_tiles = k / 64, tiles = i / 64;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < chunks; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t slot = e / 1024;
    const int64_t tile = k_order ? slot % tiles : slot / k_tiles, j = k_order ? slot / tiles : slot % k_tiles;
    const int64_t half = (e % 1024) / 512, r = (e % 512) / 8, c8 = e % 8;
    const T* src = w + (half * i + 64 * tile + r) * k + 64 * j + 8 * c8;
    reinterpret_cast<uint4*>(packed)[e] = *reinterpret_cast<const uint4*>(src);
  }
}

// --read-knobs: the swap-AB weight-read knobs (decode_plan.h) A/B'd on the config the library
// dispatches, in one process on one set of buffers. Why not one process per setting: the decode
// kernels' time moves 2-3 % between processes with the read probe's unchanged (72B M = 1,
// n16_s11: 218.8-219.6 or 224-226.6 us over sessions 9-12, the probe 210.8-211.1), so a setting's
// gain of that size would be lost between processes. Each call sets the knobs (the library reads
// them per launch; a graph captures the launch it makes); kAbMinRounds (or --rounds) rounds.
template <typename T>
void read_knobs_case(Context& ctx, Row* row, const T* x, const T* w, T* out) {
  const int64_t m = row->m, k = row->k, i = row->i;
  const tileglu_dtype_t dt = TypeInfo<T>::kDtype;
  const ScopedEnv restore_batch("TILEGLU_SWAPAB_ISSUE_BATCH");
  const ScopedEnv restore_promotion("TILEGLU_TMA_L2_PROMOTION");
  const ScopedEnv restore_stagger("TILEGLU_SWAPAB_K_STAGGER");
  const ScopedEnv restore_packed("TILEGLU_SWAPAB_PACKED_WEIGHTS");
  const std::vector<std::string>& settings = ctx.opt.read_knobs;
  // A packed read ("/p" tile order, "/k" k order) needs a swap-AB decode config and I, K multiples
  // of 64; the weights are packed once per case and order into their own buffer.
  const bool packable = row->config.rfind("k2_swapab_n", 0) == 0 && i % 64 == 0 && k % 64 == 0;
  T* packed[2] = {nullptr, nullptr};  // tile order, k order
  row->read_knobs.assign(settings.size(), {});
  std::vector<Timing> timing(settings.size());
  std::vector<std::vector<double>> rounds_us(settings.size());
  std::vector<TimedVariant> variants;
  std::vector<size_t> variant_setting;  // the setting each variant runs
  for (size_t j = 0; j < settings.size(); ++j) {
    const std::string& setting = settings[j];
    row->read_knobs[j].setting = setting;
    // BATCH/PROMOTION[/STAGGER[/p|k]]; "-" or a missing field: unset.
    std::string field[4];
    for (size_t f = 0, start = 0; f < 4 && start <= setting.size(); ++f) {
      const size_t slash = setting.find('/', start);
      field[f] = setting.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (field[f] == "-") field[f].clear();
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    const std::string batch = field[0], promotion = field[1], stagger = field[2];
    const bool use_packed = field[3] == "p" || field[3] == "k";
    const bool k_order = field[3] == "k";
    if (use_packed && !packable) {
      row->read_knobs[j].skipped = row->config + " at I = " + std::to_string(i) + ", K = " + std::to_string(k) +
                                   " cannot read packed weights";
      continue;
    }
    if (use_packed && packed[k_order] == nullptr) {
      CUDA_CHECK(cudaMalloc(&packed[k_order], size_t(2 * i * k) * sizeof(T)));
      pack_swapab_slots<T><<<4 * ctx.dev.sm_count, 256>>>(w, i, k, k_order, packed[k_order]);
      CUDA_CHECK(cudaGetLastError());
      // The timing runs on the bench's non-blocking stream, which does not wait for this one.
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const T* weights = use_packed ? packed[k_order] : w;
    const char* packed_env = !use_packed ? "" : k_order ? "2" : "1";
    variants.push_back({[=](cudaStream_t s) {
                          setenv("TILEGLU_SWAPAB_ISSUE_BATCH", batch.c_str(), 1);
                          setenv("TILEGLU_TMA_L2_PROMOTION", promotion.c_str(), 1);
                          setenv("TILEGLU_SWAPAB_K_STAGGER", stagger.c_str(), 1);
                          setenv("TILEGLU_SWAPAB_PACKED_WEIGHTS", packed_env, 1);
                          return tileglu_swiglu_stacked(dt, m, k, i, x, k, weights, k, out, i, s) == TILEGLU_SUCCESS;
                        },
                        &timing[j], &rounds_us[j]});
    variant_setting.push_back(j);
  }
  row->read_knob_rounds = std::max(kAbMinRounds, ctx.opt.rounds);
  time_interleaved(ctx.dev, ctx.events, ctx.topt, m <= 64, variants, row->read_knob_rounds);
  CUDA_CHECK(cudaGetLastError());
  // Each setting's output bits against the default read's (settings[0]): a knob that only moves
  // bytes must change none (the stagger reorders sums and may).
  std::vector<uint16_t> first, again(size_t(m * i));
  static_assert(sizeof(T) == sizeof(uint16_t), "16-bit outputs");
  for (size_t v = 0; v < variants.size(); ++v) {
    CUDA_CHECK(cudaMemset(out, 0xFF, again.size() * sizeof(T)));
    if (!variants[v].fn(nullptr)) {
      if (v == 0) break;  // no default output to compare against
      continue;
    }
    CUDA_CHECK(cudaMemcpy(again.data(), out, again.size() * sizeof(T), cudaMemcpyDeviceToHost));
    if (v == 0) first = again;  // settings[0], the default read, is never skipped
    int64_t differ = 0;
    for (size_t e = 0; e < again.size(); ++e) differ += again[e] != first[e];
    row->read_knobs[variant_setting[v]].differ = differ;
  }
  for (T* buffer : packed) {
    if (buffer != nullptr) CUDA_CHECK(cudaFree(buffer));
  }
  for (size_t j = 0; j < settings.size(); ++j) {
    Row::ReadKnob& r = row->read_knobs[j];
    if (!r.skipped.empty()) continue;
    r.us = timing[j].median_us;
    if (std::isfinite(r.us) && !rounds_us[j].empty()) {
      const auto [lo, hi] = std::minmax_element(rounds_us[j].begin(), rounds_us[j].end());
      r.noise = (*hi - *lo) / r.us;
    }
  }
}

std::string read_knobs_json(const Row& r) {
  std::string s = "{\"rounds\": " + jint(r.read_knob_rounds) + ", \"settings\": [";
  for (size_t j = 0; j < r.read_knobs.size(); ++j) {
    const Row::ReadKnob& k = r.read_knobs[j];
    s += std::string(j ? ", " : "") + "{\"setting\": " + jstr(k.setting) + ", \"us\": " + jnum(k.us) +
         ", \"over_default\": " + jnum(k.us / r.read_knobs[0].us) + ", \"noise\": " + jnum(k.noise) +
         ", \"differ_from_default\": " + jint(k.differ) +
         (k.skipped.empty() ? std::string() : ", \"skipped\": " + jstr(k.skipped)) + "}";
  }
  return s + "]}";
}

// ------------------------------------------------------------------------------------------------
// Bench of one (model, M).
// ------------------------------------------------------------------------------------------------
template <typename T>
void bench_case(Context& ctx, Row* row) {
  Device& dev = ctx.dev;
  Buffers& b = ctx.buf;
  const int64_t m = row->m, k = row->k, i = row->i;
  const uint64_t cs = ctx.case_counter++;
  T* x = static_cast<T*>(b.x);
  T* w = static_cast<T*>(b.w);
  T* out = static_cast<T*>(b.out);
  T* gu = static_cast<T*>(b.gu);
  T* tmp = static_cast<T*>(b.tmp);
  fill_normal<T>(dev, x, m, k, k, case_seed(cs, 0), 1.0f);
  fill_normal<T>(dev, w, 2 * i, k, k, case_seed(cs, 1), 0.02f);
  // Fill the baseline intermediates too, so no variant ever starts on zeros.
  fill_normal<T>(dev, gu, m, 2 * i, 2 * i, case_seed(cs, 2), 1.0f);
  CUDA_CHECK(cudaStreamSynchronize(dev.stream));
  const tileglu_dtype_t dt = TypeInfo<T>::kDtype;
  const cudaDataType_t cdt = TypeInfo<T>::kCuda;

  bool ours_ok = true;
  {
    const tileglu_status_t st =
        tileglu_swiglu_stacked(dt, m, k, i, x, k, w, k, out, i, dev.stream);
    if (st != TILEGLU_SUCCESS) {
      std::printf("  tileglu failed: %s (%s)\n", tileglu_status_string(st),
                  tileglu_last_error_message());
      ours_ok = false;
    }
    CUDA_CHECK(cudaGetLastError());
  }
  LtGemm merged(dev, cdt, 2 * i, m, k, k, k, 2 * i, cdt);
  LtGemm half(dev, cdt, i, m, k, k, k, i, cdt);
  T* gate = gu;           // eager: gate [m, i] ...
  T* up = gu + m * i;     // ... and up [m, i], both inside the [m, 2i] buffer
  const unsigned ew_grid = dev.grid_for(m * i / 8);
  auto gemm = [&](cudaStream_t s) { merged.run(dev, w, x, gu, s); };
  auto gemm_silu = [&](cudaStream_t s) {
    merged.run(dev, w, x, gu, s);
    silu_and_mul_kernel<T><<<ew_grid, 256, 0, s>>>(gu, out, m, i);
  };
  auto eager = [&](cudaStream_t s) {
    half.run(dev, w, x, gate, s);
    half.run(dev, w + i * k, x, up, s);
    silu_kernel<T><<<ew_grid, 256, 0, s>>>(gate, tmp, m * i);
    mul_kernel<T><<<ew_grid, 256, 0, s>>>(tmp, up, out, m * i);
  };
  // --no-baselines (a tuner run) times tileglu only. Each variant's call runs as it would in a
  // user's stream; --rounds interleaves them (time_interleaved).
  const bool baselines = ctx.opt.baselines;
  if (baselines && !merged.ok) std::printf("  cuBLASLt found no algorithm for the merged GEMM\n");
  if (baselines && !half.ok) std::printf("  cuBLASLt found no algorithm for the half GEMM\n");
  auto enqueued = [](const std::function<void(cudaStream_t)>& fn) {
    return [fn](cudaStream_t s) {
      fn(s);
      return cudaPeekAtLastError() == cudaSuccess;
    };
  };
  auto variants = [&](bool graph) {
    std::vector<TimedVariant> v;
    if (ours_ok)
      v.push_back({[&](cudaStream_t s) {
                     return tileglu_swiglu_stacked(dt, m, k, i, x, k, w, k, out, i, s) ==
                            TILEGLU_SUCCESS;
                   },
                   graph ? &row->ours_graph : &row->ours});
    if (baselines && merged.ok) {
      v.push_back({enqueued(gemm), graph ? &row->gemm_graph : &row->gemm});
      v.push_back({enqueued(gemm_silu), graph ? &row->gemm_silu_graph : &row->gemm_silu});
    }
    if (baselines && half.ok) v.push_back({enqueued(eager), graph ? &row->eager_graph : &row->eager});
    return v;
  };
  const int rounds = std::max(1, ctx.opt.rounds);
  time_interleaved(dev, ctx.events, ctx.topt, false, variants(false), rounds);
  CUDA_CHECK(cudaGetLastError());
  row->benched = true;
  if (!ctx.opt.tune.empty()) tune_case<T>(ctx, row, x, w, out);
  if (!ctx.opt.ab_table.empty()) table_ab_case<T>(ctx, row, x, w, out);
  if (!ctx.opt.read_knobs.empty()) read_knobs_case<T>(ctx, row, x, w, out);

  if (m <= 64) {
    row->graphed = true;
    time_interleaved(dev, ctx.events, ctx.topt, true, variants(true), rounds);
    CUDA_CHECK(cudaGetLastError());
  }
}

// ------------------------------------------------------------------------------------------------
// Ceilings measured once.
// ------------------------------------------------------------------------------------------------
struct Ceilings {
  double copy_bytes = 0;
  double copy_us = NAN;
  double copy_gbps_rw = NAN;    // (bytes read + bytes written) / time
  double cublas_8192_us = NAN;
  double cublas_8192_tflops = NAN;
};

Ceilings measure_ceilings(Context& ctx) {
  Device& dev = ctx.dev;
  Ceilings c;
  const size_t copy_bytes = 1ull << 30;
  c.copy_bytes = static_cast<double>(copy_bytes);
  void* src = nullptr;
  void* dst = nullptr;
  CUDA_CHECK(cudaMalloc(&src, copy_bytes));
  CUDA_CHECK(cudaMalloc(&dst, copy_bytes));
  fill_normal<__nv_bfloat16>(dev, static_cast<__nv_bfloat16*>(src), 1, copy_bytes / 2,
                             copy_bytes / 2, 0xC0FFEEull, 1.0f);
  TimingOptions t = ctx.topt;
  t.target_ms = 50;
  t.min_runs = 10;
  t.max_runs = 50;
  Timing ct = time_variant(dev, ctx.events, t, [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, s));
  });
  c.copy_us = ct.median_us;
  c.copy_gbps_rw = 2.0 * copy_bytes / (ct.median_us * 1e-6) / 1e9;
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));

  const int64_t n = 8192;
  using T = __nv_bfloat16;
  T* a = dalloc<T>(n * n);
  T* b = dalloc<T>(n * n);
  T* d = dalloc<T>(n * n);
  fill_normal<T>(dev, a, n, n, n, 0xA11CEull, 1.0f);
  fill_normal<T>(dev, b, n, n, n, 0xB0Bull, 1.0f);
  LtGemm g(dev, CUDA_R_16BF, n, n, n, n, n, n, CUDA_R_16BF);
  if (g.ok) {
    Timing gt = time_variant(dev, ctx.events, t, [&](cudaStream_t s) { g.run(dev, a, b, d, s); });
    c.cublas_8192_us = gt.median_us;
    c.cublas_8192_tflops = 2.0 * n * n * n / (gt.median_us * 1e-6) / 1e12;
  }
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(d));
  return c;
}

// The read-stream floor of one model's weight bytes (stream_probe.cuh): the model's own weight
// buffer read once by each probe, timed like the decode rows (graph replay, L2 flushed).
struct StreamProbe {
  std::string model;
  double bytes = 0;
  double ld_global_us = NAN;
  double bulk_us = NAN;
  double tiles_us = NAN;  // ld.global in weight-tile order (row blocks, 128 B per row per step)
  int bal_ctas = 0;       // the swap-AB decode kernel's balanced grid for this model's 64-column units
  double bulk_bal_us = NAN;  // bulk on bal_ctas CTAs
  double bulk_coop_us = NAN;  // bulk on one CTA per SM, launched cooperatively
  double tma_tiles_us[stream_probe::kTmaTilesVariantCount];  // per stream_probe::kTmaTilesVariants
  StreamProbe() { std::fill(std::begin(tma_tiles_us), std::end(tma_tiles_us), NAN); }
};

StreamProbe measure_stream_probe(Context& ctx, const Model& md, const void* weights) {
  Device& dev = ctx.dev;
  StreamProbe sp;
  sp.model = md.name;
  const int64_t bytes = int64_t(2) * md.i * md.k * 2;
  sp.bytes = static_cast<double>(bytes);
  uint32_t* sink = dalloc<uint32_t>(2 * dev.sm_count);
  Timing ld = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
    return stream_probe::launch_ld_global(weights, bytes, sink, dev.sm_count, s) == cudaSuccess;
  });
  Timing bulk = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
    return stream_probe::launch_bulk(weights, bytes, sink, dev.sm_count, s) == cudaSuccess;
  });
  // The weights as the kernels see them: 2I rows of K elements.
  Timing tiles = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
    return stream_probe::launch_ld_tiles(weights, int64_t(2) * md.i, int64_t(md.k) * 2, sink, dev.sm_count, s) ==
           cudaSuccess;
  });
  // As many CTAs as the balanced swap-AB grid (one CTA per SM) streams with: rounds =
  // ceil(units / SMs), then the fewest CTAs that finish the units in that many rounds.
  const int64_t units = (md.i + 63) / 64;
  const int64_t rounds = (units - 1) / dev.sm_count + 1;
  sp.bal_ctas = int((units - 1) / rounds + 1);
  Timing bulk_bal = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
    return stream_probe::launch_bulk(weights, bytes, sink, sp.bal_ctas, s) == cudaSuccess;
  });
  Timing bulk_coop = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
    return stream_probe::launch_bulk(weights, bytes, sink, dev.sm_count, s, true) == cudaSuccess;
  });
  sp.bulk_coop_us = bulk_coop.median_us;
  for (int v = 0; v < stream_probe::kTmaTilesVariantCount; ++v) {
    Timing tma = time_variant_graph(dev, ctx.topt, [&](cudaStream_t s) {
      return stream_probe::launch_tma_tiles(weights, md.i, md.k, stream_probe::kTmaTilesVariants[v], sink,
                                            dev.sm_count, s) == cudaSuccess;
    });
    sp.tma_tiles_us[v] = tma.median_us;
  }
  sp.ld_global_us = ld.median_us;
  sp.bulk_us = bulk.median_us;
  sp.tiles_us = tiles.median_us;
  sp.bulk_bal_us = bulk_bal.median_us;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(sink));
  return sp;
}

// Current and maximum SM clock through nvidia-smi; the CUDA attribute (the peak clock) if it fails.
void read_sm_clock(const Device& dev, double* current_mhz, double* max_mhz, std::string* source) {
  char bus[32] = {0};
  *current_mhz = NAN;
  *max_mhz = NAN;
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), dev.id) == cudaSuccess) {
    std::string cmd = std::string("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm "
                                  "--format=csv,noheader,nounits --id=") +
                      bus + " 2>/dev/null";
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char line[256] = {0};
      if (std::fgets(line, sizeof(line), p)) {
        double cur = 0, mx = 0;
        if (std::sscanf(line, "%lf , %lf", &cur, &mx) == 2) {
          *current_mhz = cur;
          *max_mhz = mx;
          *source = "nvidia-smi";
        }
      }
      pclose(p);
    }
  }
  if (std::isnan(*current_mhz)) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev.id) == cudaSuccess && khz > 0) {
      *max_mhz = khz / 1000.0;
      *source = "cudaDevAttrClockRate (peak, not current)";
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Command line and shapes.
// ------------------------------------------------------------------------------------------------
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  size_t start = 0;
  while (start <= s.size()) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) pos = s.size();
    if (pos > start) v.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return v;
}

void usage() {
  std::printf(
      "usage: swiglu_bench [--check] [--bench] [options]   (neither flag: both phases)\n"
      "  --shapes PATH     shapes file (default bench/shapes.json)\n"
      "  --models a,b      only these models (names as in the shapes file)\n"
      "  --m 1,2,4096      these M values instead of the file's tokens_m\n"
      "  --dtype D         bf16 | fp16 | both (default both: check bf16 on every case and fp16 on\n"
      "                    a subset of M, bench bf16; fp16: check and bench fp16 only)\n"
      "  --out PATH        JSON results (default bench_results.json)\n"
      "  --config NAME     force a kernel config (sets TILEGLU_FORCE_CONFIG)\n"
      "  --no-ceilings     skip the bandwidth and 8192^3 GEMM ceilings (e.g. under a profiler)\n"
      "  --no-baselines    time tileglu only, no cuBLASLt variants (a tuner run)\n"
      "  --tune-configs a,b  with --tune: time only these configs (default: every compiled one)\n"
      "  --tune PATH       in the bench phase also time every valid config per case and write\n"
      "                    the fastest per (K, I, M) to PATH as a tuning table (TILEGLU_TUNING_TABLE)\n"
      "  --ab-table PATH   load this tuning table and, per case, time its config against the\n"
      "                    embedded default's where they differ (interleaved rounds; verdict: the\n"
      "                    table's median within the rounds' spread of the default's)\n"
      "  --read-knobs LIST per case, the dispatched config under each weight-read setting of LIST\n"
      "                    (BATCH/PROMOTION[/STAGGER[/p|k]], comma-separated, '-' for unset:\n"
      "                    TILEGLU_SWAPAB_ISSUE_BATCH, TILEGLU_TMA_L2_PROMOTION, TILEGLU_SWAPAB_K_STAGGER;\n"
      "                    p / k: TILEGLU_SWAPAB_PACKED_WEIGHTS=1 / 2 on weights the bench packs in\n"
      "                    tile / k order)\n"
      "                    against the default read, interleaved rounds in one process, same buffers\n"
      "  --rounds N        time each case's variants in N interleaved rounds, median of the\n"
      "                    round medians (default 1; --ab-table uses at least 5)\n"
      "  --reps N          exactly N timed runs per variant (default adaptive: ~100 ms, 10..200)\n"
      "  --quick           M in {1,16,128,1000,4096} unless --m; ~20 ms per variant\n"
      "  --strict          fail a case whose mismatch share exceeds 0.01%%, whatever the cuBLASLt\n"
      "                    fp32 baseline's share (default limit: max(0.01%%, 2x baseline))\n"
      "  --flush MODE      L2 flush before each timed run: clean (default: write 2x L2, then read\n"
      "                    it back, leaving clean lines) or write (the write alone)\n");
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto next = [&](std::string* v) {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        return false;
      }
      *v = argv[++a];
      return true;
    };
    std::string v;
    if (arg == "--check") {
      o->check = true;
    } else if (arg == "--bench") {
      o->bench = true;
    } else if (arg == "--quick") {
      o->quick = true;
    } else if (arg == "--strict") {
      o->strict = true;
    } else if (arg == "--flush") {
      if (!next(&v)) return false;
      if (v != "clean" && v != "write") {
        std::fprintf(stderr, "--flush must be clean or write\n");
        return false;
      }
      o->flush_clean = v == "clean";
    } else if (arg == "--shapes") {
      if (!next(&o->shapes)) return false;
    } else if (arg == "--models") {
      if (!next(&v)) return false;
      o->models = split(v, ',');
    } else if (arg == "--m") {
      if (!next(&v)) return false;
      for (const auto& t : split(v, ',')) {
        char* end = nullptr;
        const long long mv = std::strtoll(t.c_str(), &end, 10);
        if (*end != '\0' || mv <= 0) {
          std::fprintf(stderr, "bad M value '%s'\n", t.c_str());
          return false;
        }
        o->m_override.push_back(mv);
      }
    } else if (arg == "--dtype") {
      if (!next(&o->dtype)) return false;
      if (o->dtype != "bf16" && o->dtype != "fp16" && o->dtype != "both") {
        std::fprintf(stderr, "--dtype must be bf16, fp16 or both\n");
        return false;
      }
    } else if (arg == "--out") {
      if (!next(&o->out)) return false;
    } else if (arg == "--config") {
      if (!next(&o->config)) return false;
    } else if (arg == "--no-ceilings") {
      o->ceilings = false;
    } else if (arg == "--no-baselines") {
      o->baselines = false;
    } else if (arg == "--tune-configs") {
      if (!next(&v)) return false;
      size_t start = 0;
      while (start <= v.size()) {
        const size_t comma = v.find(',', start);
        const std::string name = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!name.empty()) o->tune_configs.push_back(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (arg == "--tune") {
      if (!next(&o->tune)) return false;
    } else if (arg == "--ab-table") {
      if (!next(&o->ab_table)) return false;
    } else if (arg == "--read-knobs") {
      if (!next(&v)) return false;
      o->read_knobs = {"-/-"};  // the default read first: the others are against it
      for (size_t start = 0; start <= v.size();) {
        const size_t comma = v.find(',', start);
        const std::string setting = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!setting.empty() && setting != "-/-") {
          const size_t slashes = size_t(std::count(setting.begin(), setting.end(), '/'));
          const std::string packing = slashes == 3 ? setting.substr(setting.rfind('/') + 1) : "";
          if (slashes < 1 || slashes > 3 || !(packing.empty() || packing == "-" || packing == "p" || packing == "k")) {
            std::fprintf(stderr, "--read-knobs: '%s' is not BATCH/PROMOTION[/STAGGER[/p|k]] ('-' for unset)\n",
                         setting.c_str());
            return false;
          }
          o->read_knobs.push_back(setting);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (arg == "--rounds") {
      if (!next(&v)) return false;
      o->rounds = std::atoi(v.c_str());
      if (o->rounds <= 0) {
        std::fprintf(stderr, "--rounds must be positive\n");
        return false;
      }
    } else if (arg == "--reps") {
      if (!next(&v)) return false;
      o->reps = std::atoi(v.c_str());
      if (o->reps <= 0) {
        std::fprintf(stderr, "--reps must be positive\n");
        return false;
      }
    } else if (arg == "--help" || arg == "-h") {
      usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", arg.c_str());
      usage();
      return false;
    }
  }
  if (!o->check && !o->bench) o->check = o->bench = true;
  if (!o->ab_table.empty() && !o->bench) {
    std::fprintf(stderr, "--ab-table times configs: it needs the bench phase\n");
    return false;
  }
  if (!o->read_knobs.empty() && !o->bench) {
    std::fprintf(stderr, "--read-knobs times the library: it needs the bench phase\n");
    return false;
  }
  return true;
}

bool load_shapes(const Options& o, std::vector<Model>* models, std::vector<int64_t>* ms) {
  FILE* f = std::fopen(o.shapes.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", o.shapes.c_str());
    return false;
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  std::fclose(f);
  Json root;
  std::string err;
  if (!JsonParser(text).parse(&root, &err)) {
    std::fprintf(stderr, "%s: %s\n", o.shapes.c_str(), err.c_str());
    return false;
  }
  const Json* jm = root.get("models");
  const Json* jt = root.get("tokens_m");
  if (!jm || jm->kind != Json::kObject || !jt || jt->kind != Json::kObject) {
    std::fprintf(stderr, "%s: needs objects 'models' and 'tokens_m'\n", o.shapes.c_str());
    return false;
  }
  for (const auto& kv : jm->obj) {
    const Json* h = kv.second.get("hidden");
    const Json* in = kv.second.get("intermediate");
    if (!h || !in || h->kind != Json::kNumber || in->kind != Json::kNumber) {
      std::fprintf(stderr, "%s: model %s needs numbers hidden and intermediate\n",
                   o.shapes.c_str(), kv.first.c_str());
      return false;
    }
    models->push_back({kv.first, static_cast<int64_t>(h->num), static_cast<int64_t>(in->num)});
  }
  std::set<int64_t> mset;
  for (const auto& kv : jt->obj) {
    if (kv.second.kind != Json::kArray) continue;
    for (const auto& e : kv.second.arr)
      if (e.kind == Json::kNumber && e.num > 0) mset.insert(static_cast<int64_t>(e.num));
  }
  ms->assign(mset.begin(), mset.end());
  if (!o.models.empty()) {
    std::vector<Model> keep;
    for (const auto& name : o.models) {
      auto it = std::find_if(models->begin(), models->end(),
                             [&](const Model& m) { return m.name == name; });
      if (it == models->end()) {
        std::fprintf(stderr, "unknown model '%s'\n", name.c_str());
        return false;
      }
      keep.push_back(*it);
    }
    *models = keep;
  }
  if (!o.m_override.empty()) {
    std::set<int64_t> s(o.m_override.begin(), o.m_override.end());
    ms->assign(s.begin(), s.end());
  } else if (o.quick) {
    *ms = {1, 16, 128, 1000, 4096};
  }
  return true;
}

std::string utc_date() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x) && x > 0) {
      s += std::log(x);
      ++n;
    }
  return n ? std::exp(s / n) : NAN;
}

double flops_of(const Row& r) { return 2.0 * r.m * r.k * 2.0 * r.i; }
double ratio(const Timing& a, const Timing& b) { return a.median_us / b.median_us; }

std::string check_json(const CheckResult& c) {
  std::string s = "{";
  s += "\"dtype\": " + jstr(c.dtype);
  s += ", \"pass\": " + std::string(c.pass ? "true" : "false");
  s += ", \"pass_strict\": " + std::string(c.pass_strict ? "true" : "false");
  s += ", \"mismatch_pct\": " + jnum(c.mismatch_pct);
  s += ", \"baseline_mismatch_pct\": " + jnum(c.base_mismatch_pct);
  s += ", \"mismatch_limit_pct\": " + jnum(c.limit_pct);
  s += ", \"max_ulp\": " + jnum(c.max_ulp);
  s += ", \"rel_l2\": " + jnum(c.rel_l2);
  s += ", \"rel_l2_rounding\": " + jnum(c.rel_l2_rounding);
  s += ", \"unwritten\": " + jint(c.unwritten);
  s += ", \"overrun\": " + jint(c.overrun);
  s += ", \"check_rows\": " + jint(c.check_rows);
  s += ", \"layouts\": " + jint(c.layouts);
  if (!c.status.empty()) s += ", \"status\": " + jstr(c.status);
  return s + "}";
}

struct TableAbSummary {
  int rows = 0, differ = 0, beyond_noise = 0, errors = 0;
  double worst_ratio = NAN;  // the largest table_us / default_us over the rows that differ
  std::string worst_row;
};

TableAbSummary summarize_table_ab(const std::vector<Row>& rows) {
  TableAbSummary a;
  for (const auto& r : rows) {
    if (!r.ab.ran) continue;
    ++a.rows;
    if (!r.ab.error.empty()) {
      ++a.errors;
      continue;
    }
    if (r.ab.rounds == 0) continue;
    ++a.differ;
    a.beyond_noise += !r.ab.pass;
    const double q = r.ab.table_us / r.ab.default_us;
    if (!(q <= a.worst_ratio)) {
      a.worst_ratio = q;
      a.worst_row = r.model + " M=" + std::to_string(r.m);
    }
  }
  return a;
}

std::string table_ab_json(const Row::TableAB& ab) {
  std::string s = "{\"default_config\": " + jstr(ab.default_config);
  s += ", \"table_config\": " + jstr(ab.table_config);
  s += ", \"rounds\": " + jint(ab.rounds);
  s += ", \"default_us\": " + jnum(ab.default_us);
  s += ", \"table_us\": " + jnum(ab.table_us);
  s += ", \"table_over_default\": " + jnum(ab.table_us / ab.default_us);
  s += ", \"noise\": " + jnum(ab.noise);
  s += ", \"pass\": " + std::string(ab.pass ? "true" : "false");
  if (!ab.error.empty()) s += ", \"error\": " + jstr(ab.error);
  return s + "}";
}

}  // namespace

int main(int argc, char** argv) {
  Context ctx;
  Options& opt = ctx.opt;
  if (!parse_args(argc, argv, &opt)) return 2;
  if (!opt.config.empty()) setenv("TILEGLU_FORCE_CONFIG", opt.config.c_str(), 1);
  if (opt.quick) {
    ctx.topt.target_ms = 20;
    ctx.topt.min_runs = 5;
    ctx.topt.max_runs = 50;
    ctx.topt.warmup_ms = 5;
    ctx.topt.graph_target_ms = 10;
    ctx.topt.graph_max_replays = 10;
  }
  ctx.topt.fixed_runs = opt.reps;

  std::vector<Model> models;
  std::vector<int64_t> ms;
  if (!load_shapes(opt, &models, &ms)) return 2;
  const double t_start = now_seconds();

  // Device.
  Device& dev = ctx.dev;
  CUDA_CHECK(cudaGetDevice(&dev.id));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev.id));
  dev.name = prop.name;
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&dev.sm_count, cudaDevAttrMultiProcessorCount, dev.id));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev.id));
  dev.l2_bytes = l2;
  CUDA_CHECK(cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking));
  CUBLAS_CHECK(cublasLtCreate(&dev.lt));
  CUDA_CHECK(cudaMalloc(&dev.lt_workspace, kLtWorkspaceBytes));
  dev.flush_bytes = 2 * static_cast<size_t>(dev.l2_bytes);
  CUDA_CHECK(cudaMalloc(&dev.flush_buf, dev.flush_bytes));
  CUDA_CHECK(cudaMalloc(&dev.sink, sizeof(unsigned)));
  dev.flush_clean = opt.flush_clean;
  std::printf("device: %s, %d SMs, L2 %lld bytes (flush writes %zu bytes), cc %d.%d\n",
              dev.name.c_str(), dev.sm_count, static_cast<long long>(dev.l2_bytes),
              dev.flush_bytes, prop.major, prop.minor);
  std::printf("phases: %s%s  models: %zu  M values: %zu  dtype: %s%s%s\n",
              opt.check ? "check " : "", opt.bench ? "bench" : "", models.size(), ms.size(),
              opt.dtype.c_str(), opt.config.empty() ? "" : "  forced config: ",
              opt.config.c_str());
  std::fflush(stdout);

  // Buffers: the largest size any case needs (edge cases and the invalid calls included).
  Buffers& b = ctx.buf;
  const std::vector<EdgeCase> edges = edge_cases();
  for (const auto& md : models)
    for (int64_t m : ms) {
      b.x_elems = std::max<size_t>(b.x_elems, m * md.k);
      b.w_elems = std::max<size_t>(b.w_elems, 2 * md.i * md.k);
      b.out_elems = std::max<size_t>(b.out_elems, m * md.i + kGuardElems);
      b.rows_elems = std::max<size_t>(b.rows_elems, check_rows_for(m).size());
      b.ref_elems = std::max<size_t>(b.ref_elems, check_rows_for(m).size() * md.i);
      b.xg_elems = std::max<size_t>(b.xg_elems, check_rows_for(m).size() * md.k);
      b.base_elems = std::max<size_t>(b.base_elems, check_rows_for(m).size() * 2 * md.i);
      if (opt.bench) b.gu_elems = std::max<size_t>(b.gu_elems, 2 * m * md.i);
    }
  for (const auto& e : edges) {
    b.x_elems = std::max<size_t>(b.x_elems, e.m * e.ldx);
    b.w_elems = std::max<size_t>(b.w_elems, 2 * e.i * e.ldw);
    b.out_elems = std::max<size_t>(b.out_elems, e.m * e.ld_out + kGuardElems);
    b.rows_elems = std::max<size_t>(b.rows_elems, e.m);
    b.ref_elems = std::max<size_t>(b.ref_elems, e.m * e.i);
    b.xg_elems = std::max<size_t>(b.xg_elems, e.m * e.k);
    b.base_elems = std::max<size_t>(b.base_elems, e.m * 2 * e.i);
  }
  b.x_elems = std::max<size_t>(b.x_elems, 64 * 128);  // the invalid-call problem
  b.w_elems = std::max<size_t>(b.w_elems, 2 * 64 * 128);
  b.out_elems = std::max<size_t>(b.out_elems, 64 * 64 + 8);
  const size_t e2 = 2;  // bytes per bf16/fp16 element
  b.x = dalloc<uint16_t>(b.x_elems);
  b.w = dalloc<uint16_t>(b.w_elems);
  b.wu_sep = dalloc<uint16_t>(b.w_elems / 2 + 8);
  b.out = dalloc<uint16_t>(b.out_elems);
  b.ref = dalloc<double>(b.ref_elems);
  b.xg = dalloc<uint16_t>(b.xg_elems);
  b.base = dalloc<float>(b.base_elems);
  b.rows = dalloc<int>(b.rows_elems);
  b.stats = dalloc<CheckStats>(1);
  b.counter = dalloc<unsigned long long>(1);
  if (opt.bench) {
    b.gu = dalloc<uint16_t>(b.gu_elems);
    b.tmp = dalloc<uint16_t>(b.gu_elems / 2);
  }
  const double gib = 1.0 / (1ull << 30);
  std::printf("buffers: x %.2f GiB, w %.2f GiB (+ up copy), out %.2f GiB, ref %.2f GiB, "
              "baseline %.2f GiB\n",
              b.x_elems * e2 * gib, b.w_elems * e2 * gib, b.out_elems * e2 * gib,
              b.ref_elems * 8.0 * gib, b.gu_elems * 1.5 * e2 * gib);
  std::fflush(stdout);

  // --ab-table: a table the library rejects ends the run here, with the library's message.
  if (!opt.ab_table.empty()) {
    if (tileglu_load_tuning_table(opt.ab_table.c_str()) != TILEGLU_SUCCESS) {
      std::fprintf(stderr, "--ab-table: %s\n", tileglu_last_error_message());
      return 2;
    }
    std::printf("tuning table %s loaded (the bench's `ours` runs it)\n", opt.ab_table.c_str());
  }

  // One row per (model, M), in order.
  std::vector<Row> rows;
  for (const auto& md : models)
    for (int64_t m : ms) {
      Row r;
      r.model = md.name;
      r.m = m;
      r.k = md.k;
      r.i = md.i;
      tileglu_swiglu_problem_t p =
          make_problem(opt.dtype == "fp16" ? TILEGLU_DTYPE_FP16 : TILEGLU_DTYPE_BF16, m, md.k,
                       md.i, b.x, md.k, b.w, static_cast<char*>(b.w) + e2 * md.i * md.k, md.k,
                       b.out, md.i);
      tileglu_config_t cfg{};
      const tileglu_status_t st = tileglu_query_config(&p, &cfg);
      if (st == TILEGLU_SUCCESS) {
        r.kernel = cfg.kernel;
        r.config = cfg.name;
      } else {
        r.config = std::string("error: ") + tileglu_status_string(st);
      }
      rows.push_back(r);
    }

  Ceilings ceil;
  double sm_clock = NAN, sm_clock_max = NAN;
  std::string clock_source = "none";
  std::vector<InvalidResult> invalid;
  std::vector<StreamProbe> probes;
  std::vector<std::pair<EdgeCase, CheckResult>> edge_results;
  int check_cases = 0, check_failed = 0, strict_failed = 0;

  if (opt.bench && opt.ceilings) {
    ceil = measure_ceilings(ctx);
    read_sm_clock(dev, &sm_clock, &sm_clock_max, &clock_source);
    std::printf("ceilings: d2d copy 1 GiB %.1f us = %.0f GB/s (read+write); cuBLASLt bf16 8192^3 "
                "%.1f us = %.1f TFLOP/s; SM clock %.0f MHz (max %.0f, %s)\n",
                ceil.copy_us, ceil.copy_gbps_rw, ceil.cublas_8192_us, ceil.cublas_8192_tflops,
                sm_clock, sm_clock_max, clock_source.c_str());
  } else {
    read_sm_clock(dev, &sm_clock, &sm_clock_max, &clock_source);
  }
  std::fflush(stdout);

  const bool check_bf16 = opt.dtype != "fp16";
  const bool check_fp16 = opt.dtype != "bf16";
  // With --dtype both, fp16 is checked on these M values (ragged and one power of two) only.
  const std::set<int64_t> fp16_subset = {1, 3, 17, 100, 1000, 1537, 4096, 5000};
  auto fp16_for = [&](int64_t m) {
    if (opt.dtype == "fp16") return true;
    if (opt.dtype == "bf16") return false;
    bool any = false;
    for (int64_t v : ms) any = any || fp16_subset.count(v);
    return any ? fp16_subset.count(m) > 0 : true;
  };

  if (opt.check) {
    const double t0 = now_seconds();
    std::printf("\n== check: fp64 reference on the GPU; M <= %lld: all rows, else %d rows (first "
                "%d, last %d, %d spread evenly), always all columns; whole output scanned ==\n",
                static_cast<long long>(kAllRowsMaxM), kSubsetHead + kSubsetTail + kSubsetMiddle,
                kSubsetHead, kSubsetTail, kSubsetMiddle);
    std::printf("   pass: mismatch (> 1 ulp from the correctly rounded value) <= %s, no "
                "unwritten/overrun, rel L2 <= %.0fx the rounding error; layouts stacked, "
                "separate halves, separate allocation\n",
                opt.strict ? "0.01% (--strict)"
                           : "max(0.01%, 2x the cuBLASLt fp32-output baseline's share)",
                kMaxRelL2OverRounding);
    run_invalid_calls(ctx, &invalid);
    for (const auto& e : edges) {
      for (int d = 0; d < 2; ++d) {
        if ((d == 0 && !check_bf16) || (d == 1 && !check_fp16)) continue;
        CheckResult r = d == 0 ? check_problem<__nv_bfloat16>(ctx, e.m, e.k, e.i, e.ldx, e.ldw,
                                                              e.ld_out, true)
                               : check_problem<__half>(ctx, e.m, e.k, e.i, e.ldx, e.ldw, e.ld_out,
                                                       true);
        ++check_cases;
        strict_failed += !r.pass_strict;
        if (!r.pass) {
          ++check_failed;
          ctx.failures++;
        }
        std::printf("  edge %-5s M=%-4lld K=%-5lld I=%-5lld ldx=%-5lld ldw=%-5lld ld_out=%-5lld "
                    "mismatch=%.4f%% (cublas %.4f%%) max_ulp=%.3g rel_l2=%.3e unwritten=%lld "
                    "overrun=%lld %s %s\n",
                    r.dtype.c_str(), (long long)e.m, (long long)e.k, (long long)e.i,
                    (long long)e.ldx, (long long)e.ldw, (long long)e.ld_out, r.mismatch_pct,
                    r.base_mismatch_pct, r.max_ulp, r.rel_l2, (long long)r.unwritten, (long long)r.overrun,
                    r.pass ? "PASS" : "FAIL", r.status.c_str());
        std::fflush(stdout);
        edge_results.emplace_back(e, r);
      }
    }
    for (auto& r : rows) {
      for (int d = 0; d < 2; ++d) {
        if (d == 0 && !check_bf16) continue;
        if (d == 1 && !(check_fp16 && fp16_for(r.m))) continue;
        CheckResult c = d == 0 ? check_problem<__nv_bfloat16>(ctx, r.m, r.k, r.i, r.k, r.k, r.i,
                                                              false)
                               : check_problem<__half>(ctx, r.m, r.k, r.i, r.k, r.k, r.i, false);
        ++check_cases;
        strict_failed += !c.pass_strict;
        if (!c.pass) {
          ++check_failed;
          ctx.failures++;
        }
        std::printf("  check %-13s M=%-6lld %-5s rows=%-5lld mismatch=%.4f%% (cublas %.4f%%, "
                    "limit %.4f%%) max_ulp=%.3g rel_l2=%.3e (rounding %.3e) unwritten=%lld "
                    "overrun=%lld %s %s [%.1fs]\n",
                    r.model.c_str(), (long long)r.m, c.dtype.c_str(), (long long)c.check_rows,
                    c.mismatch_pct, c.base_mismatch_pct, c.limit_pct, c.max_ulp, c.rel_l2, c.rel_l2_rounding,
                    (long long)c.unwritten, (long long)c.overrun, c.pass ? "PASS" : "FAIL",
                    c.status.c_str(), now_seconds() - t0);
        std::fflush(stdout);
        (d == 0 ? r.bf16 : r.fp16) = c;
      }
    }
    std::printf("check: %d cases, %d failed (%d above the strict 0.01%% mismatch limit), %zu "
                "invalid calls; %.1f s\n",
                check_cases, check_failed, strict_failed, invalid.size(), now_seconds() - t0);
    std::fflush(stdout);
  }

  if (opt.bench) {
    const double t0 = now_seconds();
    std::printf("\n== bench (%s): median us, L2 flushed before each timed run ==\n",
                opt.dtype == "fp16" ? "fp16" : "bf16");
    for (auto& r : rows) {
      if (opt.dtype == "fp16")
        bench_case<__half>(ctx, &r);
      else
        bench_case<__nv_bfloat16>(ctx, &r);
      std::printf("  bench %-13s M=%-6lld ours %9.2f  gemm %9.2f  gemm+silu %9.2f  eager %9.2f",
                  r.model.c_str(), (long long)r.m, r.ours.median_us, r.gemm.median_us,
                  r.gemm_silu.median_us, r.eager.median_us);
      if (r.graphed)
        std::printf("  | graph: ours %7.2f gemm %7.2f gemm+silu %7.2f eager %7.2f",
                    r.ours_graph.median_us, r.gemm_graph.median_us, r.gemm_silu_graph.median_us,
                    r.eager_graph.median_us);
      std::printf("  [%.1fs]\n", now_seconds() - t0);
      if (r.ab.ran) {
        if (!r.ab.error.empty())
          std::printf("    table-ab ERROR %s\n", r.ab.error.c_str());
        else if (r.ab.rounds == 0)
          std::printf("    table-ab same config %s\n", r.ab.table_config.c_str());
        else
          std::printf("    table-ab default %s %.2f us, table %s %.2f us: %.4f (noise %.4f, %d "
                      "rounds) %s\n",
                      r.ab.default_config.c_str(), r.ab.default_us, r.ab.table_config.c_str(),
                      r.ab.table_us, r.ab.table_us / r.ab.default_us, r.ab.noise, r.ab.rounds,
                      r.ab.pass ? "ok" : "SLOWER BEYOND NOISE");
      }
      if (!r.read_knobs.empty()) {
        std::printf("    read knobs, %s (%d rounds):", r.config.c_str(), r.read_knob_rounds);
        for (const auto& k : r.read_knobs) {
          if (!k.skipped.empty()) {
            std::printf("  %s skipped: %s", k.setting.c_str(), k.skipped.c_str());
            continue;
          }
          std::printf("  %s %.2f us (%.4f, noise %.3f, %lld differ)", k.setting.c_str(), k.us, k.us / r.read_knobs[0].us,
                      k.noise, static_cast<long long>(k.differ));
        }
        std::printf("\n");
      }
      for (const auto& t : r.tuned) {
        std::string rounds;
        for (size_t j = 1; j < t.rounds.size(); ++j) rounds += " " + std::to_string(t.rounds[j]);
        std::printf("    tune %-34s %9.2f us%s%s%s%s%s\n", t.config.c_str(), t.t.median_us,
                    t.graph.runs > 0 ? (" graph " + std::to_string(t.graph.median_us)).c_str() : "",
                    rounds.empty() ? "" : " | re-timed:", rounds.c_str(),
                    rounds.empty() ? "" : (" | score " + std::to_string(t.score_us())).c_str(),
                    t.config == r.incumbent ? " (incumbent)" : "");
      }
      std::fflush(stdout);
    }
    std::printf("bench: %zu cases; %.1f s\n", rows.size(), now_seconds() - t0);
    if (!opt.ab_table.empty()) {
      const TableAbSummary a = summarize_table_ab(rows);
      std::printf("table-ab %s: %d rows, %d with a config other than the default's, %d slower "
                  "beyond noise, %d errors; worst table/default %.4f (%s)\n",
                  opt.ab_table.c_str(), a.rows, a.differ, a.beyond_noise, a.errors, a.worst_ratio,
                  a.worst_row.c_str());
    }
    if (opt.ceilings) {
      // After the cases: the weight buffer holds their random weights, not untouched memory.
      for (const auto& md : models) {
        probes.push_back(measure_stream_probe(ctx, md, b.w));
        const StreamProbe& sp = probes.back();
        std::printf("  stream %-13s %7.1f MB: ld.global %8.2f us = %.2f TB/s, bulk copy %8.2f us = %.2f TB/s, "
                    "tile order %8.2f us = %.2f TB/s, bulk on %d CTAs %8.2f us = %.2f TB/s, bulk cooperative %8.2f us "
                    "(graph replay, L2 flushed)\n",
                    sp.model.c_str(), sp.bytes * 1e-6, sp.ld_global_us, sp.bytes / sp.ld_global_us * 1e-6,
                    sp.bulk_us, sp.bytes / sp.bulk_us * 1e-6, sp.tiles_us, sp.bytes / sp.tiles_us * 1e-6, sp.bal_ctas,
                    sp.bulk_bal_us, sp.bytes / sp.bulk_bal_us * 1e-6, sp.bulk_coop_us);
        for (int v = 0; v < stream_probe::kTmaTilesVariantCount; ++v) {
          std::printf("    %-26s %8.2f us = %.2f TB/s\n", stream_probe::kTmaTilesVariants[v].name, sp.tma_tiles_us[v],
                      sp.bytes / sp.tma_tiles_us[v] * 1e-6);
        }
      }
      std::fflush(stdout);
    }
    if (!opt.tune.empty()) {
      if (!write_tuning_table(opt.tune, dev, opt.dtype == "fp16" ? "fp16" : "bf16", rows)) return 2;
      std::printf("wrote tuning table %s\n", opt.tune.c_str());
    }
  }

  // Summary table.
  std::printf("\n%-13s %6s %-28s %10s %7s %6s %8s %9s %8s %9s %8s %9s\n", "model", "M",
              "config", "ours_us", "TFLOP/s", "%989", "o/gemm", "o/g+silu", "o/eager",
              "mismatch%", "cublas%", "rel_l2");
  for (const auto& r : rows) {
    const double tf = flops_of(r) / (r.ours.median_us * 1e-6) / 1e12;
    const CheckResult& c = r.bf16.ran ? r.bf16 : r.fp16;
    std::printf("%-13s %6lld %-28s %10.2f %7.1f %6.1f %8.3f %9.3f %8.3f %9.4f %8.4f %9.2e%s\n",
                r.model.c_str(), (long long)r.m, r.config.c_str(), r.ours.median_us, tf,
                100.0 * tf / kBf16DensePeakTflops, ratio(r.ours, r.gemm),
                ratio(r.ours, r.gemm_silu), ratio(r.ours, r.eager), c.mismatch_pct,
                c.base_mismatch_pct, c.rel_l2,
                c.ran && !(c.pass && (!r.fp16.ran || r.fp16.pass)) ? "  FAIL" : "");
  }
  // Geometric means of time ratios (below 1: tileglu is faster).
  struct Summary {
    std::string name;
    double g_gemm, g_gemm_silu, g_eager;
    int n;
  };
  std::vector<Summary> sums;
  auto summarize = [&](const std::string& name, const std::function<bool(int64_t)>& sel) {
    std::vector<double> a, c, d;
    for (const auto& r : rows)
      if (sel(r.m) && r.benched) {
        a.push_back(ratio(r.ours, r.gemm));
        c.push_back(ratio(r.ours, r.gemm_silu));
        d.push_back(ratio(r.ours, r.eager));
      }
    sums.push_back({name, geomean(a), geomean(c), geomean(d), static_cast<int>(a.size())});
  };
  summarize("M in {2048,4096,8192,16384}",
            [](int64_t m) { return m == 2048 || m == 4096 || m == 8192 || m == 16384; });
  summarize("M >= 128", [](int64_t m) { return m >= 128; });
  if (opt.bench) {
    std::printf("\ngeometric means of time ratios (ours / baseline; below 1 = tileglu faster):\n");
    for (const auto& s : sums)
      std::printf("  %-28s n=%-4d ours/gemm %.3f  ours/(gemm+silu) %.3f  ours/eager %.3f\n",
                  s.name.c_str(), s.n, s.g_gemm, s.g_gemm_silu, s.g_eager);
  }
  const bool all_pass = ctx.failures == 0;
  if (opt.check)
    std::printf("\nchecks: %s (%d failures)\n", all_pass ? "ALL PASSED" : "FAILED", ctx.failures);

  // JSON.
  FILE* f = std::fopen(opt.out.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", opt.out.c_str());
    return 2;
  }
  const char* commit = std::getenv("TILEGLU_COMMIT");
  const char* forced = std::getenv("TILEGLU_FORCE_CONFIG");
  std::fprintf(f, "{\n");
  std::fprintf(f, "  \"commit\": %s,\n", jstr(commit ? commit : "unknown").c_str());
  std::fprintf(f, "  \"device\": %s,\n", jstr(dev.name).c_str());
  std::fprintf(f, "  \"sm_count\": %d,\n", dev.sm_count);
  std::fprintf(f, "  \"l2_bytes\": %lld,\n", static_cast<long long>(dev.l2_bytes));
  std::fprintf(f, "  \"sm_clock_mhz\": %s,\n", jnum(sm_clock).c_str());
  std::fprintf(f, "  \"sm_clock_max_mhz\": %s,\n", jnum(sm_clock_max).c_str());
  std::fprintf(f, "  \"sm_clock_source\": %s,\n", jstr(clock_source).c_str());
  std::fprintf(f,
               "  \"ceilings\": {\"d2d_copy_bytes\": %s, \"d2d_copy_us\": %s, "
               "\"d2d_copy_GBps_read_plus_write\": %s, \"cublas_bf16_8192_us\": %s, "
               "\"cublas_bf16_8192_tflops\": %s, \"bf16_dense_peak_tflops_datasheet\": %s},\n",
               jint(static_cast<int64_t>(ceil.copy_bytes)).c_str(), jnum(ceil.copy_us).c_str(),
               jnum(ceil.copy_gbps_rw).c_str(), jnum(ceil.cublas_8192_us).c_str(),
               jnum(ceil.cublas_8192_tflops).c_str(), jnum(kBf16DensePeakTflops).c_str());
  std::fprintf(f, "  \"stream_probe\": [");
  for (size_t j = 0; j < probes.size(); ++j) {
    const StreamProbe& sp = probes[j];
    std::fprintf(f,
                 "%s{\"model\": %s, \"bytes\": %s, \"ld_global_graph_us\": %s, \"bulk_graph_us\": %s, "
                 "\"tiles_graph_us\": %s, \"bulk_bal_ctas\": %d, \"bulk_bal_graph_us\": %s, "
                 "\"bulk_cooperative_graph_us\": %s",
                 j ? ", " : "", jstr(sp.model).c_str(), jint(static_cast<int64_t>(sp.bytes)).c_str(),
                 jnum(sp.ld_global_us).c_str(), jnum(sp.bulk_us).c_str(), jnum(sp.tiles_us).c_str(), sp.bal_ctas,
                 jnum(sp.bulk_bal_us).c_str(), jnum(sp.bulk_coop_us).c_str());
    for (int v = 0; v < stream_probe::kTmaTilesVariantCount; ++v) {
      std::fprintf(f, ", \"%s_graph_us\": %s", stream_probe::kTmaTilesVariants[v].name, jnum(sp.tma_tiles_us[v]).c_str());
    }
    std::fprintf(f, "}");
  }
  std::fprintf(f, "],\n");
  std::fprintf(f, "  \"date\": %s,\n", jstr(utc_date()).c_str());
  std::fprintf(f, "  \"forced_config\": %s,\n", forced ? jstr(forced).c_str() : "null");
  {
    char buf[256];
    std::string m = "{\"bench_dtype\": " + jstr(opt.dtype == "fp16" ? "fp16" : "bf16");
    m += ", \"l2_flush_bytes\": " + jint(static_cast<int64_t>(dev.flush_bytes));
    m += ", \"l2_flush\": " + jstr(dev.flush_clean ? "clean: memset 2x L2, then read it back"
                                                   : "write: memset 2x L2");
    std::snprintf(buf, sizeof(buf),
                  "median of CUDA-event-timed runs, L2 flushed before each; warm-up >= %d runs and "
                  ">= %.0f ms; ",
                  ctx.topt.warmup_min_runs, ctx.topt.warmup_ms);
    std::string timing = buf;
    if (opt.reps > 0) {
      timing += "fixed " + std::to_string(opt.reps) + " timed runs";
    } else {
      std::snprintf(buf, sizeof(buf), "adaptive ~%.0f ms of timed runs, %d..%d runs",
                    ctx.topt.target_ms, ctx.topt.min_runs, ctx.topt.max_runs);
      timing += buf;
    }
    if (opt.rounds > 1)
      timing += "; variants timed in " + std::to_string(opt.rounds) +
                " interleaved rounds (rotated order), median of the round medians";
    m += ", \"timing\": " + jstr(timing);
    m += ", \"rounds\": " + jint(opt.rounds);
    m += ", \"graph\": " + jstr("M <= 64: " + std::to_string(ctx.topt.graph_calls) +
                                 " calls per graph, each preceded by the L2 flush and bracketed by "
                                 "external event nodes; per-call median");
    std::snprintf(buf, sizeof(buf),
                  "all rows when M <= %lld, else the first %d, the last %d and %d spread evenly; "
                  "all columns; the whole output scanned for unwritten/NaN/Inf",
                  static_cast<long long>(kAllRowsMaxM), kSubsetHead, kSubsetTail, kSubsetMiddle);
    m += ", \"check_rows\": " + jstr(buf);
    m += ", \"ratios\": " + jstr("time ratios ours_us / baseline_us (below 1: tileglu faster)");
    std::snprintf(buf, sizeof(buf),
                  "mismatch_pct <= mismatch_limit_pct (%s), unwritten == 0, overrun == 0, rel_l2 "
                  "<= %.0f x rel_l2_rounding, in all three layouts",
                  opt.strict ? "strict: 0.01" : "max(0.01, 2 x baseline_mismatch_pct)",
                  kMaxRelL2OverRounding);
    m += ", \"pass\": " + jstr(buf);
    m += ", \"mismatch_baseline\": " +
         jstr("cuBLASLt GEMM of the same rows, fp32 accumulation and fp32 output, SwiGLU in fp32 "
              "(__expf), rounded once");
    m += "}";
    std::fprintf(f, "  \"method\": %s,\n", m.c_str());
  }
  std::fprintf(f, "  \"checks_ran\": %s,\n", opt.check ? "true" : "false");
  std::fprintf(f, "  \"all_checks_passed\": %s,\n", opt.check ? (all_pass ? "true" : "false") : "null");
  std::fprintf(f, "  \"check_cases\": %d,\n  \"check_failures\": %d,\n  \"strict_failures\": %d,\n",
               check_cases, check_failed, strict_failed);
  if (!opt.ab_table.empty()) {
    const TableAbSummary a = summarize_table_ab(rows);
    std::fprintf(f,
                 "  \"table_ab\": {\"table\": %s, \"rows\": %d, \"differ\": %d, "
                 "\"beyond_noise\": %d, \"errors\": %d, \"worst_table_over_default\": %s, "
                 "\"worst_row\": %s, \"method\": %s},\n",
                 jstr(opt.ab_table).c_str(), a.rows, a.differ, a.beyond_noise, a.errors,
                 jnum(a.worst_ratio).c_str(), jstr(a.worst_row).c_str(),
                 jstr("per row: the config the embedded default picks and the one the table "
                      "picks; where they differ both forced and timed in interleaved rounds "
                      "(graph replay at M <= 64, else CUDA events), median of the round medians; "
                      "pass: table_us <= default_us x (1 + noise), noise = the larger of the two "
                      "configs' (max - min) / median over the rounds")
                     .c_str());
  }
  std::fprintf(f, "  \"summary\": [");
  for (size_t s = 0; s < sums.size(); ++s)
    std::fprintf(f,
                 "%s\n    {\"select\": %s, \"n\": %d, \"geomean_ours_over_gemm\": %s, "
                 "\"geomean_ours_over_gemm_silu\": %s, \"geomean_ours_over_eager\": %s}",
                 s ? "," : "", jstr(sums[s].name).c_str(), sums[s].n, jnum(sums[s].g_gemm).c_str(),
                 jnum(sums[s].g_gemm_silu).c_str(), jnum(sums[s].g_eager).c_str());
  std::fprintf(f, "\n  ],\n  \"rows\": [");
  for (size_t n = 0; n < rows.size(); ++n) {
    const Row& r = rows[n];
    const double tf = flops_of(r) / (r.ours.median_us * 1e-6) / 1e12;
    std::string s = "{";
    s += "\"model\": " + jstr(r.model);
    s += ", \"M\": " + jint(r.m) + ", \"K\": " + jint(r.k) + ", \"I\": " + jint(r.i);
    s += ", \"kernel\": " + (r.kernel >= 0 ? jint(r.kernel) : std::string("null"));
    s += ", \"config\": " + jstr(r.config);
    s += ", \"ours_us\": " + jnum(r.ours.median_us);
    s += ", \"ours_tflops\": " + jnum(tf);
    s += ", \"ours_pct_of_989\": " + jnum(100.0 * tf / kBf16DensePeakTflops);
    s += ", \"cublas_gemm_us\": " + jnum(r.gemm.median_us);
    s += ", \"cublas_gemm_silu_us\": " + jnum(r.gemm_silu.median_us);
    s += ", \"cublas_eager_us\": " + jnum(r.eager.median_us);
    s += ", \"ours_over_gemm\": " + jnum(ratio(r.ours, r.gemm));
    s += ", \"ours_over_gemm_silu\": " + jnum(ratio(r.ours, r.gemm_silu));
    s += ", \"ours_over_eager\": " + jnum(ratio(r.ours, r.eager));
    s += ", \"timed_runs\": [" + jint(r.ours.runs) + ", " + jint(r.gemm.runs) + ", " +
         jint(r.gemm_silu.runs) + ", " + jint(r.eager.runs) + "]";
    const CheckResult& c = r.bf16.ran ? r.bf16 : r.fp16;
    s += ", \"mismatch_pct\": " + (c.ran ? jnum(c.mismatch_pct) : std::string("null"));
    s += ", \"max_ulp\": " + (c.ran ? jnum(c.max_ulp) : std::string("null"));
    s += ", \"rel_l2\": " + (c.ran ? jnum(c.rel_l2) : std::string("null"));
    s += ", \"rel_l2_rounding\": " + (c.ran ? jnum(c.rel_l2_rounding) : std::string("null"));
    s += ", \"unwritten\": " + (c.ran ? jint(c.unwritten) : std::string("null"));
    s += ", \"overrun\": " + (c.ran ? jint(c.overrun) : std::string("null"));
    s += ", \"check_rows\": " + (c.ran ? jint(c.check_rows) : std::string("null"));
    s += ", \"check_dtype\": " + (c.ran ? jstr(c.dtype) : std::string("null"));
    s += ", \"check_pass\": " + (c.ran ? std::string(c.pass ? "true" : "false") : "null");
    s += ", \"check_pass_strict\": " +
         (c.ran ? std::string(c.pass_strict ? "true" : "false") : "null");
    s += ", \"baseline_mismatch_pct\": " + (c.ran ? jnum(c.base_mismatch_pct) : std::string("null"));
    s += ", \"mismatch_limit_pct\": " + (c.ran ? jnum(c.limit_pct) : std::string("null"));
    if (r.bf16.ran && r.fp16.ran) s += ", \"fp16_check\": " + check_json(r.fp16);
    if (!c.status.empty()) s += ", \"check_status\": " + jstr(c.status);
    if (!r.tuned.empty()) {
      s += ", \"tuned\": [";
      for (size_t t = 0; t < r.tuned.size(); ++t) {
        s += std::string(t ? ", " : "") + "{\"config\": " + jstr(r.tuned[t].config) +
             ", \"us\": " + jnum(r.tuned[t].t.median_us) + ", \"score_us\": " + jnum(r.tuned[t].score_us()) +
             ", \"incumbent\": " + (r.tuned[t].config == r.incumbent ? "true" : "false") +
             ", \"graph_us\": " + (r.tuned[t].graph.runs > 0 ? jnum(r.tuned[t].graph.median_us) : std::string("null")) + "}";
      }
      s += "]";
    }
    if (r.ab.ran) s += ", \"table_ab\": " + table_ab_json(r.ab);
    if (!r.read_knobs.empty()) s += ", \"read_knobs\": " + read_knobs_json(r);
    if (r.graphed) {
      s += ", \"ours_graph_us\": " + jnum(r.ours_graph.median_us);
      s += ", \"cublas_gemm_graph_us\": " + jnum(r.gemm_graph.median_us);
      s += ", \"cublas_gemm_silu_graph_us\": " + jnum(r.gemm_silu_graph.median_us);
      s += ", \"cublas_eager_graph_us\": " + jnum(r.eager_graph.median_us);
    }
    s += "}";
    std::fprintf(f, "%s\n    %s", n ? "," : "", s.c_str());
  }
  std::fprintf(f, "\n  ],\n  \"edge_cases\": [");
  for (size_t n = 0; n < edge_results.size(); ++n) {
    const auto& e = edge_results[n].first;
    const auto& c = edge_results[n].second;
    std::fprintf(f,
                 "%s\n    {\"what\": %s, \"M\": %lld, \"K\": %lld, \"I\": %lld, \"ldx\": %lld, "
                 "\"ldw\": %lld, \"ld_out\": %lld, \"result\": %s}",
                 n ? "," : "", jstr(e.what).c_str(), (long long)e.m, (long long)e.k,
                 (long long)e.i, (long long)e.ldx, (long long)e.ldw, (long long)e.ld_out,
                 check_json(c).c_str());
  }
  std::fprintf(f, "\n  ],\n  \"invalid_calls\": [");
  for (size_t n = 0; n < invalid.size(); ++n) {
    const auto& v = invalid[n];
    std::fprintf(f,
                 "%s\n    {\"call\": %s, \"expected\": %s, \"got\": %s, \"output_touched\": %lld, "
                 "\"has_message\": %s, \"pass\": %s}",
                 n ? "," : "", jstr(v.name).c_str(), jstr(v.expected).c_str(),
                 jstr(v.got).c_str(), (long long)v.touched, v.message ? "true" : "false",
                 v.pass ? "true" : "false");
  }
  std::fprintf(f, "\n  ],\n  \"wall_s\": %s\n}\n", jnum(now_seconds() - t_start).c_str());
  std::fclose(f);
  std::printf("wrote %s; total %.1f s\n", opt.out.c_str(), now_seconds() - t_start);
  // --ab-table: a row whose table config ran slower beyond noise (or could not be compared)
  // fails the run like a failed check.
  bool ab_ok = true;
  if (!opt.ab_table.empty()) {
    const TableAbSummary a = summarize_table_ab(rows);
    ab_ok = a.beyond_noise == 0 && a.errors == 0;
  }
  return all_pass && ab_ok ? 0 : 1;
}
