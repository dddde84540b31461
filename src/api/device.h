// The current CUDA device and whether tileglu's kernels run on it.
#pragma once

#include <string>

#include "tileglu/tileglu.h"

namespace tileglu {
namespace api {

struct DeviceInfo {
  int device = -1;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;  // cudaDevAttrMultiProcessorCount: the persistent grid size
  // cudaDeviceProp::name (kernels/device_name.h, kept for the process's life): picks the embedded
  // tuning table measured on such a device.
  const char* name = nullptr;
};

// Queries the current device (cudaGetDevice; attributes cached per device after the first call).
// TILEGLU_SUCCESS when it is compute capability 9.0, else TILEGLU_ERROR_UNSUPPORTED_DEVICE with a
// message that carries the CUDA error string or the device's compute capability.
tileglu_status_t current_device(DeviceInfo* info, std::string* message);

}  // namespace api
}  // namespace tileglu
