// How the decode kernel (sm90_swiglu_decode.hpp) lays one problem over the GPU: token blocks,
// column strips and the split of K across the 8 warps of a CTA. Pure host code, so the CPU
// tests check it (tests/cpu/test_decode_plan.cpp).
//
// A CTA holds 8 warps = column sets x k-slices. Each warp owns col_groups_per_warp groups of 8
// output columns (16 weight rows per group: 8 gate rows and the 8 up rows of the same columns)
// for the CTA's token block, over its k-slice of K; the slices of one column set are summed in
// shared memory before SwiGLU. So a CTA covers 8 * col_groups_per_warp * (8 / k_slices) output
// columns, and more k-slices mean narrower strips, more CTAs and shorter K loops per warp.
//
// Why the plan targets at least 4 CTAs per resident slot: at M <= 64 every CTA is a stream of
// weight bytes and nothing else; with many short CTAs the hardware scheduler keeps every SM
// streaming until the end, while with about one wave of long CTAs the SMs that finish first sit
// idle. qwen2.5-72b (I = 29568, K = 8192) at 2 groups per warp: no k split gives 231 CTAs of 128
// columns over the whole K (under one CTA per slot at 2 CTAs per SM); 8 k-slices give 1848 CTAs
// of 16 columns, 7 per slot, each an eighth as long.
// More slices than that only add partial sums to reduce; a split stops where a warp would get
// fewer than two 32-deep k steps. Short K wants the deepest split that rule allows: at
// qwen2.5-0.5b (K = 896, 28 steps) 4 slices left each warp two batches of 4 steps, two HBM
// round trips in a row, and the kernel ran 12.4 us against the 64-row Pingpong tile's 11.5
// (H200, graph replay, bench/NOTES.md session 3); 8 slices leave 3-4 steps, one batch.
#pragma once

#include <cstdint>
#include <cstring>

// The stream-K share below is computed the same way by the kernel and by the CPU tests.
#if defined(__CUDACC__)
#define TILEGLU_HOST_DEVICE __host__ __device__
#else
#define TILEGLU_HOST_DEVICE
#endif

namespace tileglu::kernels {

struct DecodePlan {
  int token_blocks = 0;  // ceil(m / tokens_per_cta)
  int k_steps = 0;       // ceil(k / 32): 32-deep k steps (two m16n8k16 MMAs each)
  int k_slices = 0;      // 1, 2, 4 or 8 warps share each column set's K
  int64_t strips = 0;    // column strips: ceil(i / columns per CTA)
  int64_t tasks = 0;     // (token block, strip) pairs: token_blocks * strips
  int64_t ctas = 0;      // the grid: one CTA per task, or (streaming) min(tasks, resident CTAs)
};

inline constexpr int kDecodeWarps = 8;
inline constexpr int kDecodeStepK = 32;
// Below this many CTAs per resident CTA slot the plan splits K further (see above).
inline constexpr int kDecodeCtasPerSlot = 4;

// Whether K may be split `slices` ways: every warp keeps at least two steps.
inline bool decode_split_allowed(int k_steps, int slices) { return slices == 1 || k_steps >= 2 * slices; }

// The plan with K split `slices` ways, one CTA per task.
inline DecodePlan make_decode_plan_with_slices(int m, int k, int i, int tokens_per_cta,
                                               int col_groups_per_warp, int slices) {
  DecodePlan plan;
  plan.token_blocks = (m - 1) / tokens_per_cta + 1;
  plan.k_steps = (k - 1) / kDecodeStepK + 1;
  plan.k_slices = slices;
  const int64_t columns_per_cta = int64_t(8) * col_groups_per_warp * (kDecodeWarps / slices);
  plan.strips = (i - 1) / columns_per_cta + 1;
  plan.tasks = plan.strips * plan.token_blocks;
  plan.ctas = plan.tasks;
  return plan;
}

// tokens_per_cta = 8 * n8 MMA tiles and col_groups_per_warp are the kernel's template
// parameters; resident_ctas = SMs x CTAs one SM holds (occupancy). m, k, i > 0.
inline DecodePlan make_decode_plan(int m, int k, int i, int tokens_per_cta, int col_groups_per_warp,
                                   int64_t resident_ctas) {
  const int k_steps = (k - 1) / kDecodeStepK + 1;
  const int64_t target = kDecodeCtasPerSlot * (resident_ctas > 0 ? resident_ctas : 1);
  DecodePlan plan = make_decode_plan_with_slices(m, k, i, tokens_per_cta, col_groups_per_warp, 1);
  for (int slices = 2; slices <= kDecodeWarps && plan.ctas < target; slices *= 2) {
    if (!decode_split_allowed(k_steps, slices)) break;
    plan = make_decode_plan_with_slices(m, k, i, tokens_per_cta, col_groups_per_warp, slices);
  }
  return plan;
}

// The streaming decode kernel (Sm90SwigluDecodeStream) is persistent: `ctas` CTAs of one per SM
// walk the `tasks` in a grid stride, and each warp keeps a ring of k steps in flight across its
// tasks, so the split only has to balance work, not fill slots: it takes the deepest split that
// leaves every warp two steps (8 slices = 8-column strips, the most tasks to spread), and the
// grid is min(tasks, resident CTAs). One 8-column group per warp.
inline DecodePlan make_decode_stream_plan(int m, int k, int i, int tokens_per_cta,
                                          int64_t resident_ctas) {
  const int k_steps = (k - 1) / kDecodeStepK + 1;
  int slices = 1;
  while (slices < kDecodeWarps && decode_split_allowed(k_steps, 2 * slices)) slices *= 2;
  DecodePlan plan = make_decode_plan_with_slices(m, k, i, tokens_per_cta, 1, slices);
  const int64_t slots = resident_ctas > 0 ? resident_ctas : 1;
  plan.ctas = plan.tasks < slots ? plan.tasks : slots;
  return plan;
}

// The swap-AB WGMMA kernel (sm90_swiglu_swapab.hpp): how many CTAs of a cluster split the K of
// each (64-column tile, token block) unit. A split costs every CTA of the cluster a pipeline
// fill, the cluster launch and the DSMEM reduction before the SwiGLU; it pays only where the
// units alone leave most SMs without a weight stream. Measured (H200, bench/NOTES.md session 5,
// every split 1-8 of the six swap-AB configs on the seven Qwen2.5 shapes at M = 1, 16, 17, 32,
// i.e. 76-1848 units): no split was fastest in 135 of 168 cases and within 7 % of the fastest
// split in all (the others: 2-CTA-per-SM configs at 32B/72B, whose best split of 3 beat no
// split by 2-7 %, while the 1-CTA-per-SM configs unsplit were faster still); splitting 0.5B's
// 76 units in 2 (152 CTAs) took 9.8 -> 13.2 us, and the old cost model's splits of 2-4 cost
// 1.5B/3B 17-34 %. So: no split while the units cover half the SMs; below that, the fewest
// CTAs per unit that cover half of them, each CTA keeping kSwapABMinKTilesPerCta k tiles.
inline constexpr int kSwapABMaxSplits = 8;  // a portable cluster
inline constexpr int kSwapABMinKTilesPerCta = 4;

inline int swapab_splits(int64_t units, int k_tiles, int sm_count) {
  if (units <= 0 || k_tiles <= 0) return 1;
  const int64_t half_sms = sm_count >= 2 ? sm_count / 2 : 1;
  if (units >= half_sms) return 1;
  int64_t s = (half_sms - 1) / units + 1;
  if (s > kSwapABMaxSplits) s = kSwapABMaxSplits;
  while (s > 1 && k_tiles < kSwapABMinKTilesPerCta * s) --s;
  return int(s);
}

// The balanced persistent grid of the swap-AB kernel (kPersistent, sm90_swiglu_swapab.hpp): as
// many rounds as `units` need on `resident` CTAs (those that fit on the GPU at once), then the
// fewest CTAs that finish the units in that many rounds, so every CTA streams `rounds` units or
// one fewer and no CTA waits for a partial last wave. resident <= 0 (occupancy unknown): one
// round of all units, what the unbalanced grid does.
inline int64_t swapab_balanced_grid(int64_t units, int64_t resident) {
  if (units <= 0) return 1;
  if (resident <= 0) resident = units;
  const int64_t rounds = (units - 1) / resident + 1;
  return (units - 1) / rounds + 1;
}

// The cluster stream-K grid of the swap-AB kernel (kStreamK, sm90_swiglu_swapab.hpp): C clusters
// of S CTAs, each cluster a run of whole units whose k tiles its S CTAs share evenly. A CTA's
// time is its share of its cluster's run: ceil(units / C) / S units at most. So take the S in
// 2..kSwapABStreamKMaxSplits (max_clusters[S] of them fit at once, from the driver) with the
// smallest such share, the smaller S on a tie (fewer cut units, fewer partials to add). At 132
// SMs with every cluster size fitting whole: 7B (296 units) S = 4, 33 clusters of 9 units, 2.25
// units per CTA (the balanced grid: 3 units on 99 CTAs); 14B and 32B (216, 432) S = 3; 72B (462)
// S = 2, 66 clusters of 7 units. On the H200 measured (session 11) clusters of 3 and 4 CTAs fit
// only 39 and 30 times, pairs 66: the plan runs pairs at 1.5B-72B and triples at 0.5B. Returns
// splits = 0 when no cluster size fits at all.
inline constexpr int kSwapABStreamKMaxSplits = 4;

struct SwapABStreamKPlan {
  int splits = 0;    // S: CTAs per cluster
  int clusters = 0;  // C: the grid is C x S CTAs
};

// max_clusters[s] for s in 2..kSwapABStreamKMaxSplits (entries 0 and 1 unused; <= 0: does not fit).
inline SwapABStreamKPlan swapab_stream_k_plan(int64_t units, const int* max_clusters) {
  SwapABStreamKPlan best;
  int64_t best_num = 0, best_den = 1;  // the best share, best_num / best_den units per CTA
  for (int s = 2; s <= kSwapABStreamKMaxSplits; ++s) {
    const int64_t c = max_clusters[s];
    if (c <= 0) continue;
    const int64_t clusters = units < c ? (units > 0 ? units : 1) : c;  // no cluster without a unit
    const int64_t per_cluster = (units - 1) / clusters + 1;
    // per_cluster / s < best_num / best_den, in integers
    if (best.splits == 0 || per_cluster * best_den < best_num * s) {
      best.splits = s;
      best.clusters = int(clusters);
      best_num = per_cluster;
      best_den = s;
    }
  }
  return best;
}

// The grid stream-K grid of the swap-AB kernel (kSwapABGridStreamK, sm90_swiglu_swapab.hpp):
// one run of all units over every CTA that fits on the GPU at once (`resident`), each CTA an
// equal k-tile share of it (SwapABStreamKShare with one cluster of that many CTAs), so every SM
// streams the same bytes whatever the unit count: 7B (296 units of 56 k tiles) 125.6 k tiles per
// CTA on 132 CTAs, where whole units leave the balanced grid 3 units (168 k tiles) on 99 CTAs and
// cluster pairs 2.5 units (140) per CTA. Cut units meet through a partial slot per CTA in global
// memory, kSwapABGridMaxCtas of them. No more CTAs than leave each kSwapABMinKTilesPerCta k tiles
// (a share shorter than that is mostly its partial's round trip).
inline constexpr int kSwapABGridMaxCtas = 160;  // >= 132 SMs (H100/H200 SXM) at one CTA per SM

inline int swapab_grid_stream_k_ctas(int64_t units, int k_tiles, int64_t resident) {
  if (units <= 0 || k_tiles <= 0) return 1;
  int64_t g = resident > 0 ? resident : 1;
  if (g > kSwapABGridMaxCtas) g = kSwapABGridMaxCtas;
  const int64_t by_work = units * k_tiles / kSwapABMinKTilesPerCta;
  if (g > by_work) g = by_work > 0 ? by_work : 1;
  return int(g);
}

// The value of a non-empty decimal string if it is at most `max`, else -1 (signs, other
// characters and overflow included): the environment knobs below.
inline int parse_decimal_at_most(const char* value, int max) {
  int n = 0;
  for (const char* c = value; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || n > max) return -1;
    n = 10 * n + (*c - '0');
  }
  return n <= max ? n : -1;
}

// TILEGLU_SWAPAB_GRID: a fixed CTA count for the grid stream-K configs (clamped to what fits and
// to kSwapABGridMaxCtas), to test cut units shared by many CTAs or none. Returns the count for a
// decimal 1..kSwapABGridMaxCtas, 0 for unset or empty, -1 for anything else.
inline int parse_swapab_grid(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  const int n = parse_decimal_at_most(value, kSwapABGridMaxCtas);
  return n >= 1 ? n : -1;
}

// TILEGLU_SWAPAB_ISSUE_BATCH: the swap-AB producer issues its stages in batches of this many k
// tiles of a unit, waiting until that many stages are free (1, the default: each as soon as it
// is). A batch puts up to B x 128 bytes of each weight row in flight at once instead of 128,
// which is what DRAM sees as one run per row (sm90_tma_l2_promotion.hpp says why that may
// matter; bench/NOTES.md session 13). Returns 1..kSwapABMaxIssueBatch (the launch clamps it to
// the stages less one: swapab_load_unit says why), 0 for unset or empty, -1 for anything else.
inline constexpr int kSwapABMaxIssueBatch = 8;

inline int parse_swapab_issue_batch(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  const int n = parse_decimal_at_most(value, kSwapABMaxIssueBatch);
  return n >= 1 ? n : -1;
}

// TILEGLU_SWAPAB_K_STAGGER: the swap-AB kernels' sweep of a whole unit (not a stream-K or
// split-K piece) starts at k tile (col_blk x S) mod k_tiles and wraps around. Why: the CTAs of a
// wave start together and advance alike, so without it they all request the same 128-byte column
// (the same address bits below the row stride) of their rows at once, which the DRAM address
// hash may map to fewer channels than a linear read spreads over; with S = 1 the 132 CTAs of a
// 72B wave stand at 132 different k tiles. The sum's order changes (still deterministic; exact
// inputs stay exact). Returns 0..kSwapABMaxKStagger for a decimal, 0 for unset or empty, -1 for
// anything else.
inline constexpr int kSwapABMaxKStagger = 1024;

inline int parse_swapab_k_stagger(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  return parse_decimal_at_most(value, kSwapABMaxKStagger);
}

// The staggered sweep: the first k tile of a whole unit of 64-column tile `col_blk` (0 for a cut
// piece or no stagger), and the k tile its step `k_step` reads (each k tile once, wrapping).
TILEGLU_HOST_DEVICE inline int swapab_k_rotation(int col_blk, int stagger, int k_tiles, bool whole_unit) {
  return stagger > 0 && whole_unit && k_tiles > 0 ? int(int64_t(col_blk) * stagger % k_tiles) : 0;
}
TILEGLU_HOST_DEVICE inline int swapab_staggered_k_tile(int k_step, int rotation, int k_tiles) {
  return k_step + rotation < k_tiles ? k_step + rotation : k_step + rotation - k_tiles;
}

// TILEGLU_SWAPAB_PACKED_WEIGHTS (measuring only, session 19): the call's gate weight pointer is a
// slot-packed copy of [Wg; Wu] (the up pointer is not read), which the swap-AB kernels read by the
// same 64 x 64 TMA boxes into the same shared-memory image, so the results are bit-identical; only
// the addresses DRAM sees differ. A slot is 16 KiB: for 64-column tile t and k tile j, the gate rows
// 64 t .. 64 t + 63, then the up rows, each 64 k values (64 j .. 64 j + 63) row-major. Slots in
// tile order (1: slot (t, j) at element (t * k_tiles + j) * 8192, each tile's K contiguous) or in
// k order (2: at (j * tiles + t) * 8192, so the CTAs of a wave, on neighbouring tiles at the same
// k step, read neighbouring slots: the whole GPU sweeps memory linearly, as the read probe's
// grid-strided `bulk` does). I and K must be multiples of 64. Why: on the H200 the kernels read
// 72B's weights at ~235 us, as does the read probe of their row-strided 128-byte order, while a
// linear read takes ~215. On an H100 (session 19) neither order reached the linear read (72B:
// 316.7-318.9 us against 309.4; bench/stream_probe.cuh, `packed` variants): there the gap is the
// whole units' last round, and the kernels gained at most 2 %. Only the swap-AB family honours
// it (a call dispatched elsewhere fails: the other kernels would read the packed bytes as
// row-major). Returns 1 or 2, 0 for unset, empty or "0", -1 for anything else.
inline constexpr int kSwapABPackedTileOrder = 1;
inline constexpr int kSwapABPackedKOrder = 2;

inline int parse_swapab_packed_weights(const char* value) {
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "0") == 0) return 0;
  if (std::strcmp(value, "1") == 0) return kSwapABPackedTileOrder;
  if (std::strcmp(value, "2") == 0) return kSwapABPackedKOrder;
  return -1;
}

// Why packed weights (parse_swapab_packed_weights' `order`) cannot serve a problem of this I and
// K, or null when they can (order 0: nothing is packed): the one rule the C API refuses a call by
// and the launcher checks again.
inline const char* swapab_packed_weights_refusal(int order, int64_t i, int64_t k) {
  if (order < 0) return "is not 0, 1 or 2";
  if (order == 0) return nullptr;
  if (i % 64 != 0 || k % 64 != 0) return "needs I and K multiples of 64 (whole 64 x 64 slots)";
  if (2 * i * (k / 64) >= (int64_t(1) << 31)) return "cannot address 2 I K / 64 >= 2^31 packed rows";
  return nullptr;
}

// The row of the packed weights, viewed as [2 I K / 64 rows, 64], where the box of tile `tile`,
// k tile `k_tile`, half `half` (0 gate, 1 up) starts, in `order` (1 tile order, 2 k order): each
// box is 64 rows of 64.
TILEGLU_HOST_DEVICE inline int64_t swapab_packed_box_row(int order, int tile, int k_tile, int tiles, int k_tiles,
                                                         int half) {
  int64_t const slot = order == kSwapABPackedKOrder ? int64_t(k_tile) * tiles + tile : int64_t(tile) * k_tiles + k_tile;
  return (slot * 2 + half) * 64;
}

// TILEGLU_TMA_L2_PROMOTION: the L2 promotion of the kernels' weight descriptors, "none", "64",
// "128" (CuTe's own) or "256" bytes (sm90_tma_l2_promotion.hpp); unset, the device's default
// (tma_l2_promotion.h). Returns the bytes (1 for "none"), 0 for unset or empty, -1 for anything else.
inline int parse_tma_l2_promotion(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  if (std::strcmp(value, "none") == 0) return 1;
  if (std::strcmp(value, "64") == 0) return 64;
  if (std::strcmp(value, "128") == 0) return 128;
  if (std::strcmp(value, "256") == 0) return 256;
  return -1;
}

// One segment of a stream-K CTA's share: k tiles [k_begin, k_end) of unit `unit`.
struct SwapABSegment {
  int unit, k_begin, k_end;
};

// The stream-K share of CTA `rank` of cluster `cluster`: its k-tile range [begin, end) in the
// cluster's unit-major, k-minor run of units, and the run's first unit. A segment (a unit's k
// tiles within the share) that starts past k tile 0 can only be the share's first; one that
// starts at 0 and ends before the unit does can only be its last (tests/cpu/test_decode_plan.cpp).
struct SwapABStreamKShare {
  int first_unit;     // the cluster's first unit
  int64_t run_tiles;  // k tiles in the cluster's run: units x k_tiles
  int64_t begin, end; // this CTA's range within the run

  TILEGLU_HOST_DEVICE SwapABStreamKShare(int units, int clusters, int splits, int k_tiles, int cluster, int rank) {
    first_unit = int(int64_t(units) * cluster / clusters);
    int const run_units = int(int64_t(units) * (cluster + 1) / clusters) - first_unit;
    run_tiles = int64_t(run_units) * k_tiles;
    begin = range_begin(rank, splits);
    end = range_begin(rank + 1, splits);
  }
  TILEGLU_HOST_DEVICE int64_t range_begin(int r, int splits) const { return run_tiles * r / splits; }
  // The segment starting at run position `pos` (begin <= pos < end).
  TILEGLU_HOST_DEVICE SwapABSegment segment_at(int64_t pos, int k_tiles) const {
    int const local_unit = int(pos / k_tiles);
    int const k_begin = int(pos - int64_t(local_unit) * k_tiles);
    int64_t const k_end = k_begin + (end - pos);
    return SwapABSegment{first_unit + local_unit, k_begin, int(k_end < k_tiles ? k_end : k_tiles)};
  }
};

// TILEGLU_SWAPAB_SPLITS: a fixed split in place of the rule above, for measuring the rule (the
// tuner times one split per shape; this times the others). Returns the split for "1".."8", 0 for
// unset or empty (the rule decides), -1 for anything else (the caller warns; the rule decides).
inline int parse_swapab_splits(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  const int n = parse_decimal_at_most(value, kSwapABMaxSplits);
  return n >= 1 ? n : -1;
}

}  // namespace tileglu::kernels
