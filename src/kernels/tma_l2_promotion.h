// Which L2 promotion the kernels' weight TMA descriptors get (sm90_tma_l2_promotion.hpp applies
// it). Host code, defined in tma_l2_promotion.cpp and kept out of the kernel headers' inline code,
// so that a rule measured on a new device rebuilds no kernel.
#pragma once

namespace tileglu::kernels {

// How a kernel family reads its weights, which decides what the promotion does for it:
enum class WeightReader {
  kSwapABStream,    // the swap-AB decode kernels: each weight byte once, 64-row x 128-byte boxes
  kSwapABPingpong,  // the swap-AB Pingpong/Cooperative prefill kernels: 8-row x 128-byte boxes
  kTiled,           // the shared mainloop's tile kernels: weight tiles re-read by every row tile
};

// The promotion in bytes (1: none) where TILEGLU_TMA_L2_PROMOTION is unset, for a device of this
// name (cudaDeviceProp::name) and reader. Pure; the measurements behind it are at its definition.
int default_weight_tma_l2_promotion(const char* device_name, WeightReader reader);

// The promotion for this call: TILEGLU_TMA_L2_PROMOTION (read on every call, like the other
// knobs; a bad value is named once per process), else the current device's default, its name read
// once per device.
int weight_tma_l2_promotion(WeightReader reader);

}  // namespace tileglu::kernels
