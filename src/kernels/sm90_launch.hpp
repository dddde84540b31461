// Host-side launch plumbing shared by the kernel families' launchers (Pingpong/Cooperative,
// split-K, swap-AB, decode): a launch configuration with an optional thread-block cluster, a
// per-device cache for what the launchers ask the driver once, and the one macro that defines a
// config's launch_<name>_<dtype> entry point in its instantiations/ translation unit.
#pragma once

#include <atomic>
#include <cstdint>

#include <cuda_runtime.h>

#include "swiglu_params.h"

namespace tileglu::kernels {

// The most dynamic shared memory an SM90 CTA may opt in to (227 KiB).
inline constexpr int kSm90MaxSmemPerCta = 232448;

// The contract between a launcher and its kernel over dynamic shared memory: the TMA kernels'
// SharedStorage holds 128-byte-swizzled tiles, which need 1024-byte alignment, while a dynamic
// allocation is only guaranteed 16. The launch asks for smem_bytes_with_alignment_slack() and
// the kernel rounds its base up with aligned_shared_storage(); both take the alignment from here,
// so the slack always covers the rounding.
inline constexpr int kSmemTileAlignment = 1024;

template <class SharedStorage>
constexpr int smem_bytes_with_alignment_slack() {
  // aligned_shared_storage rounds to kSmemTileAlignment only: a SharedStorage that needs more
  // would be misplaced.
  static_assert(alignof(SharedStorage) <= kSmemTileAlignment, "SharedStorage needs more alignment than the rounding gives");
  constexpr int bytes = int(sizeof(SharedStorage)) + kSmemTileAlignment;
  static_assert(bytes <= kSm90MaxSmemPerCta, "exceeds the 227 KiB of shared memory an SM90 CTA may use");
  return bytes;
}

template <class SharedStorage>
__device__ __forceinline__ SharedStorage& aligned_shared_storage(char* smem_raw) {
  constexpr uintptr_t kMask = uintptr_t(kSmemTileAlignment) - 1;
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + kMask) & ~kMask);
}

// cudaLaunchKernelEx's configuration for `threads`-thread CTAs with `smem_bytes` of dynamic
// shared memory on `stream`, in clusters of cluster_x x cluster_y CTAs when that is more than one
// (the grid must be whole clusters in each dimension).
struct Sm90Launch {
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute cluster = {};

  Sm90Launch(dim3 grid, int threads, int smem_bytes, cudaStream_t stream, unsigned cluster_x = 1,
             unsigned cluster_y = 1) {
    config.gridDim = grid;
    config.blockDim = dim3(unsigned(threads), 1, 1);
    config.dynamicSmemBytes = size_t(smem_bytes);
    config.stream = stream;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = cluster_x;
    cluster.val.clusterDim.y = cluster_y;
    cluster.val.clusterDim.z = 1;
  }

  // The configuration to launch or query with; points into this object, so use it in place.
  cudaLaunchConfig_t const* get() {
    bool const clustered = cluster.val.clusterDim.x * cluster.val.clusterDim.y > 1;
    config.attrs = clustered ? &cluster : nullptr;
    config.numAttrs = clustered ? 1 : 0;
    return &config;
  }

  // The launch's own status; an error left earlier in the caller's thread is not ours to report.
  template <class Params>
  cudaError_t launch(void (*kernel)(Params), Params const& params) {
    return cudaLaunchKernelEx(get(), kernel, params);
  }
};

// A cooperative launch of `grid` CTAs of `threads` threads and `smem_bytes` of dynamic shared
// memory: every CTA resident at once, which the grid stream-K and split-tail kernels need (their
// CTAs wait on each other's partials). Where this context has
// fewer SMs than the device (MPS, green contexts) the driver refuses the grid; then a grid half as
// large is tried. `plan(grid, params)` fits the parameters to each grid tried.
template <class Params, class Plan>
cudaError_t launch_cooperative_shrinking(void (*kernel)(Params), Params params, int grid, int threads,
                                         int smem_bytes, cudaStream_t stream, Plan const& plan) {
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  for (;;) {
    plan(grid, params);
    Sm90Launch launch(dim3(unsigned(grid), 1, 1), threads, smem_bytes, stream);
    cudaLaunchConfig_t config = *launch.get();
    config.attrs = &cooperative;
    config.numAttrs = 1;
    cudaError_t const status = cudaLaunchKernelEx(&config, kernel, params);
    if (status != cudaErrorCooperativeLaunchTooLarge || grid == 1) return status;
    (void)cudaGetLastError();  // the refused launch's error is not the caller's
    grid = (grid + 1) / 2;
  }
}

// A positive value asked of the driver once per device: `query()` runs the first time a device
// asks (every time for ordinals past kMaxCachedDevices, or when the current device is unknown)
// and returns it, or <= 0 on failure, which is returned uncached for the caller's fallback. One
// cache per Query type: each launcher's lambda, per kernel, has its own.
template <class Query>
int once_per_device(Query const& query) {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return query();
  }
  int value = device < kMaxCachedDevices ? cache[device].load() : 0;
  if (value <= 0) {
    value = query();
    if (value > 0 && device < kMaxCachedDevices) cache[device].store(value);
  }
  return value;
}

// How many clusters of kClusterX x kClusterY CTAs of Kernel's launch function `kernel` (its
// threads and dynamic shared memory) fit on the device at once, or 0 when the query fails: asked
// of the driver once per device (the lambda is a distinct type per Kernel and cluster shape, so
// each has its own cache). Why ask: the answer depends on how the device's SMs group into GPCs
// (an H200 fits 39 clusters of 3 but 66 of 2, session 11), not on the SM count alone.
template <class Kernel, int kClusterX, int kClusterY = 1, class Params>
int max_active_clusters_once(void (*kernel)(Params), cudaStream_t stream) {
  return once_per_device([&] {
    Sm90Launch probe(dim3(unsigned(kClusterX), unsigned(kClusterY), 1), Kernel::kThreads, Kernel::kSmemBytes,
                     stream, unsigned(kClusterX), unsigned(kClusterY));
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, probe.get()) != cudaSuccess) {
      (void)cudaGetLastError();  // the query's own error: the caller's fallback decides
      return 0;
    }
    return clusters;
  });
}

// The opt-in of Kernel's launch function `kernel` to `smem_bytes` of dynamic shared memory (past
// the 48 KiB default), made once per device: a driver call on every launch costs what a decode
// kernel's launch is worth. Returns the opt-in's error when it fails (then not cached).
template <class Kernel, class KernelFn>
cudaError_t opt_in_shared_memory_once(KernelFn* kernel, int smem_bytes) {
  cudaError_t err = cudaSuccess;
  // The lambda is a distinct type per Kernel: each kernel has its own cache.
  once_per_device([&] {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    return err == cudaSuccess ? 1 : 0;
  });
  return err;
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/: defines launch_<name>_<dtype>, which
// runs `launcher` on KernelT<Element, ...>. Each family header wraps it as
// TILEGLU_INSTANTIATE_<FAMILY>(name, dtype, Element, template arguments after the element).
#define TILEGLU_INSTANTIATE(launcher, KernelT, name, dtype, Element, ...)                       \
  namespace tileglu::kernels {                                                                  \
  cudaError_t launch_##name##_##dtype(SwigluParams const& p, int sm_count, cudaStream_t stream) { \
    return launcher<KernelT<Element, __VA_ARGS__>>(p, sm_count, stream);                        \
  }                                                                                             \
  }
