// Chooses the kernel configuration for one problem on sm_90a. Pure host code: no CUDA calls, only
// the registry's description of each compiled configuration (src/kernels/swiglu_params.h).
//
// Environment variables (read on every call; documented in README.md):
//   TILEGLU_LOG_DISPATCH=1          print each choice, with the estimate of every candidate, to stderr
//   TILEGLU_FORCE_CONFIG=<name>     use the registry entry of that name when it serves the problem;
//                                   an unknown or unusable name is ignored with a warning on stderr
//   TILEGLU_ACCUMULATION=<mode>     `tensorcore` (default): only configs with promote_k_tiles == 0
//                                   are candidates; `promoted`: only configs with
//                                   promote_k_tiles > 0 (the default set, with a warning, when none
//                                   serves the problem). Unset or empty: the default; any other
//                                   value: the default, with a warning. TILEGLU_FORCE_CONFIG
//                                   overrides it.
//
// The configurations the cost model ranks are those marked cost_model_candidate in the registry
// (the ones it was checked against on an H200); the others (Kernel-1, Cooperative, split-K, the
// TMA-store and 128-deep tiles) run when a tuning table names them or when forced, and the
// ablation (KernelConfig::ablation) only when forced.
#pragma once

#include <cstdint>
#include <string>

#include "../kernels/swiglu_params.h"
#include "tuning_table.h"

namespace tileglu {
namespace dispatch {

// Which accumulation the heuristics choose among (TILEGLU_ACCUMULATION).
enum class Accumulation : int {
  kTensorCore = 0,  // fp32 accumulation in the tensor cores only: promote_k_tiles == 0
  kPromoted = 1,    // tensor-core partial sums added into an FADD accumulator: promote_k_tiles > 0
};

const char* accumulation_name(Accumulation accumulation);

// TILEGLU_ACCUMULATION, read now: kTensorCore when it is unset, empty or `tensorcore`, kPromoted
// when it is `promoted`; any other value gives kTensorCore and a warning on stderr.
Accumulation accumulation_from_env();

// Whether `config` is a candidate under `accumulation`: a Kernel-2 config (kernel == 2; Kernel-1
// runs only when forced) whose promote_k_tiles matches the mode.
bool is_candidate(const KernelConfig& config, Accumulation accumulation);

struct Shape {
  int m = 0;
  int k = 0;
  int i = 0;
  DType dtype = DType::kBF16;
};

// What the cost model predicts for one configuration on one shape (see sm90_heuristics.cpp).
struct Estimate {
  int64_t units = 0;          // cluster tiles: ceil(m / (tile_m * cluster_m)) * ceil(i / (tile_n * cluster_n))
  int64_t tiles = 0;          // CTA tiles, units * cluster size (padding tiles included)
  int64_t slots = 0;          // clusters resident at once: sm_count / cluster size
  int64_t waves = 0;          // ceil(units / slots): cluster tiles the busiest cluster runs
  double last_wave_fill = 0;  // share of slots busy in the last wave, in (0, 1]
  double useful = 0;          // m * i / (tiles * tile_m * tile_n): the share not spent on padding
  double cost = 0;            // waves * (tile_m + 2 * tile_n), no multicast discount; lower wins
};

// Whether `entry` can run `shape`: the kernel is 1 or 2, a launcher for the dtype exists and the
// tile is well formed. Valid is what forcing needs; the default choice also needs is_candidate().
bool is_valid(const KernelEntry& entry, const Shape& shape);

Estimate estimate(const KernelConfig& config, const Shape& shape, int sm_count);

// The best entry of `entries[0, count)` that is valid and a candidate under `accumulation`, by the
// cost model, or -1 when there is none. At equal cost a config without a cluster beats one with a
// cluster. Deterministic; reads no environment variable.
int choose_from(const KernelEntry* entries, int count, const Shape& shape, int sm_count,
                Accumulation accumulation = Accumulation::kTensorCore);

// The index into kernel_registry() to run (m, k, i, dtype) with on a device of `sm_count` SMs and
// this name (cudaDeviceProp::name; null: unknown), or -1 when no compiled kernel serves it. In
// order: TILEGLU_FORCE_CONFIG; the user's tuning table (tileglu_load_tuning_table,
// TILEGLU_TUNING_TABLE); the embedded measured table for the device (embedded_table(name)); the
// cost model. Honours TILEGLU_ACCUMULATION and TILEGLU_LOG_DISPATCH.
int choose_kernel(int m, int k, int i, DType dtype, int sm_count,
                  const char* device_name = nullptr);

// choose_kernel() over `entries[0, count)` instead of the registry (the environment variables
// included): for tests. `tables[0, table_count)` are consulted in order after
// TILEGLU_FORCE_CONFIG and before the cost model; a table is used only when it was tuned on
// `sm_count` SMs, covers the shape, and names a config that is valid for it and of the
// accumulation mode's kind. Null entries are skipped.
int choose_kernel_from(const KernelEntry* entries, int count, int m, int k, int i, DType dtype,
                       int sm_count, const TuningTable* const* tables = nullptr,
                       int table_count = 0);

}  // namespace dispatch
}  // namespace tileglu
