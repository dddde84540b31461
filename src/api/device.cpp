#include "device.h"

#include <cstdio>
#include <mutex>
#include <vector>

#include <cuda_runtime_api.h>

#include "../kernels/device_name.h"

namespace tileglu {
namespace api {
namespace {

struct CacheEntry {
  bool known = false;
  DeviceInfo info;
};

std::mutex g_cache_mutex;
std::vector<CacheEntry> g_cache;  // indexed by device ordinal

std::string cuda_failure(const char* what, cudaError_t err) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "no usable CUDA device: %s failed: %s (%s)", what,
                cudaGetErrorString(err), cudaGetErrorName(err));
  return std::string(buf);
}

}  // namespace

tileglu_status_t current_device(DeviceInfo* info, std::string* message) {
  int device = -1;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    cudaGetLastError();  // do not leave the failure to the caller's next CUDA call
    *message = cuda_failure("cudaGetDevice", err);
    return TILEGLU_ERROR_UNSUPPORTED_DEVICE;
  }

  std::lock_guard<std::mutex> lock(g_cache_mutex);
  if (device >= static_cast<int>(g_cache.size())) g_cache.resize(device + 1);
  CacheEntry& entry = g_cache[device];
  if (!entry.known) {
    DeviceInfo queried;
    queried.device = device;
    const struct {
      cudaDeviceAttr attr;
      int* value;
      const char* what;
    } queries[] = {
        {cudaDevAttrComputeCapabilityMajor, &queried.cc_major,
         "cudaDeviceGetAttribute(cudaDevAttrComputeCapabilityMajor)"},
        {cudaDevAttrComputeCapabilityMinor, &queried.cc_minor,
         "cudaDeviceGetAttribute(cudaDevAttrComputeCapabilityMinor)"},
        {cudaDevAttrMultiProcessorCount, &queried.sm_count,
         "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)"},
    };
    for (const auto& q : queries) {
      err = cudaDeviceGetAttribute(q.value, q.attr, device);
      if (err != cudaSuccess) {
        cudaGetLastError();
        *message = cuda_failure(q.what, err);
        return TILEGLU_ERROR_UNSUPPORTED_DEVICE;
      }
    }
    // The name has no attribute of its own: the one cache the kernels' promotion rule reads too.
    err = kernels::cached_device_name(device, &queried.name);
    if (err != cudaSuccess) {
      *message = cuda_failure("cudaGetDeviceProperties", err);
      return TILEGLU_ERROR_UNSUPPORTED_DEVICE;
    }
    entry.info = queried;
    entry.known = true;
  }
  *info = entry.info;

  if (info->cc_major != 9 || info->cc_minor != 0) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "device %d is compute capability %d.%d (sm_%d%d); tileglu's kernels are built "
                  "for sm_90a (H100/H200) only",
                  device, info->cc_major, info->cc_minor, info->cc_major, info->cc_minor);
    *message = buf;
    return TILEGLU_ERROR_UNSUPPORTED_DEVICE;
  }
  return TILEGLU_SUCCESS;
}

}  // namespace api
}  // namespace tileglu
