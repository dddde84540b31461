// The public C ABI on a machine without a usable sm_90 GPU: validation errors come back before
// any device work, a valid problem ends in TILEGLU_ERROR_UNSUPPORTED_DEVICE with CUDA's reason,
// status strings, the thread-local last error, and the stacked/separate problem builders.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include <cuda_runtime_api.h>

#include "api/problem.h"
#include "kernels/swiglu_params.h"
#include "test_problem.h"
#include "tileglu/tileglu.h"

namespace {

using tileglu_test::at;
using tileglu_test::at_mut;

// m = 17, k = 64, i = 40, contiguous, bf16, at 0x1000000 .. 0x4000000.
tileglu_swiglu_problem_t valid_problem() {
  return tileglu_test::valid_problem(17, 64, 40, 0x1000000);
}

std::string last_error() { return tileglu_last_error_message(); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// What the current machine has, probed straight through the CUDA runtime.
struct Gpu {
  bool present = false;  // at least one device the runtime can open
  bool sm90 = false;     // the current device is compute capability 9.0
};

Gpu probe_gpu() {
  Gpu gpu;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return gpu;
  }
  gpu.present = true;
  int device = 0, major = 0, minor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  gpu.sm90 = major == 9 && minor == 0;
  return gpu;
}

TEST(StatusString, EveryCode) {
  const struct {
    tileglu_status_t status;
    const char* name;
  } cases[] = {
      {TILEGLU_SUCCESS, "TILEGLU_SUCCESS"},
      {TILEGLU_ERROR_NULL_POINTER, "TILEGLU_ERROR_NULL_POINTER"},
      {TILEGLU_ERROR_INVALID_SHAPE, "TILEGLU_ERROR_INVALID_SHAPE"},
      {TILEGLU_ERROR_UNALIGNED_DIMENSION, "TILEGLU_ERROR_UNALIGNED_DIMENSION"},
      {TILEGLU_ERROR_INVALID_LEADING_DIM, "TILEGLU_ERROR_INVALID_LEADING_DIM"},
      {TILEGLU_ERROR_MISALIGNED_POINTER, "TILEGLU_ERROR_MISALIGNED_POINTER"},
      {TILEGLU_ERROR_ALIASING, "TILEGLU_ERROR_ALIASING"},
      {TILEGLU_ERROR_UNSUPPORTED_DTYPE, "TILEGLU_ERROR_UNSUPPORTED_DTYPE"},
      {TILEGLU_ERROR_UNSUPPORTED_DEVICE, "TILEGLU_ERROR_UNSUPPORTED_DEVICE"},
      {TILEGLU_ERROR_CUDA, "TILEGLU_ERROR_CUDA"},
      {TILEGLU_ERROR_NO_KERNEL, "TILEGLU_ERROR_NO_KERNEL"},
      {TILEGLU_ERROR_INVALID_ARGUMENT, "TILEGLU_ERROR_INVALID_ARGUMENT"},
      {TILEGLU_ERROR_INVALID_TABLE, "TILEGLU_ERROR_INVALID_TABLE"},
  };
  for (const auto& c : cases) EXPECT_STREQ(tileglu_status_string(c.status), c.name);
  EXPECT_STREQ(tileglu_status_string(static_cast<tileglu_status_t>(13)), "TILEGLU_STATUS_UNKNOWN");
  EXPECT_STREQ(tileglu_status_string(static_cast<tileglu_status_t>(-1)), "TILEGLU_STATUS_UNKNOWN");
}

TEST(Api, ValidationErrorsComeBackThroughEveryEntryPoint) {
  EXPECT_EQ(tileglu_swiglu(nullptr, nullptr), TILEGLU_ERROR_NULL_POINTER);
  EXPECT_EQ(last_error(), "problem is NULL");

  tileglu_swiglu_problem_t p = valid_problem();
  p.ldx = 48;
  EXPECT_EQ(tileglu_swiglu(&p, nullptr), TILEGLU_ERROR_INVALID_LEADING_DIM);
  EXPECT_EQ(last_error(), "ldx (=48) must be >= k (=64)");

  tileglu_config_t config;
  EXPECT_EQ(tileglu_query_config(&p, &config), TILEGLU_ERROR_INVALID_LEADING_DIM);
  EXPECT_EQ(last_error(), "ldx (=48) must be >= k (=64)");
  EXPECT_EQ(tileglu_query_config(nullptr, &config), TILEGLU_ERROR_NULL_POINTER);
  EXPECT_EQ(last_error(), "problem is NULL");
  EXPECT_EQ(tileglu_query_config(&p, nullptr), TILEGLU_ERROR_NULL_POINTER);
  EXPECT_EQ(last_error(), "config is NULL");

  // Separate weights: one leading dimension, reported as `ldw`.
  EXPECT_EQ(tileglu_swiglu_separate(TILEGLU_DTYPE_FP16, 17, 64, 40, at(0x1000000), 64,
                                    at(0x2000000), at(0x3000000), 56, at_mut(0x4000000), 40,
                                    nullptr),
            TILEGLU_ERROR_INVALID_LEADING_DIM);
  EXPECT_EQ(last_error(), "ldw (=56) must be >= k (=64)");
  EXPECT_EQ(tileglu_swiglu_separate(TILEGLU_DTYPE_FP16, 17, 64, 40, at(0x1000000), 64,
                                    at(0x2000000), at(0x3000008), 64, at_mut(0x4000000), 40,
                                    nullptr),
            TILEGLU_ERROR_MISALIGNED_POINTER);
  EXPECT_TRUE(contains(last_error(), "w_up (=0x3000008) must be 16-byte aligned")) << last_error();

  // Stacked weight: errors name w_gate_up and ldw.
  EXPECT_EQ(tileglu_swiglu_stacked(TILEGLU_DTYPE_BF16, 17, 64, 40, at(0x1000000), 64, nullptr, 64,
                                   at_mut(0x4000000), 40, nullptr),
            TILEGLU_ERROR_NULL_POINTER);
  EXPECT_EQ(last_error(), "w_gate_up is NULL");
  EXPECT_EQ(tileglu_swiglu_stacked(TILEGLU_DTYPE_BF16, 17, 64, 40, at(0x1000000), 60,
                                   at(0x2000000), 64, at_mut(0x4000000), 40, nullptr),
            TILEGLU_ERROR_INVALID_LEADING_DIM);
  EXPECT_EQ(last_error(), "ldx (=60) must be >= k (=64)");
  // out placed on the up half of the stacked weight: rows [40, 80) start 40 * 64 * 2 bytes in.
  EXPECT_EQ(tileglu_swiglu_stacked(TILEGLU_DTYPE_BF16, 17, 64, 40, at(0x1000000), 64,
                                   at(0x2000000), 64, at_mut(0x2000000 + 40 * 64 * 2), 40,
                                   nullptr),
            TILEGLU_ERROR_ALIASING);
  EXPECT_TRUE(contains(last_error(), "overlaps w_gate_up + i * ldw (the up rows) [0x2001400"))
      << last_error();
}

TEST(Api, ValidProblemWithoutSm90GpuIsUnsupportedDevice) {
  const Gpu gpu = probe_gpu();
  if (gpu.sm90) {
    GTEST_SKIP() << "an sm_90 GPU is present: a valid problem would launch on the fake pointers "
                    "of this test, so the no-GPU assertion does not apply here";
  }
  const tileglu_swiglu_problem_t p = valid_problem();
  EXPECT_EQ(tileglu_swiglu(&p, nullptr), TILEGLU_ERROR_UNSUPPORTED_DEVICE);
  const std::string message = last_error();
  if (gpu.present) {
    EXPECT_TRUE(contains(message, "tileglu's kernels are built for sm_90a")) << message;
  } else {
    // CUDA's own reason, e.g. "no CUDA-capable device is detected" or an insufficient driver.
    EXPECT_TRUE(contains(message, "no usable CUDA device: cudaGetDevice failed: ")) << message;
    EXPECT_GT(message.size(), std::strlen("no usable CUDA device: cudaGetDevice failed: ") + 4)
        << message;
  }

  tileglu_config_t config;
  std::memset(&config, 0x5a, sizeof(config));
  EXPECT_EQ(tileglu_query_config(&p, &config), TILEGLU_ERROR_UNSUPPORTED_DEVICE);
  EXPECT_EQ(last_error(), message);
  EXPECT_EQ(config.tile_m, 0x5a5a5a5a) << "a failed query must leave *config untouched";

  EXPECT_EQ(tileglu_swiglu_stacked(TILEGLU_DTYPE_FP16, 17, 64, 40, at(0x1000000), 64,
                                   at(0x2000000), 64, at_mut(0x4000000), 40, nullptr),
            TILEGLU_ERROR_UNSUPPORTED_DEVICE);
  EXPECT_EQ(tileglu_swiglu_separate(TILEGLU_DTYPE_FP16, 17, 64, 40, at(0x1000000), 64,
                                    at(0x2000000), at(0x3000000), 64, at_mut(0x4000000), 40,
                                    nullptr),
            TILEGLU_ERROR_UNSUPPORTED_DEVICE);
}

TEST(Api, QueryConfigOnSm90Gpu) {
  if (!probe_gpu().sm90) GTEST_SKIP() << "no sm_90 GPU on this machine";
  const tileglu_swiglu_problem_t p = valid_problem();
  tileglu_config_t config{};
  ASSERT_EQ(tileglu_query_config(&p, &config), TILEGLU_SUCCESS) << last_error();
  EXPECT_EQ(last_error(), "");
  EXPECT_EQ(config.kernel, 2);
  int count = 0;
  const tileglu::KernelEntry* registry = tileglu::kernel_registry(&count);
  bool found = false;
  for (int idx = 0; idx < count; ++idx) {
    if (std::strcmp(registry[idx].config.name, config.name) == 0) {
      found = true;
      EXPECT_EQ(config.tile_m, registry[idx].config.tile_m);
      EXPECT_EQ(config.tile_n, registry[idx].config.tile_n);
      EXPECT_EQ(config.stages, registry[idx].config.stages);
      EXPECT_EQ(config.promote_k_tiles, registry[idx].config.promote_k_tiles);
    }
  }
  EXPECT_TRUE(found) << config.name;
}

TEST(Api, PublicConfigCopiesEveryRegistryField) {
  // What tileglu_query_config() reports, for every registry entry (no GPU needed).
  int count = 0;
  const tileglu::KernelEntry* registry = tileglu::kernel_registry(&count);
  ASSERT_GT(count, 0);
  bool saw_promoted = false;
  for (int idx = 0; idx < count; ++idx) {
    const tileglu::KernelConfig& c = registry[idx].config;
    SCOPED_TRACE(c.name);
    const tileglu_config_t p = tileglu::api::to_public_config(c);
    EXPECT_EQ(p.kernel, c.kernel);
    EXPECT_EQ(p.tile_m, c.tile_m);
    EXPECT_EQ(p.tile_n, c.tile_n);
    EXPECT_EQ(p.tile_k, c.tile_k);
    EXPECT_EQ(p.stages, c.stages);
    EXPECT_EQ(p.cluster_m, c.cluster_m);
    EXPECT_EQ(p.cluster_n, c.cluster_n);
    EXPECT_EQ(p.promote_k_tiles, c.promote_k_tiles);
    EXPECT_EQ(p.split_k, c.split_k);
    EXPECT_EQ(p.ablation, c.ablation ? 1 : 0);
    EXPECT_STREQ(p.name, c.name);
    if (std::strcmp(c.name, "k2_pingpong_64x64x64_p8_s8") == 0) {
      saw_promoted = true;
      EXPECT_EQ(p.promote_k_tiles, 8);
    }
  }
  EXPECT_TRUE(saw_promoted);
  // A name too long for the field is cut, still terminated.
  const std::string long_name(100, 'x');
  const tileglu::KernelConfig c{long_name.c_str(), 2, 64, 64, 64, 8, 1, 1, 0, 1, false, false};
  const tileglu_config_t p = tileglu::api::to_public_config(c);
  EXPECT_EQ(std::string(p.name), long_name.substr(0, sizeof(p.name) - 1));
}

TEST(Api, LastErrorIsPerThread) {
  EXPECT_EQ(tileglu_swiglu(nullptr, nullptr), TILEGLU_ERROR_NULL_POINTER);
  std::string other;
  std::thread([&] { other = tileglu_last_error_message(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(last_error(), "problem is NULL");
}

TEST(ProblemBuilders, StackedUpRowsFollowGateRows) {
  const uintptr_t base = 0x7000000;
  // bf16: w_up = base + i * ldw elements * 2 bytes.
  tileglu_swiglu_problem_t p = tileglu::api::make_stacked_problem(
      TILEGLU_DTYPE_BF16, 5, 896, 4864, at(0x1000000), 896, at(base), 904, at_mut(0x9000000),
      4864);
  EXPECT_EQ(p.w_gate, at(base));
  EXPECT_EQ(p.w_up, at(base + uintptr_t{4864} * 904 * 2));
  EXPECT_EQ(p.ld_gate, 904);
  EXPECT_EQ(p.ld_up, 904);
  EXPECT_EQ(p.m, 5);
  EXPECT_EQ(p.k, 896);
  EXPECT_EQ(p.i, 4864);
  EXPECT_EQ(p.ldx, 896);
  EXPECT_EQ(p.out, at_mut(0x9000000));
  EXPECT_EQ(p.ld_out, 4864);
  // fp16 is 2 bytes too.
  p = tileglu::api::make_stacked_problem(TILEGLU_DTYPE_FP16, 1, 16, 8, at(0x1000000), 16, at(base),
                                         16, at_mut(0x9000000), 8);
  EXPECT_EQ(p.w_up, at(base + 8 * 16 * 2));
  // A NULL stacked weight gives NULL halves, so validation names it.
  p = tileglu::api::make_stacked_problem(TILEGLU_DTYPE_BF16, 1, 16, 8, at(0x1000000), 16,
                                         nullptr, 16, at_mut(0x9000000), 8);
  EXPECT_EQ(p.w_gate, nullptr);
  EXPECT_EQ(p.w_up, nullptr);
}

TEST(ProblemBuilders, SeparateSharesLdw) {
  const tileglu_swiglu_problem_t p = tileglu::api::make_separate_problem(
      TILEGLU_DTYPE_FP16, 3, 16, 24, at(0x1000000), 24, at(0x2000000), at(0x3000000), 32,
      at_mut(0x4000000), 40);
  EXPECT_EQ(p.dtype, TILEGLU_DTYPE_FP16);
  EXPECT_EQ(p.w_gate, at(0x2000000));
  EXPECT_EQ(p.w_up, at(0x3000000));
  EXPECT_EQ(p.ld_gate, 32);
  EXPECT_EQ(p.ld_up, 32);
  EXPECT_EQ(p.ldx, 24);
  EXPECT_EQ(p.ld_out, 40);
}

TEST(ProblemBuilders, ToParamsCopiesEveryField) {
  const tileglu_swiglu_problem_t p = tileglu::api::make_stacked_problem(
      TILEGLU_DTYPE_FP16, (int64_t{1} << 31) - 1, 8192, 29568, at(0x1000000), 8200,
      at(0x2000000), 8192, at_mut(0x4000000), 29568);
  const tileglu::SwigluParams params = tileglu::api::to_params(p);
  EXPECT_EQ(params.m, 2147483647);
  EXPECT_EQ(params.k, 8192);
  EXPECT_EQ(params.i, 29568);
  EXPECT_EQ(params.x, p.x);
  EXPECT_EQ(params.ldx, 8200);
  EXPECT_EQ(params.w_gate, at(0x2000000));
  EXPECT_EQ(params.w_up, at(0x2000000 + uintptr_t{29568} * 8192 * 2));
  EXPECT_EQ(params.ld_gate, 8192);
  EXPECT_EQ(params.ld_up, 8192);
  EXPECT_EQ(params.out, p.out);
  EXPECT_EQ(params.ld_out, 29568);
  EXPECT_EQ(tileglu::api::to_dtype(TILEGLU_DTYPE_FP16), tileglu::DType::kFP16);
  EXPECT_EQ(tileglu::api::to_dtype(TILEGLU_DTYPE_BF16), tileglu::DType::kBF16);
}

}  // namespace
