// Torch-free, CUDA-kernel-free description of one SwiGLU forward and of the compiled kernel
// configurations. Shared by the C API (src/api), the heuristics (src/dispatch) and the kernel
// translation units (src/kernels/instantiations). Host code only needs <cuda_runtime_api.h>.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace tileglu {

enum class DType : int { kBF16 = 0, kFP16 = 1 };

// A validated problem: every pointer non-null and 16-byte aligned, m/k/i > 0, k/i and every
// leading dimension a multiple of 8, no aliasing of out with an input (src/api/validate.cpp).
struct SwigluParams {
  int m = 0;  // tokens
  int k = 0;  // hidden size
  int i = 0;  // intermediate size
  const void* x = nullptr;       // [m, k] row-major, leading dimension ldx
  int64_t ldx = 0;
  const void* w_gate = nullptr;  // [i, k] row-major
  int64_t ld_gate = 0;
  const void* w_up = nullptr;    // [i, k] row-major
  int64_t ld_up = 0;
  void* out = nullptr;           // [m, i] row-major
  int64_t ld_out = 0;
};

// What the config query reports and the heuristics choose between.
struct KernelConfig {
  const char* name;  // unique, e.g. "k2_pingpong_128x64x64_s6"
  int kernel;        // 1 = Kernel-1 (separate gate and up accumulators), 2 = Kernel-2 (one
                     // accumulator over [gate | up] tiles); SwiGLU in the epilogue either way
  int tile_m;        // rows of X per output tile (one consumer warpgroup's, or both's);
                     // decode kernels: tokens per CTA
  int tile_n;        // output columns per tile (GEMM tile is 2 * tile_n wide); decode kernels:
                     // output columns per warp
  int tile_k;        // decode kernels: k per batch of loads in flight
  int stages;
  int cluster_m;
  int cluster_n;
  int promote_k_tiles;  // 0: tensor-core accumulation only; P > 0: FADD-promoted every P k tiles
  int split_k;          // 1: one CTA per output tile (Pingpong); S > 1: a cluster of S CTAs
                        // splits each tile's K and reduces through DSMEM (sm90_swiglu_splitk.hpp).
                        // Decode kernels: 1; they split K across a CTA's warps (decode_plan.h)
  // Whether the cost model (src/dispatch) may pick it for a shape no measured table covers.
  // Configs without a measured standing there (Kernel-1, split-K, the tiles added for the tuner)
  // run only from a measured table or when forced.
  bool cost_model_candidate;
  // A benchmark-only variant (the serialized-epilogue ablation): never chosen by the tuner, a
  // table or the cost model; runs only when forced.
  bool ablation;
  // 0: any M. Otherwise the largest M the config serves: the decode kernels
  // (sm90_swiglu_decode.hpp) re-read every weight per block of tile_m tokens, which is what
  // decode wants and ruinous at prefill sizes, so the tuner and tables never see them there.
  int max_m = 0;
};

// Launches the kernel on `stream` for a validated problem. `sm_count` is the current device's
// multiprocessor count (persistent grid size). Returns the launch's cudaError_t.
using LaunchFn = cudaError_t (*)(const SwigluParams& params, int sm_count, cudaStream_t stream);

struct KernelEntry {
  KernelConfig config;
  LaunchFn launch_bf16;
  LaunchFn launch_fp16;
};

namespace kernels {
// Devices whose occupancy the launchers remember; later ordinals query on every launch.
inline constexpr int kMaxCachedDevices = 64;
}  // namespace kernels

// Every shipped configuration, in a fixed order (src/kernels/registry.cpp).
const KernelEntry* kernel_registry(int* count);

}  // namespace tileglu
