#include "swiglu_ref.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tileglu {
namespace reference {
namespace {

// Rows of x converted to fp64 at a time: each weight row is converted once per block, so the
// conversions cost 1/kRowBlock of the multiply-adds while the block stays small.
constexpr int64_t kRowBlock = 32;

template <typename Store>
void swiglu_blocked(Format format, int64_t m, int64_t k, int64_t i, const uint16_t* x,
                    int64_t ldx, const uint16_t* w_gate, int64_t ld_gate, const uint16_t* w_up,
                    int64_t ld_up, Store store) {
  std::vector<double> xs(static_cast<size_t>(std::min(m, kRowBlock) * k));
  std::vector<double> gate(static_cast<size_t>(k)), up(static_cast<size_t>(k));
  for (int64_t r0 = 0; r0 < m; r0 += kRowBlock) {
    const int64_t rows = std::min(kRowBlock, m - r0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t kk = 0; kk < k; ++kk) {
        xs[r * k + kk] = to_double(format, x[(r0 + r) * ldx + kk]);
      }
    }
    for (int64_t c = 0; c < i; ++c) {
      for (int64_t kk = 0; kk < k; ++kk) {
        gate[kk] = to_double(format, w_gate[c * ld_gate + kk]);
        up[kk] = to_double(format, w_up[c * ld_up + kk]);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const double* xr = &xs[r * k];
        double g = 0.0, u = 0.0;
        for (int64_t kk = 0; kk < k; ++kk) {
          g += xr[kk] * gate[kk];
          u += xr[kk] * up[kk];
        }
        store(r0 + r, c, swiglu_value(g, u));
      }
    }
  }
}

}  // namespace

double swiglu_value(double g, double u) { return g / (1.0 + std::exp(-g)) * u; }

void swiglu_ref_f64(Format format, int64_t m, int64_t k, int64_t i, const uint16_t* x,
                    int64_t ldx, const uint16_t* w_gate, int64_t ld_gate, const uint16_t* w_up,
                    int64_t ld_up, double* out, int64_t ld_out) {
  swiglu_blocked(format, m, k, i, x, ldx, w_gate, ld_gate, w_up, ld_up,
                 [&](int64_t r, int64_t c, double v) { out[r * ld_out + c] = v; });
}

void swiglu_ref(Format format, int64_t m, int64_t k, int64_t i, const uint16_t* x, int64_t ldx,
                const uint16_t* w_gate, int64_t ld_gate, const uint16_t* w_up, int64_t ld_up,
                uint16_t* out, int64_t ld_out) {
  swiglu_blocked(format, m, k, i, x, ldx, w_gate, ld_gate, w_up, ld_up,
                 [&](int64_t r, int64_t c, double v) { out[r * ld_out + c] = round_to(format, v); });
}

}  // namespace reference
}  // namespace tileglu
