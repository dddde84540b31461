#include "problem.h"

#include <cstdint>
#include <cstring>

#include "validate.h"

namespace tileglu {
namespace api {

tileglu_swiglu_problem_t make_separate_problem(tileglu_dtype_t dtype, int64_t m, int64_t k,
                                               int64_t i, const void* x, int64_t ldx,
                                               const void* w_gate, const void* w_up, int64_t ldw,
                                               void* out, int64_t ld_out) {
  tileglu_swiglu_problem_t p{};
  p.dtype = dtype;
  p.m = m;
  p.k = k;
  p.i = i;
  p.x = x;
  p.ldx = ldx;
  p.w_gate = w_gate;
  p.ld_gate = ldw;
  p.w_up = w_up;
  p.ld_up = ldw;
  p.out = out;
  p.ld_out = ld_out;
  return p;
}

tileglu_swiglu_problem_t make_stacked_problem(tileglu_dtype_t dtype, int64_t m, int64_t k,
                                              int64_t i, const void* x, int64_t ldx,
                                              const void* w_gate_up, int64_t ldw, void* out,
                                              int64_t ld_out) {
  const void* w_up = nullptr;
  if (w_gate_up != nullptr) {
    // Unsigned arithmetic: well defined even for the garbage i or ldw that validation rejects.
    const uintptr_t offset_bytes = static_cast<uintptr_t>(i) * static_cast<uintptr_t>(ldw) *
                                   static_cast<uintptr_t>(dtype_bytes(dtype));
    w_up = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(w_gate_up) + offset_bytes);
  }
  return make_separate_problem(dtype, m, k, i, x, ldx, w_gate_up, w_up, ldw, out, ld_out);
}

SwigluParams to_params(const tileglu_swiglu_problem_t& problem) {
  SwigluParams params;
  params.m = static_cast<int>(problem.m);
  params.k = static_cast<int>(problem.k);
  params.i = static_cast<int>(problem.i);
  params.x = problem.x;
  params.ldx = problem.ldx;
  params.w_gate = problem.w_gate;
  params.ld_gate = problem.ld_gate;
  params.w_up = problem.w_up;
  params.ld_up = problem.ld_up;
  params.out = problem.out;
  params.ld_out = problem.ld_out;
  return params;
}

DType to_dtype(tileglu_dtype_t dtype) {
  return dtype == TILEGLU_DTYPE_FP16 ? DType::kFP16 : DType::kBF16;
}

tileglu_config_t to_public_config(const KernelConfig& config) {
  tileglu_config_t result{};
  result.kernel = config.kernel;
  result.tile_m = config.tile_m;
  result.tile_n = config.tile_n;
  result.tile_k = config.tile_k;
  result.stages = config.stages;
  result.cluster_m = config.cluster_m;
  result.cluster_n = config.cluster_n;
  result.promote_k_tiles = config.promote_k_tiles;
  result.split_k = config.split_k;
  result.ablation = config.ablation ? 1 : 0;
  std::strncpy(result.name, config.name, sizeof(result.name) - 1);
  return result;
}

}  // namespace api
}  // namespace tileglu
