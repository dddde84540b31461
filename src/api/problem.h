// Builds the problem struct for each public entry point, converts a validated problem into the
// kernels' SwigluParams and a registry config into tileglu_config_t. Pure host code, no CUDA calls.
#pragma once

#include "../kernels/swiglu_params.h"
#include "tileglu/tileglu.h"

namespace tileglu {
namespace api {

// tileglu_swiglu_separate(): both weights share the leading dimension `ldw`.
tileglu_swiglu_problem_t make_separate_problem(tileglu_dtype_t dtype, int64_t m, int64_t k,
                                               int64_t i, const void* x, int64_t ldx,
                                               const void* w_gate, const void* w_up, int64_t ldw,
                                               void* out, int64_t ld_out);

// tileglu_swiglu_stacked(): gate rows [0, i) then up rows [i, 2i) of one [2i, k] weight, so
// w_up = w_gate_up + i * ldw elements. The address is computed in integers (nothing is read) and
// is NULL when w_gate_up is, so that validation reports the NULL weight by its name.
tileglu_swiglu_problem_t make_stacked_problem(tileglu_dtype_t dtype, int64_t m, int64_t k,
                                              int64_t i, const void* x, int64_t ldx,
                                              const void* w_gate_up, int64_t ldw, void* out,
                                              int64_t ld_out);

// Narrows a problem that validate_problem() accepted (so m, k, i < 2^31) to the kernels' struct.
SwigluParams to_params(const tileglu_swiglu_problem_t& problem);

// TILEGLU_DTYPE_BF16 -> DType::kBF16, TILEGLU_DTYPE_FP16 -> DType::kFP16 (validated dtypes only).
DType to_dtype(tileglu_dtype_t dtype);

// What tileglu_query_config() reports for a registry configuration (the name truncated to fit).
tileglu_config_t to_public_config(const KernelConfig& config);

}  // namespace api
}  // namespace tileglu
