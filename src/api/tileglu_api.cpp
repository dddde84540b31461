// The C ABI (include/tileglu/tileglu.h): validate, check the device, dispatch, launch.
// Nothing here reads or writes device memory before validate_problem() has accepted the problem.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

#include "../dispatch/sm90_heuristics.h"
#include "../dispatch/tuning_table.h"
#include "../kernels/decode_plan.h"
#include "../kernels/swiglu_params.h"
#include "device.h"
#include "problem.h"
#include "tileglu/tileglu.h"
#include "validate.h"

namespace tileglu {
namespace api {
namespace {

thread_local std::string g_last_error;

tileglu_status_t finish(tileglu_status_t status, std::string message) {
  if (status == TILEGLU_SUCCESS) {
    g_last_error.clear();
  } else {
    g_last_error = std::move(message);
  }
  return status;
}

// A problem that passed every check, with the kernel chosen for it.
struct Plan {
  SwigluParams params;
  DType dtype = DType::kBF16;
  const KernelEntry* entry = nullptr;
  int sm_count = 0;
};

tileglu_status_t plan_problem(const tileglu_swiglu_problem_t* problem, const ArgNames& names,
                              Plan* plan, std::string* message) {
  Validation v = validate_problem(problem, names);
  if (!v.ok()) {
    *message = std::move(v.message);
    return v.status;
  }

  DeviceInfo device;
  const tileglu_status_t device_status = current_device(&device, message);
  if (device_status != TILEGLU_SUCCESS) return device_status;

  plan->params = to_params(*problem);  // narrowing is safe: validation bounded m, k, i by 2^31
  plan->dtype = to_dtype(problem->dtype);
  plan->sm_count = device.sm_count;

  const int index = dispatch::choose_kernel(plan->params.m, plan->params.k, plan->params.i,
                                            plan->dtype, device.sm_count, device.name);
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  if (index < 0 || index >= count) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "no compiled kernel serves m=%d k=%d i=%d dtype=%s",
                  plan->params.m, plan->params.k, plan->params.i,
                  plan->dtype == DType::kFP16 ? "fp16" : "bf16");
    *message = buf;
    return TILEGLU_ERROR_NO_KERNEL;
  }
  plan->entry = &registry[index];
  return TILEGLU_SUCCESS;
}

tileglu_status_t run(const tileglu_swiglu_problem_t* problem, const ArgNames& names,
                     cudaStream_t stream) {
  Plan plan;
  std::string message;
  const tileglu_status_t status = plan_problem(problem, names, &plan, &message);
  if (status != TILEGLU_SUCCESS) return finish(status, std::move(message));

  // TILEGLU_SWAPAB_PACKED_WEIGHTS (kernels/decode_plan.h, a measuring knob): the weight pointer
  // holds slot-packed bytes that only the swap-AB decode kernels (configs k2_swapab_n*) can read,
  // and only whole 64 x 64 slots; any other read would take them as row-major weights and return
  // wrong numbers, so such a call fails here, with the reason (the launcher checks again).
  if (const char* packed = std::getenv("TILEGLU_SWAPAB_PACKED_WEIGHTS")) {
    const int order = kernels::parse_swapab_packed_weights(packed);
    std::string why;
    if (order > 0 && std::strncmp(plan.entry->config.name, "k2_swapab_n", 11) != 0) {
      why = std::string("is set, but the call dispatched to ") + plan.entry->config.name +
            ", which reads only row-major weights";
    } else if (const char* refusal = kernels::swapab_packed_weights_refusal(order, plan.params.i, plan.params.k)) {
      why = std::string(refusal) + "; I = " + std::to_string(plan.params.i) + ", K = " + std::to_string(plan.params.k);
    }
    if (!why.empty()) {
      return finish(TILEGLU_ERROR_INVALID_ARGUMENT, std::string("TILEGLU_SWAPAB_PACKED_WEIGHTS=") + packed + " " + why);
    }
  }
  const LaunchFn launch =
      plan.dtype == DType::kFP16 ? plan.entry->launch_fp16 : plan.entry->launch_bf16;
  const cudaError_t err = launch(plan.params, plan.sm_count, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky launch error so the caller's next call is unaffected
    return finish(TILEGLU_ERROR_CUDA, std::string("launching ") + plan.entry->config.name +
                                          " failed: " + cudaGetErrorString(err));
  }
  return finish(TILEGLU_SUCCESS, {});
}

}  // namespace
}  // namespace api
}  // namespace tileglu

extern "C" {

tileglu_status_t tileglu_swiglu(const tileglu_swiglu_problem_t* problem, cudaStream_t stream) {
  return tileglu::api::run(problem, tileglu::api::ArgNames{}, stream);
}

tileglu_status_t tileglu_swiglu_separate(tileglu_dtype_t dtype, int64_t m, int64_t k, int64_t i,
                                         const void* x, int64_t ldx, const void* w_gate,
                                         const void* w_up, int64_t ldw, void* out, int64_t ld_out,
                                         cudaStream_t stream) {
  const tileglu_swiglu_problem_t problem = tileglu::api::make_separate_problem(
      dtype, m, k, i, x, ldx, w_gate, w_up, ldw, out, ld_out);
  return tileglu::api::run(&problem, tileglu::api::separate_arg_names(), stream);
}

tileglu_status_t tileglu_swiglu_stacked(tileglu_dtype_t dtype, int64_t m, int64_t k, int64_t i,
                                        const void* x, int64_t ldx, const void* w_gate_up,
                                        int64_t ldw, void* out, int64_t ld_out,
                                        cudaStream_t stream) {
  const tileglu_swiglu_problem_t problem =
      tileglu::api::make_stacked_problem(dtype, m, k, i, x, ldx, w_gate_up, ldw, out, ld_out);
  return tileglu::api::run(&problem, tileglu::api::stacked_arg_names(), stream);
}

tileglu_status_t tileglu_query_config(const tileglu_swiglu_problem_t* problem,
                                      tileglu_config_t* config) {
  using namespace tileglu::api;
  if (config == nullptr) return finish(TILEGLU_ERROR_NULL_POINTER, "config is NULL");
  Plan plan;
  std::string message;
  const tileglu_status_t status = plan_problem(problem, ArgNames{}, &plan, &message);
  if (status != TILEGLU_SUCCESS) return finish(status, std::move(message));

  const tileglu_config_t result = to_public_config(plan.entry->config);
  *config = result;
  return finish(TILEGLU_SUCCESS, {});
}

int tileglu_config_count(void) {
  int count = 0;
  tileglu::kernel_registry(&count);
  return count;
}

tileglu_status_t tileglu_config_at(int index, tileglu_config_t* config) {
  using namespace tileglu::api;
  if (config == nullptr) return finish(TILEGLU_ERROR_NULL_POINTER, "config is NULL");
  int count = 0;
  const tileglu::KernelEntry* registry = tileglu::kernel_registry(&count);
  if (index < 0 || index >= count) {
    return finish(TILEGLU_ERROR_INVALID_ARGUMENT, "index (=" + std::to_string(index) +
                                                      ") must be in [0, " +
                                                      std::to_string(count) + ")");
  }
  *config = to_public_config(registry[index].config);
  return finish(TILEGLU_SUCCESS, {});
}

tileglu_status_t tileglu_load_tuning_table(const char* path) {
  using namespace tileglu::api;
  using namespace tileglu::dispatch;
  if (path == nullptr) {
    set_user_table(nullptr);
    return finish(TILEGLU_SUCCESS, {});
  }
  if (path[0] == '\0') return finish(TILEGLU_ERROR_INVALID_ARGUMENT, "path is empty");
  std::string message;
  std::shared_ptr<const TuningTable> table = load_tuning_table_file(path, &message);
  if (!table) return finish(TILEGLU_ERROR_INVALID_TABLE, std::move(message));
  DeviceInfo device;
  const tileglu_status_t device_status = current_device(&device, &message);
  if (device_status != TILEGLU_SUCCESS) return finish(device_status, std::move(message));
  if (table->sm_count != device.sm_count) {
    return finish(TILEGLU_ERROR_INVALID_TABLE,
                  std::string(path) + ": stale: tuned on a device of " +
                      std::to_string(table->sm_count) + " SMs (" + table->device +
                      "), the current device has " + std::to_string(device.sm_count));
  }
  set_user_table(std::move(table));
  return finish(TILEGLU_SUCCESS, {});
}

const char* tileglu_status_string(tileglu_status_t status) {
  switch (status) {
    case TILEGLU_SUCCESS: return "TILEGLU_SUCCESS";
    case TILEGLU_ERROR_NULL_POINTER: return "TILEGLU_ERROR_NULL_POINTER";
    case TILEGLU_ERROR_INVALID_SHAPE: return "TILEGLU_ERROR_INVALID_SHAPE";
    case TILEGLU_ERROR_UNALIGNED_DIMENSION: return "TILEGLU_ERROR_UNALIGNED_DIMENSION";
    case TILEGLU_ERROR_INVALID_LEADING_DIM: return "TILEGLU_ERROR_INVALID_LEADING_DIM";
    case TILEGLU_ERROR_MISALIGNED_POINTER: return "TILEGLU_ERROR_MISALIGNED_POINTER";
    case TILEGLU_ERROR_ALIASING: return "TILEGLU_ERROR_ALIASING";
    case TILEGLU_ERROR_UNSUPPORTED_DTYPE: return "TILEGLU_ERROR_UNSUPPORTED_DTYPE";
    case TILEGLU_ERROR_UNSUPPORTED_DEVICE: return "TILEGLU_ERROR_UNSUPPORTED_DEVICE";
    case TILEGLU_ERROR_CUDA: return "TILEGLU_ERROR_CUDA";
    case TILEGLU_ERROR_NO_KERNEL: return "TILEGLU_ERROR_NO_KERNEL";
    case TILEGLU_ERROR_INVALID_ARGUMENT: return "TILEGLU_ERROR_INVALID_ARGUMENT";
    case TILEGLU_ERROR_INVALID_TABLE: return "TILEGLU_ERROR_INVALID_TABLE";
  }
  return "TILEGLU_STATUS_UNKNOWN";
}

const char* tileglu_last_error_message(void) { return tileglu::api::g_last_error.c_str(); }

}  // extern "C"
