// The weight descriptors' L2 promotion for a call (tma_l2_promotion.h).
#include "tma_l2_promotion.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime_api.h>

#include "decode_plan.h"
#include "device_name.h"

namespace tileglu::kernels {

// By the device's name, since the better promotion differs between the two cards measured, each
// A/B'd in one process against the other setting (5 interleaved rounds; decode under graph
// replay; bench/NOTES.md):
// - H100 SXM ("NVIDIA H100 80GB HBM3"), session 16, the swap-AB decode kernels at M = 1 and 16 of
//   every Qwen2.5 shape: 256 bytes 1.1-4.4 % faster than 128 from 1.5B up, noise 0.1-1.2 %; 0.5B
//   even. The other readers were not measured there; they follow the decode kernels.
// - H200, session 17, the dispatched config at M = 1, 16, 256, 1537 and 4096 of every shape:
//   decode 128 bytes 1-5.7 % faster than 256 (72B M = 1: 223.7 against 237.2 us), noise 0.1-2 %;
//   the read probes agree (the kernels' TMA order at 72B: 234.7 us at 128, 239.7 at 256). The
//   prefill rows within their noise (1.3-12.6 %) either way.
// Any other device keeps CuTe's 128: nothing was measured there.
int default_weight_tma_l2_promotion(const char* device_name, WeightReader /*reader*/) {
  return device_name != nullptr && std::strstr(device_name, "H100") != nullptr ? 256 : 128;
}

namespace {

// The current device's default_weight_tma_l2_promotion for `reader`, by its name read once per
// device (device_name.h); where the device cannot be read, CuTe's 128.
int device_default_promotion(WeightReader reader) {
  int device = -1;
  const char* name = nullptr;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 128;
  }
  if (cached_device_name(device, &name) != cudaSuccess) return 128;
  return default_weight_tma_l2_promotion(name, reader);
}

}  // namespace

int weight_tma_l2_promotion(WeightReader reader) {
  static std::atomic<bool> warned{false};
  char const* env = std::getenv("TILEGLU_TMA_L2_PROMOTION");
  int const promotion = parse_tma_l2_promotion(env);
  if (promotion > 0) return promotion;
  int const fallback = device_default_promotion(reader);
  if (promotion < 0 && !warned.exchange(true)) {
    std::fprintf(stderr,
                 "tileglu: warning: TILEGLU_TMA_L2_PROMOTION=%s is not none, 64, 128 or 256; the device's %d stays\n",
                 env, fallback);
  }
  return fallback;
}

}  // namespace tileglu::kernels
