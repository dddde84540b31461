// The device names behind device_name.h.
#include "device_name.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tileglu::kernels {

cudaError_t cached_device_name(int device, const char** name) {
  // Lock-free once read, for the ordinals a machine has (the promotion rule asks on every launch);
  // any ordinal through the locked list.
  constexpr int kFastDevices = 64;
  static std::atomic<const char*> fast[kFastDevices];
  static std::mutex mutex;
  static std::vector<std::unique_ptr<const std::string>> names;  // by ordinal; null: not read
  *name = nullptr;
  if (device < 0) return cudaErrorInvalidDevice;
  if (device < kFastDevices) {
    *name = fast[device].load(std::memory_order_acquire);
    if (*name != nullptr) return cudaSuccess;
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (device >= static_cast<int>(names.size())) names.resize(device + 1);
  if (!names[device]) {
    cudaDeviceProp prop{};
    const cudaError_t err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return err;
    }
    names[device] = std::make_unique<const std::string>(prop.name);
  }
  *name = names[device]->c_str();  // the string never changes or moves: the pointer stays valid
  if (device < kFastDevices) fast[device].store(*name, std::memory_order_release);
  return cudaSuccess;
}

}  // namespace tileglu::kernels
