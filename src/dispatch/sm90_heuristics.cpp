// The cost model.
//
// Every kernel is persistent: the grid holds as many clusters as fit (sm_count / cluster size),
// each walks its share of the cluster tiles, so the busiest cluster runs
// waves = ceil(units / slots) of them and the problem takes about waves x (time of one tile).
// A tile's time is scored by the operand elements its CTA loads per k-step, one X tile plus one
// gate and one up tile, (tile_m + 2 * tile_n) * tile_k, whatever the cluster shape: multicast earns
// no discount. K and tile_k are common to every shipped config, so the score is
//
//     cost = waves * (tile_m + 2 * tile_n)
//
// and the lowest cost wins. Ties go first to a config without a cluster (cluster_m * cluster_n
// == 1), then to less padding (the larger `useful` share, so decode does not pay for 128 rows to
// use one), then to the fuller last wave, then to the larger tile_m, then to registry order.
// Padding is priced in: a tile past the last row costs as much as a full one. The feed term is
// what ranks the 64-row tile against the 128-row one (half the MACs, 3/4 of the operand bytes);
// it is a proxy for a tile's time, not a measured bottleneck.
//
// Why multicast earns nothing. An earlier version of this model held that the L2 operand feed
// was what the SM waits on and so counted an X tile multicast over cluster_n CTAs once per
// cluster (tile_m / cluster_n + 2 * tile_n / cluster_m), which made the cluster config the pick
// for every large shape. Measured on an H200, bf16, in one run, TFLOP/s of
// k2_pingpong_128x64x64_s6 vs k2_pingpong_128x64x64_c2_s6 (the same tile, X multicast over a 1x2
// cluster):
//   qwen2.5-0.5b (K=896,  I=4864)   M=4096:  661 vs 648   M=16384: 688 vs 687
//   qwen2.5-7b   (K=3584, I=18944)  M=4096:  798 vs 758   M=16384: 713 vs 654
//   qwen2.5-72b  (K=8192, I=29568)  M=4096:  716 vs 658
// The cluster config was slower on every shape measured, so the premise is refuted; it also got
// fewer resident clusters than sm_count / 2, so `slots` below overstates it. With no discount a
// cluster config costs at least what the same tile without a cluster does (it pads to whole
// clusters and has no more slots), and the first tie-break hands the tie to the plain config: the
// cluster config is never the default choice and runs only when TILEGLU_FORCE_CONFIG names it.
// (The one exception is sm_count smaller than the cluster, 1 for c2, where `slots` is clamped to
// one and so gives the cluster as many slots as a single CTA; no Hopper part is that small.)
// Weight multicast (cluster_m > 1) gets no discount either: its configs are not cost-model
// candidates; the measured table decides where they run.
//
// Worked examples, sm_count = 132, the shipped configs
//   s6 = 128x64 (cost/tile 256), c2 = 128x64 cluster 1x2 (66 slots, cost/tile 256),
//   s8 = 64x64 (cost/tile 192):
//   m = 1,    i = 4864:  s6:   76 units, 1 wave -> 256  | c2:   38 units, 1 wave -> 256
//                        s8:   76 units, 1 wave -> 192   => s8
//                        (m <= 64: s8 runs as many tiles as s6, so the same waves, at 3/4 of the
//                        cost/tile, and c2 costs at least what s6 does: all of decode is s8)
//   m = 64,   i = 29568: s6: 4 waves -> 1024 | c2: 231 units, 4 waves -> 1024 | s8: 4 waves -> 768 => s8
//   m = 128,  i = 4864:  s6: 1 wave -> 256   | c2: 38 units, 1 wave -> 256
//                        s8: 152 units, 2 waves -> 384  => s6 and c2 tie: no cluster: s6
//   m = 192,  i = 4864:  s6: 152 units, 2 waves -> 512 | c2: 76 units, 2 waves -> 512
//                        s8: 228 units, 2 waves -> 384  => s8
//   m = 100,  i = 18944: s6: 296 units, 3 waves -> 768 | c2: 148 units, 3 waves -> 768
//                        s8: 592 units, 5 waves -> 960  => s6 and c2 tie: s6
//   m = 4096, i = 18944: s6: 72 waves -> 18432 | c2: 4736 units, 72 waves -> 18432
//                        s8: 144 waves -> 27648  => s6 and c2 tie: s6
// So decode (m <= 64) and under-filled shapes where halving the tile height keeps the wave count
// (m = 192 above, or m = 128 with i = 2048: 32 tiles of 128 rows vs 64 of 64, one wave each) take
// the 64-row tile, and everything from a few full waves up takes s6. The tests check the same
// choices with and without the cluster config in the list.
//
// Accumulation (TILEGLU_ACCUMULATION). The candidates are first narrowed by accumulation mode: by
// default (`tensorcore`) only configs with promote_k_tiles == 0, whose fp32 sums stay in the
// tensor cores; with `promoted` only configs with promote_k_tiles > 0, which add the tensor-core
// partial sum into an FADD accumulator every promote_k_tiles k tiles (fewer outputs off by more
// than one ulp at long K, 7-25% slower at large M on an H200: README.md, section Numerics). The
// cost model above then ranks what is left; it does not price the promotion, so the promoted
// configs (the Cooperative 128x64 p8 tile, estimated as s6, and the 64x64 p8 tile, as s8) are
// never compared with a tensor-core one: promoted mode runs the promoted tile of the height the
// default mode's model would pick. When `promoted` leaves no
// valid candidate the default set is used, with a warning. TILEGLU_FORCE_CONFIG overrides both.
//
// Kernel family. is_valid() accepts Kernel-2 (kernel == 2: one WGMMA chain over the [gate | up]
// tile, one accumulator; the decode kernels' one mma.sync over gate and up rows counts as this)
// and Kernel-1 (kernel == 1: separate gate and up accumulators, two WGMMA chains per warpgroup
// from the same stage); any other kernel value is invalid, and so is an M above a config's
// max_m (the decode kernels stop at 64). Only the configs
// marked cost_model_candidate are ranked here: the model would score Kernel-1 exactly like
// Kernel-2 at the same tile, knows nothing of epilogue cost (Cooperative, TMA store) or of split-K,
// so those run when a measured table (tuning_table.h, consulted first by choose_kernel) names them.
//
// Order of sources in choose_kernel_from: TILEGLU_FORCE_CONFIG, then the tables it is given (the
// user's, then the embedded one: only those tuned on this SM count, only rows valid for the
// problem, never an ablation, only of the accumulation mode's kind), then this cost model.
#include "sm90_heuristics.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tileglu {
namespace dispatch {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

const char* dtype_name(DType dtype) { return dtype == DType::kFP16 ? "fp16" : "bf16"; }

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

// True when a beats b.
bool better(const Estimate& a, const KernelConfig& ca, const Estimate& b, const KernelConfig& cb) {
  if (a.cost != b.cost) return a.cost < b.cost;
  const bool a_plain = ca.cluster_m * ca.cluster_n == 1;
  const bool b_plain = cb.cluster_m * cb.cluster_n == 1;
  if (a_plain != b_plain) return a_plain;
  if (a.useful != b.useful) return a.useful > b.useful;
  if (a.last_wave_fill != b.last_wave_fill) return a.last_wave_fill > b.last_wave_fill;
  return ca.tile_m > cb.tile_m;
}

// TILEGLU_FORCE_CONFIG, or -1 when it is unset, empty, unknown or cannot serve `shape`.
int forced_index(const KernelEntry* entries, int count, const Shape& shape) {
  const char* name = std::getenv("TILEGLU_FORCE_CONFIG");
  if (name == nullptr || name[0] == '\0') return -1;
  for (int idx = 0; idx < count; ++idx) {
    if (std::strcmp(entries[idx].config.name, name) != 0) continue;
    if (is_valid(entries[idx], shape)) return idx;
    std::fprintf(stderr,
                 "tileglu: warning: TILEGLU_FORCE_CONFIG=%s cannot run m=%d k=%d i=%d dtype=%s; "
                 "ignoring it\n",
                 name, shape.m, shape.k, shape.i, dtype_name(shape.dtype));
    return -1;
  }
  std::string known;
  for (int idx = 0; idx < count; ++idx) {
    if (!known.empty()) known += ", ";
    known += entries[idx].config.name;
  }
  std::fprintf(stderr,
               "tileglu: warning: TILEGLU_FORCE_CONFIG=%s names no kernel configuration "
               "(known: %s); ignoring it\n",
               name, known.c_str());
  return -1;
}

// `accumulation` is the mode the candidates were taken from (after a fallback, kTensorCore);
// `fell_back` says that `promoted` was asked for and no promoted config could run the shape.
void log_choice(const KernelEntry* entries, int count, const Shape& shape, int sm_count,
                int chosen, bool forced, const TuningTable* table, int table_k, int table_i,
                Accumulation accumulation, bool fell_back) {
  std::string line;
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "tileglu: dispatch m=%d k=%d i=%d dtype=%s sm_count=%d accumulation=%s -> %s%s%s",
                shape.m, shape.k, shape.i, dtype_name(shape.dtype), sm_count,
                accumulation_name(fell_back ? Accumulation::kPromoted : accumulation),
                chosen >= 0 ? entries[chosen].config.name : "(none)",
                forced ? " (forced by TILEGLU_FORCE_CONFIG)" : "",
                fell_back ? " (no promoted config serves the shape: tensorcore used)" : "");
  line += buf;
  if (table != nullptr) {
    line += " (tuning table " + table->source;
    if (table_k != shape.k || table_i != shape.i) {
      line += ", nearest tuned shape k=" + std::to_string(table_k) + " i=" + std::to_string(table_i);
    }
    line += ")";
  } else if (!forced && chosen >= 0) {
    line += " (cost model)";
  }
  for (int idx = 0; idx < count; ++idx) {
    const KernelConfig& config = entries[idx].config;
    if (!is_valid(entries[idx], shape)) {
      std::snprintf(buf, sizeof(buf), "\n  %c %s: not valid", idx == chosen ? '*' : ' ',
                    config.name);
    } else {
      const Estimate e = estimate(config, shape, sm_count);
      std::snprintf(buf, sizeof(buf),
                    "\n  %c %s: tiles=%lld waves=%lld last_wave_fill=%.0f%% useful=%.0f%% "
                    "cost=%.0f%s",
                    idx == chosen ? '*' : ' ', config.name, static_cast<long long>(e.tiles),
                    static_cast<long long>(e.waves), 100.0 * e.last_wave_fill, 100.0 * e.useful,
                    e.cost,
                    is_candidate(config, accumulation)
                        ? ""
                        : !config.cost_model_candidate
                              ? " (not a candidate: not in the cost model)"
                              : (config.promote_k_tiles > 0
                                     ? " (not a candidate: promoted accumulation)"
                                     : " (not a candidate: tensorcore accumulation)"));
    }
    line += buf;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

const char* accumulation_name(Accumulation accumulation) {
  return accumulation == Accumulation::kPromoted ? "promoted" : "tensorcore";
}

Accumulation accumulation_from_env() {
  const char* value = std::getenv("TILEGLU_ACCUMULATION");
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "tensorcore") == 0) {
    return Accumulation::kTensorCore;
  }
  if (std::strcmp(value, "promoted") == 0) return Accumulation::kPromoted;
  std::fprintf(stderr,
               "tileglu: warning: TILEGLU_ACCUMULATION=%s is not 'tensorcore' or 'promoted'; "
               "using tensorcore\n",
               value);
  return Accumulation::kTensorCore;
}

bool is_candidate(const KernelConfig& config, Accumulation accumulation) {
  // Only the configs the cost model was checked against (see the comment at the top).
  if (!config.cost_model_candidate) return false;
  return accumulation == Accumulation::kPromoted ? config.promote_k_tiles > 0
                                                 : config.promote_k_tiles == 0;
}

bool is_valid(const KernelEntry& entry, const Shape& shape) {
  const KernelConfig& c = entry.config;
  if (shape.m <= 0 || shape.k <= 0 || shape.i <= 0) return false;
  if (c.tile_m <= 0 || c.tile_n <= 0 || c.tile_k <= 0 || c.stages <= 0) return false;
  if (c.cluster_m <= 0 || c.cluster_n <= 0) return false;
  // The kernel families the registry ships: Kernel-1 (split accumulators) and Kernel-2.
  if (c.kernel != 1 && c.kernel != 2) return false;
  if (c.split_k < 1) return false;
  if (c.max_m < 0 || (c.max_m > 0 && shape.m > c.max_m)) return false;
  // Split-K launches one cluster per tile: M-blocks go to grid y, below 2^16.
  if (c.split_k > 1 && (shape.m - 1) / c.tile_m + 1 >= (1 << 16)) return false;
  return (shape.dtype == DType::kFP16 ? entry.launch_fp16 : entry.launch_bf16) != nullptr;
}

Estimate estimate(const KernelConfig& config, const Shape& shape, int sm_count) {
  const int64_t cluster_m = config.cluster_m > 0 ? config.cluster_m : 1;
  const int64_t cluster_n = config.cluster_n > 0 ? config.cluster_n : 1;
  const int64_t cluster_size = cluster_m * cluster_n;
  Estimate e;
  e.units = ceil_div(shape.m, config.tile_m * cluster_m) * ceil_div(shape.i, config.tile_n * cluster_n);
  e.tiles = e.units * cluster_size;
  e.slots = sm_count / cluster_size > 0 ? sm_count / cluster_size : 1;
  e.waves = ceil_div(e.units, e.slots);
  const int64_t last = e.units - (e.waves - 1) * e.slots;
  e.last_wave_fill = static_cast<double>(last) / static_cast<double>(e.slots);
  e.useful = static_cast<double>(shape.m) * static_cast<double>(shape.i) /
             (static_cast<double>(e.tiles) * config.tile_m * config.tile_n);
  // Every CTA counts its whole X, gate and up tiles: multicast earns no discount (see above).
  const double feed =
      static_cast<double>(config.tile_m) + 2.0 * static_cast<double>(config.tile_n);
  e.cost = static_cast<double>(e.waves) * feed;
  return e;
}

int choose_from(const KernelEntry* entries, int count, const Shape& shape, int sm_count,
                Accumulation accumulation) {
  int best = -1;
  Estimate best_estimate;
  for (int idx = 0; idx < count; ++idx) {
    if (!is_valid(entries[idx], shape)) continue;
    if (!is_candidate(entries[idx].config, accumulation)) continue;
    const Estimate e = estimate(entries[idx].config, shape, sm_count);
    if (best < 0 || better(e, entries[idx].config, best_estimate, entries[best].config)) {
      best = idx;
      best_estimate = e;
    }
  }
  return best;
}

int choose_kernel(int m, int k, int i, DType dtype, int sm_count, const char* device_name) {
  int count = 0;
  const KernelEntry* entries = kernel_registry(&count);
  const std::shared_ptr<const TuningTable> user = user_table();
  const TuningTable* const tables[2] = {user.get(), embedded_table(device_name)};
  return choose_kernel_from(entries, count, m, k, i, dtype, sm_count, tables, 2);
}

int choose_kernel_from(const KernelEntry* entries, int count, int m, int k, int i, DType dtype,
                       int sm_count, const TuningTable* const* tables, int table_count) {
  Shape shape;
  shape.m = m;
  shape.k = k;
  shape.i = i;
  shape.dtype = dtype;

  Accumulation accumulation = accumulation_from_env();
  bool fell_back = false;
  int chosen = forced_index(entries, count, shape);
  const bool forced = chosen >= 0;
  const TuningTable* from_table = nullptr;
  int table_k = k, table_i = i;  // the tuned shape whose row was taken
  // Every table's exact (K, I) first, then every table's nearest tuned shape (tuning_table.h).
  for (int pass = 0; pass < 2 && !forced && from_table == nullptr; ++pass) {
    for (int t = 0; from_table == nullptr && t < table_count; ++t) {
      const TuningTable* table = tables[t];
      if (table == nullptr || table->sm_count != sm_count) continue;
      const int idx = table->lookup(m, k, i, dtype, pass == 1, &table_k, &table_i);
      if (idx < 0 || idx >= count || !is_valid(entries[idx], shape)) continue;
      if (entries[idx].config.ablation) continue;  // benchmark-only: forced or not at all
      const bool promoted = entries[idx].config.promote_k_tiles > 0;
      if (promoted != (accumulation == Accumulation::kPromoted)) continue;
      chosen = idx;
      from_table = table;
    }
  }
  if (!forced && from_table == nullptr) {
    chosen = choose_from(entries, count, shape, sm_count, accumulation);
    if (chosen < 0 && accumulation == Accumulation::kPromoted) {
      std::fprintf(stderr,
                   "tileglu: warning: TILEGLU_ACCUMULATION=promoted: no promoted-accumulation "
                   "config can run m=%d k=%d i=%d dtype=%s; using tensorcore accumulation\n",
                   shape.m, shape.k, shape.i, dtype_name(shape.dtype));
      accumulation = Accumulation::kTensorCore;
      fell_back = true;
      chosen = choose_from(entries, count, shape, sm_count, accumulation);
    }
  }
  if (env_flag("TILEGLU_LOG_DISPATCH")) {
    log_choice(entries, count, shape, sm_count, chosen, forced, from_table, table_k, table_i,
               accumulation, fell_back);
  }
  return chosen;
}

}  // namespace dispatch
}  // namespace tileglu
