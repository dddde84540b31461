// The CUDA device's name, read once per device for every host-side rule that goes by it (the
// weight descriptors' L2 promotion, tma_l2_promotion.cpp; the embedded tuning table,
// api/device.cpp). Host code.
#pragma once

#include <cuda_runtime_api.h>

namespace tileglu::kernels {

// Sets *name to device `device`'s cudaDeviceProp::name, kept for the process's life. The first
// call per device reads the properties (far too slow for every call); later calls return what it
// read. On failure *name is null and the CUDA error is returned (and cleared from the runtime's
// last-error state).
cudaError_t cached_device_name(int device, const char** name);

}  // namespace tileglu::kernels
