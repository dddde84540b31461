// Swap-AB SwiGLU kernel for decode and small batches (M <= 128): the weights take the 64-row side
// of WGMMA, the tokens its narrow N side (8-128), TMA streams both, and where the tiles alone
// would leave most SMs idle the CTAs of a cluster split K and reduce through distributed shared
// memory before the SwiGLU.
//
// Why: at M <= 64 the problem is a stream of 2·I·K weight elements. The Pingpong kernel puts the
// tokens on the 64-row WGMMA side (63 of 64 rows padding at M = 1) and has one 64-row X tile per
// stage to feed; the mma.sync decode kernels (sm90_swiglu_decode.hpp) issue one 16-byte load per
// lane per weight row segment and stall on their own instruction stream at small models (ncu,
// qwen2.5-0.5b M = 1: 10.4 us against cuBLAS's 7.7, whose kernel is a swap-AB 128x8 WGMMA tile
// with 12 TMA stages, bench/NOTES.md session 4). Here a stage is three TMA copies (64 gate rows,
// the 64 up rows of the same output columns, the token block) issued by one thread, so the
// instruction count per byte is negligible and a CTA keeps its stages of weights in flight.
//
// Tile: 64 output columns = A of 128 weight rows, [gate 64 | up 64], so the WGMMA runs two m64
// atoms along M: atom 0 gives X·Wgᵀ and atom 1 X·Wuᵀ in the same registers of the same thread
// (the m64nNk16 accumulator layout does not depend on the atom), and the SwiGLU pairs them with
// no data movement. B is the token block, K-major like A (X is [M, K] row-major): a TN GEMM with
// the output transposed on the way out, out[token][column].
//
// Split K (runtime, 1-8 CTAs per cluster, decode_plan.h swapab_splits): more CTAs than tiles where
// the tiles alone leave over half the SMs idle (on the Qwen2.5 shapes they never do, and a split
// there only costs: the measurements are in decode_plan.h). CTA r of a cluster takes k tiles
// [K_t·r/S, K_t·(r+1)/S); after the sweep each CTA writes its fp32 accumulators over its dead
// pipeline buffers, and the CTAs reduce groups of 4 values in turn (group g by CTA g % S), reading
// their peers' partials through DSMEM in rank order: deterministic, no workspace, no atomics.
// TILEGLU_SWAPAB_SPLITS fixes the split, to measure the rule.
//
// Structure (256 threads; one or two CTAs per SM, by the stage and token counts): warpgroup 0
// produces (one thread issues the TMA copies), warpgroup 1 consumes (one WGMMA batch in flight,
// each stage released as soon as the WGMMA reading it retires: sm90_wgmma_k_sweep.hpp). Tails in
// I, K and M come from TMA's zero fill and are never stored.
//
// Balanced persistent grid (kPersistent, the `_bal` configs): one CTA per unit (64-column tile,
// token block) leaves the weight stream two gaps. (1) Units are equal, so the CTAs of a wave
// finish together and the next wave starts with every SM's ring empty: no bytes in flight for
// one DRAM latency per wave. (2) The last, partial wave streams from a fraction of the SMs (7B:
// 296 units = 2.24 waves of 132; its last 32 CTAs hold 32 rings of bytes in flight). Here the
// grid is ceil(units / rounds) CTAs, rounds = ceil(units / resident CTAs), CTA g taking units
// g, g + grid, ...: every CTA streams `rounds` units (or one fewer) back to back, its producer
// filling the next unit's stages while the consumer finishes the last one, and all CTAs end
// together. The SMs left idle (7B at one CTA per SM: 99 CTAs, 3 units each) are not needed to
// keep HBM busy if each ring holds enough bytes. No K split (the splits rule is for grids that
// leave SMs idle; this grid already chose to). Measured (H200, bench/NOTES.md session 9, against
// the best one-CTA-per-unit config): 2-5 % faster at 0.5B-14B, even at 32B, 1.5-2 % slower at 72B
// (116 CTAs of 4 units hold fewer bytes in flight than 132 of one); the tuner picks per shape.
//
// Cluster stream-K (kGrid == kSwapABStreamK, the `_sk` configs): the balanced grid leaves SMs
// idle (7B: 99 of 132) because units are whole; stream-K gives every CTA the same number of k
// tiles instead. The grid is C clusters of S CTAs (C = the clusters of S that fit at once, S in
// 2-4 chosen per shape by decode_plan.h swapab_stream_k_plan): cluster c takes a contiguous run
// of whole units (U c / C .. U (c + 1) / C), laid out unit-major, k-minor, and its S CTAs split
// that run's k tiles evenly, so a unit is cut where a CTA's share ends. A cut unit's first CTA
// (the one holding its k tile 0, as its last segment) owns it: the others hold it as their
// first segment, write their fp32 partial to their own shared memory and arrive on the cluster
// barrier (release); the owner waits on it (acquire) at its end, adds the partials in rank
// order through DSMEM and does the SwiGLU and stores. Every CTA arrives right after its first
// segment, so the owner's wait is over long before it gets there; a second cluster barrier at
// the end keeps a CTA's shared memory alive until its owner has read it. Deterministic, no
// workspace, no atomics, no cross-cluster dependency (whole units per cluster). Measured (H200,
// bench/NOTES.md session 11): clusters of 3 and 4 fit only 39 and 30 times (117 and 120 SMs),
// pairs 66 times, so most shapes run pairs, and whole units per pair balance no better than the
// balanced grid at 7B (296 units on 66 pairs: 2.5 per CTA against an even 2.24; 69.1-69.5 us
// either way); 1-2 % faster than the balanced grid at 32B and 72B, 11-25 % slower at 0.5B-1.5B.
// Units of 32 columns (gate and up interleaved by 8 rows in one m64 atom, so pairs balance: 7B
// 4.5 narrow units per CTA of an even 4.48) ran 1-20 % slower still (commit 18a197d, reverted).
//
// Grid stream-K (kGrid == kSwapABGridStreamK, the `_gsk` configs): what the cluster grid cannot
// give, one run of all units over every CTA that fits (7B: 125.6 k tiles on each of 132 CTAs),
// the cut units meeting through global memory instead of DSMEM. The same share and owner rule as
// the cluster grid (a cut unit's owner is the CTA holding its k tile 0; the others hand over
// their partial right after their first segment); the hand-over is a slot and a lock word per
// CTA in module memory (sm90_swapab_grid_stream_k_body says why that is safe across launches on
// concurrent streams and graph replays), and the launch is cooperative so that every CTA a wait
// depends on is resident. Predicted (session 12): from the balanced grid's 99 CTAs toward the
// 132-CTA read probe (7B: 67.4 -> 64.1 us of pure read time). Measured (H200, graph replay, M = 1,
// bench/NOTES.md session 12): 7B 67.6 us, the balanced grid's time; 32B 130.7 against 133.9 (the
// table runs it there); 72B 0.3 % under one CTA per unit; 14B 1 % and 0.5B-3B 1.4-4.3 us slower
// than the balanced grid. The cooperative launch costs nothing (the read probe launched so: 63.07
// us either way); the exchange on the consumer's path cost 1.3-4 us, and one exchange warp with one
// load in flight up to 11 us (the first two versions).
//
// Measured (H200, bench/NOTES.md session 4): qwen2.5-0.5b M = 1 7.9 us under ncu (cuBLAS 7.7),
// 9.4-10.0 us by graph replay at M <= 16, 0.83-0.88x cuBLAS GEMM + silu; 14B-72B at M <= 16 3.9-4.2
// TB/s; deep rings at one CTA per SM win the smallest and largest models, two CTAs of 5-6 stages
// the middle ones (the tuner picks per shape).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>

#include "decode_plan.h"
#include "sm90_cluster_dsmem.hpp"
#include "sm90_grid_exchange.hpp"
#include "sm90_launch.hpp"
#include "sm90_tma_pipeline.hpp"
#include "sm90_tma_l2_promotion.hpp"
#include "sm90_wgmma_k_sweep.hpp"
#include "swiglu_activation.hpp"
#include "swiglu_params.h"

namespace tileglu::kernels {

// How the swap-AB kernel lays its units over the GPU (header comment of Sm90SwigluSwapAB's file).
inline constexpr int kSwapABPerUnit = 0;   // one cluster of `splits` CTAs per unit, in waves
inline constexpr int kSwapABBalanced = 1;  // balanced persistent grid: whole units per CTA
inline constexpr int kSwapABStreamK = 2;   // cluster stream-K: equal k tiles per CTA
inline constexpr int kSwapABGridStreamK = 3;  // grid stream-K: equal k tiles per CTA of the GPU

template <class Element_, int kTokens_, int kStages_, int kGrid_ = kSwapABPerUnit>
struct Sm90SwigluSwapAB {
  using Element = Element_;
  static constexpr int kGrid = kGrid_;
  static_assert(kGrid == kSwapABPerUnit || kGrid == kSwapABBalanced || kGrid == kSwapABStreamK ||
                    kGrid == kSwapABGridStreamK,
                "grid mode");
  static constexpr bool kPersistent = kGrid == kSwapABBalanced;  // balanced persistent grid
  static constexpr bool kStreamK = kGrid == kSwapABStreamK;      // cluster stream-K
  static constexpr bool kGridStreamK = kGrid == kSwapABGridStreamK;  // grid stream-K
  static constexpr int kTileCols = 64;             // output columns per tile
  static constexpr int kTileRows = 2 * kTileCols;  // weight rows per tile: 64 gate, then 64 up
  static constexpr int kTokens = kTokens_;         // tokens per CTA: the WGMMA's N
  static constexpr int kTileK = 64;                // one 128-byte swizzle atom of K per stage
  static constexpr int kStages = kStages_;
  static constexpr int kThreads = 256;
  static constexpr int kConsumerThreads = 128;
  static_assert(kTokens % 8 == 0 && kTokens >= 8 && kTokens <= 128, "WGMMA N of 8 to 128 tokens");
  // Up to 64 tokens the accumulators (kTokens registers per consumer thread) leave room for two
  // CTAs per SM at 128 registers; 128 tokens need one CTA per SM and up to 255 registers.
  static constexpr int kMinCtasPerSm = kTokens <= 64 ? 2 : 1;

  using MmaAtom = decltype(cute::GMMA::ss_op_selector<
                           Element, Element, float,
                           cute::Shape<cute::_64, cute::Int<kTokens>, cute::Int<kTileK>>,
                           cute::GMMA::Major::K, cute::GMMA::Major::K>());
  using TiledMma = decltype(cute::make_tiled_mma(MmaAtom{}));
  // ss_op_selector falls back to a narrower atom for an N it has no instruction for (N = 104 is
  // one of CUTLASS's "extended" shapes, off by default: it chose 64x8 and tiled it 13 times,
  // which broke the gate/up pairing below; session 9). One atom must cover all the tokens.
  static_assert(cute::size<1>(typename cute::MMA_Traits<MmaAtom>::Shape_MNK{}) == kTokens,
                "no single WGMMA instruction of N = kTokens: choose a token count CUTLASS selects");

  // K-major, 128-byte swizzled: A stage = [gate 64 rows | up 64 rows] x 64 k (tile_to_shape fills
  // rows first, so each half is one dense block, what one TMA copy writes); B stage = tokens x 64 k.
  using SmemAtom = cute::GMMA::Layout_K_SW128_Atom<Element>;
  using SmemLayoutA = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTileRows>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  using SmemLayoutB = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTokens>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  using SmemLayoutAHalf = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTileCols>{}, cute::Int<kTileK>{})));
  using SmemLayoutBStage = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTokens>{}, cute::Int<kTileK>{})));
  static constexpr int kHalfElemsA = kTileCols * kTileK;
  static constexpr int kStageElemsA = 2 * kHalfElemsA;
  static constexpr int kStageElemsB = kTokens * kTileK;
  static_assert(cute::cosize_v<SmemLayoutAHalf> == kHalfElemsA, "a weight half must be dense");
  static_assert(cute::cosize_v<SmemLayoutA> == kStageElemsA * kStages, "A stages must be dense");
  static_assert(cute::cosize_v<SmemLayoutB> == kStageElemsB * kStages, "B stages must be dense");
  static constexpr uint32_t kTmaTransactionBytes = uint32_t((kTileRows + kTokens) * kTileK * sizeof(Element));

  using Pipeline = Sm90TmaPipeline<kStages>;
  using PipelineState = typename Pipeline::PipelineState;

  // fp32 accumulator values per consumer thread: kValuesPerHalf of gate (atom 0), then as many of
  // up (atom 1) at the same positions.
  static constexpr int kAccumValues = kTileRows * kTokens / kConsumerThreads;
  static constexpr int kValuesPerHalf = kAccumValues / 2;
  static constexpr int kGroupsPerHalf = kValuesPerHalf / 4;  // float4 groups, the unit of the split-K reduction
  static_assert(kValuesPerHalf % 4 == 0, "partials move as float4");

  struct Tensors {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutA>, 1024> a;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutB>, 1024> b;
  };
  struct SharedStorage {
    union {
      Tensors tensors;
      // After the K sweep: this CTA's partial accumulators, value v of consumer thread t at
      // [v / 4][t][v % 4], so a warp's float4 accesses are contiguous.
      alignas(16) float partial[kAccumValues * kConsumerThreads];
    };
    // Stream-K: this CTA's partial of the unit it holds as its first segment, read by the unit's
    // owner through DSMEM while this CTA's ring keeps streaming (so it cannot alias the ring).
    alignas(16) float stream_partial[kStreamK || kGridStreamK ? kAccumValues * kConsumerThreads : 4];
    // Grid stream-K: the sum of the partials of the cut unit this CTA owns, in its consumer's
    // layout, staged by the exchange warps from the peers' global slots.
    alignas(16) float owner_partial[kGridStreamK ? kAccumValues * kConsumerThreads : 4];
    typename Pipeline::SharedStorage pipeline;
  };
  static constexpr int kSmemBytes = smem_bytes_with_alignment_slack<SharedStorage>();

  // Row-major [rows, K] global tensors with a runtime leading dimension.
  using GmemLayout = cute::Layout<cute::Shape<int, int>, cute::Stride<int64_t, cute::_1>>;
  using GmemTensor = decltype(cute::make_tensor(cute::make_gmem_ptr(static_cast<Element const*>(nullptr)), GmemLayout{}));
  using TmaW = decltype(cute::make_tma_copy(cute::SM90_TMA_LOAD{}, GmemTensor{}, SmemLayoutAHalf{}));
  using TmaX = decltype(cute::make_tma_copy(cute::SM90_TMA_LOAD{}, GmemTensor{}, SmemLayoutBStage{}));

  struct Params {
    TmaW tma_gate;
    TmaW tma_up;
    TmaX tma_x;
    Element* out;
    int64_t ld_out;
    int m, k, i;
    int k_tiles;  // ceil(K / 64)
    int splits;   // CTAs per cluster sharing one tile's K (1-8); 1 when kPersistent; S when kStreamK
    int tiles;    // 64-column tiles: unit u is tile u % tiles of token block u / tiles
    int units;    // tiles x token blocks
    int clusters; // kStreamK: C clusters of `splits` CTAs (the grid), each a run of whole units
    // kGridStreamK: this launch's tag in the exchange's lock words (grid_exchange_next_epoch), nonzero,
    // below kGridExchangeReady; `splits` is the grid's CTA count.
    unsigned long long epoch;
    int issue_batch;  // the producer's stages per batch (TILEGLU_SWAPAB_ISSUE_BATCH; 1: one at a time)
    int k_stagger;    // k tiles of offset per 64-column tile of a whole unit's sweep (TILEGLU_SWAPAB_K_STAGGER)
    // TILEGLU_SWAPAB_PACKED_WEIGHTS (decode_plan.h): 0, or the slot order (1 tile, 2 k) of the
    // packed weights that tma_gate describes as [2 I K / 64, 64]; both halves of a stage are read
    // through it and tma_up is unused.
    int packed_weights;
  };
};

// The grid stream-K exchange (kGridStreamK; header comment): per CTA of the grid, a slot for the
// partial of the cut unit it holds as its first segment and a lock word. Module memory, zero at
// load, so no allocation under stream capture and no workspace argument; a launch leaves every
// lock word it took at zero. Per kernel instantiation (tokens, stages, dtype); the protocol is
// sm90_grid_exchange.hpp's.
template <class Kernel>
__device__ float4 g_swapab_exchange_partials[kSwapABGridMaxCtas * (Kernel::kAccumValues / 4) *
                                             Kernel::kConsumerThreads];
template <class Kernel>
__device__ unsigned long long g_swapab_exchange_locks[kSwapABGridMaxCtas];

// The producer's TMA copies of one unit's k tiles [k_begin, k_begin + k_count) into the ring
// (one elected thread).
template <class Kernel>
CUTLASS_DEVICE void swapab_load_unit(typename Kernel::Params const& p, typename Kernel::Pipeline& pipeline,
                                     typename Kernel::PipelineState& write_state,
                                     typename Kernel::SharedStorage& smem, int col_blk, int token_blk,
                                     int k_begin, int k_count) {
  using namespace cute;
  using Element = typename Kernel::Element;
  constexpr int kTileCols = Kernel::kTileCols;
  constexpr int kTileK = Kernel::kTileK;
  Tensor mG = p.tma_gate.get_tma_tensor(make_shape(p.i, p.k));
  Tensor mU = p.tma_up.get_tma_tensor(make_shape(p.i, p.k));
  Tensor mX = p.tma_x.get_tma_tensor(make_shape(p.m, p.k));
  Tensor gG = local_tile(mG, make_shape(Int<kTileCols>{}, Int<kTileK>{}), make_coord(col_blk, _));
  Tensor gU = local_tile(mU, make_shape(Int<kTileCols>{}, Int<kTileK>{}), make_coord(col_blk, _));
  Tensor gX = local_tile(mX, make_shape(Int<Kernel::kTokens>{}, Int<kTileK>{}), make_coord(token_blk, _));
  auto tma_g = p.tma_gate.get_slice(Int<0>{});
  auto tma_u = p.tma_up.get_slice(Int<0>{});
  auto tma_x = p.tma_x.get_slice(Int<0>{});
  Tensor tGgG = tma_g.partition_S(gG);  // (TMA, TMA_M, TMA_K, k tiles)
  Tensor tUgU = tma_u.partition_S(gU);
  Tensor tXgX = tma_x.partition_S(gX);
  // TILEGLU_SWAPAB_K_STAGGER (decode_plan.h): a whole unit's sweep starts at k tile
  // col_blk x stagger (mod k_tiles) and wraps around, so that the CTAs of a wave do not all read
  // the same 128-byte column of their rows at once. Cut units (stream-K, split K) keep their order.
  int const rotation = swapab_k_rotation(col_blk, p.k_stagger, p.k_tiles, k_begin == 0 && k_count == p.k_tiles);
  auto issue = [&](int k_step) {
    int const kt = swapab_staggered_k_tile(k_step, rotation, p.k_tiles);
    auto* full_barrier = pipeline.producer_get_barrier(write_state);
    int const stage = write_state.index();
    Element* const stage_a = smem.tensors.a.data() + stage * Kernel::kStageElemsA;
    Tensor sG = make_tensor(make_smem_ptr(stage_a), typename Kernel::SmemLayoutAHalf{});
    Tensor sU = make_tensor(make_smem_ptr(stage_a + Kernel::kHalfElemsA), typename Kernel::SmemLayoutAHalf{});
    Tensor sX = make_tensor(make_smem_ptr(smem.tensors.b.data() + stage * Kernel::kStageElemsB),
                            typename Kernel::SmemLayoutBStage{});
    if (p.packed_weights) {
      // The same 64 x 64 boxes (so the same swizzled image) from their packed slot.
      uint64_t const hint = uint64_t(TMA::CacheHintSm90::EVICT_NORMAL);
      for (int half = 0; half < 2; ++half) {
        SM90_TMA_LOAD_2D::copy(p.tma_gate.get_tma_descriptor(), full_barrier, hint,
                               stage_a + half * Kernel::kHalfElemsA, 0,
                               int32_t(swapab_packed_box_row(p.packed_weights, col_blk, kt, p.tiles, p.k_tiles,
                                                             half)));
      }
    } else {
      copy(p.tma_gate.with(*full_barrier), tGgG(_, _, _, kt), tma_g.partition_D(sG));
      copy(p.tma_up.with(*full_barrier), tUgU(_, _, _, kt), tma_u.partition_D(sU));
    }
    copy(p.tma_x.with(*full_barrier), tXgX(_, _, _, kt), tma_x.partition_D(sX));
    ++write_state;
  };
  int const k_end = k_begin + k_count;
  if (p.issue_batch <= 1 || Kernel::kStages <= 2) {
    CUTLASS_PRAGMA_NO_UNROLL
    for (int kt = k_begin; kt < k_end; ++kt) {
      pipeline.producer_acquire(write_state);
      issue(kt);
    }
    return;
  }
  // TILEGLU_SWAPAB_ISSUE_BATCH (decode_plan.h): wait for `batch` free stages, then issue them
  // back to back (stages are freed in order, so waiting on each in turn is waiting for all). At
  // most kStages - 1: the consumer keeps a stage until the next one has landed
  // (sm90_wgmma_k_sweep.hpp), so a batch of the whole ring would wait on a stage that only its own
  // copies could free.
  int const max_batch = p.issue_batch < Kernel::kStages - 1 ? p.issue_batch : Kernel::kStages - 1;
  CUTLASS_PRAGMA_NO_UNROLL
  for (int kt = k_begin; kt < k_end;) {
    int const batch = k_end - kt < max_batch ? k_end - kt : max_batch;
    typename Kernel::PipelineState acquire_state = write_state;
    CUTLASS_PRAGMA_NO_UNROLL
    for (int j = 0; j < batch; ++j, ++acquire_state) pipeline.producer_acquire(acquire_state);
    CUTLASS_PRAGMA_NO_UNROLL
    for (int j = 0; j < batch; ++j, ++kt) issue(kt);
  }
}

// The consumer warpgroup's SwiGLU of one unit and the stores of its outputs. With splits > 1
// each gate and up group of 4 values is first summed over the cluster's partials (DSMEM, rank
// order), and this CTA finishes the groups g with g % splits == rank.
template <class Kernel, class Accum>
CUTLASS_DEVICE void swapab_store_unit(Accum const& accum, typename Kernel::Params const& p, int col_blk,
                                      int token_blk, int splits, int rank, uint32_t local_partial,
                                      int wg_thread_idx) {
  using namespace cute;
  using Element = typename Kernel::Element;
  constexpr int kHalf = Kernel::kValuesPerHalf;
  typename Kernel::TiledMma tiled_mma;
  // Coordinates (weight row in [0, 128), token in [0, kTokens)) of each accumulator value.
  Tensor coord = make_identity_tensor(make_shape(Int<Kernel::kTileRows>{}, Int<Kernel::kTokens>{}));
  Tensor thread_coord = tiled_mma.get_slice(wg_thread_idx).partition_C(coord);
  uint16_t* const out = reinterpret_cast<uint16_t*>(p.out);
  SiluMul const act;
  CUTLASS_PRAGMA_UNROLL
  for (int group = 0; group < Kernel::kGroupsPerHalf; ++group) {
    if (group % splits != rank) continue;
    int const v0 = 4 * group;
    float gate[4], up[4];
    if (splits > 1) {
      // Sum the gate group and its up group over the cluster, in rank order.
      CUTLASS_PRAGMA_UNROLL
      for (int half = 0; half < 2; ++half) {
        uint32_t const offset = uint32_t((((v0 + half * kHalf) / 4) * Kernel::kConsumerThreads + wg_thread_idx) *
                                         sizeof(float4));
        float4 const sum = sum_over_cluster_v4(local_partial + offset, splits);
        float* const dst = half == 0 ? gate : up;
        dst[0] = sum.x;
        dst[1] = sum.y;
        dst[2] = sum.z;
        dst[3] = sum.w;
      }
    } else {
      CUTLASS_PRAGMA_UNROLL
      for (int j = 0; j < 4; ++j) {
        gate[j] = accum(v0 + j);
        up[j] = accum(v0 + j + kHalf);
      }
    }
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < 4; ++j) {
      int64_t const col = int64_t(col_blk) * Kernel::kTileCols + get<0>(thread_coord(v0 + j));
      int64_t const token = int64_t(token_blk) * Kernel::kTokens + get<1>(thread_coord(v0 + j));
      if (col < p.i && token < p.m) {
        out[token * p.ld_out + col] = round_to_bits<Element>(act(gate[j], up[j]));
      }
    }
  }
}

// Steps the persistent schedules share (balanced, cluster and grid stream-K).
// The producer's copies of a CTA's whole share, segment by segment (one elected thread).
template <class Kernel>
CUTLASS_DEVICE void swapab_load_share(typename Kernel::Params const& p, typename Kernel::Pipeline& pipeline,
                                      typename Kernel::SharedStorage& smem, SwapABStreamKShare const& share) {
  typename Kernel::PipelineState write_state{0, 1, 0};
  for (int64_t pos = share.begin; pos < share.end;) {
    SwapABSegment const seg = share.segment_at(pos, p.k_tiles);
    swapab_load_unit<Kernel>(p, pipeline, write_state, smem, seg.unit % p.tiles, seg.unit / p.tiles, seg.k_begin,
                             seg.k_end - seg.k_begin);
    pos += seg.k_end - seg.k_begin;
  }
}

// The consumer's sweep of one segment's `count` k tiles into `accum`, every WGMMA retired and the
// segment's last stage released on return.
template <class TiledMma, class FragA, class FragB, class Accum, class Pipeline, class PipelineState>
CUTLASS_DEVICE void swapab_sweep_segment(TiledMma& tiled_mma, FragA& tCrA, FragB& tCrB, Accum& accum,
                                         Pipeline& pipeline, PipelineState& read_state, int count) {
  wgmma_k_sweep(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, count);
  cute::warpgroup_wait<0>();
  cute::warpgroup_fence_operand(accum);
  read_state.advance(uint32_t(count - 1));
  pipeline.consumer_release(read_state);  // the segment's last stage: its WGMMAs have retired
  ++read_state;
}

// A consumer thread's accumulators into `partial` as float4 groups, value v of thread t at
// [v / 4][t], so a warp's accesses are contiguous.
template <class Kernel, class Accum>
CUTLASS_DEVICE void swapab_stage_partial(Accum const& accum, float* partial, int wg_thread_idx) {
  float4* const out = reinterpret_cast<float4*>(partial);
  CUTLASS_PRAGMA_UNROLL
  for (int v = 0; v < Kernel::kAccumValues; v += 4) {
    out[(v / 4) * Kernel::kConsumerThreads + wg_thread_idx] =
        make_float4(accum(v), accum(v + 1), accum(v + 2), accum(v + 3));
  }
}

// The stream-K schedule's producer and consumer (kStreamK; header comment).
template <class Kernel, class TiledMma, class Accum, class Fragments>
CUTLASS_DEVICE void sm90_swapab_stream_k_body(typename Kernel::Params const& p, typename Kernel::Pipeline& pipeline,
                                              typename Kernel::SharedStorage& smem, TiledMma& tiled_mma,
                                              Accum& accum, Fragments const& consumer_fragments,
                                              bool is_producer, int wg_thread_idx) {
  using namespace cute;
  using PipelineState = typename Kernel::PipelineState;
  int const splits = p.splits;
  int const rank = int(cute::block_rank_in_cluster());
  int const cluster = int(blockIdx.x) / splits;
  SwapABStreamKShare const share(p.units, p.clusters, splits, p.k_tiles, cluster, rank);

  if (is_producer) {
    cute::cluster_arrive_relaxed();  // phase 1: the producer publishes nothing
    if (cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
      swapab_load_share<Kernel>(p, pipeline, smem, share);
    }
    __syncwarp();
    cute::cluster_wait();
  } else {
    auto fragments = consumer_fragments();
    auto& tCrA = get<0>(fragments);
    auto& tCrB = get<1>(fragments);
    PipelineState read_state{};
    // A CTA whose first segment is a cut unit's tail arrives once its partial is written; the
    // others arrive now. Every consumer arrives exactly once before any waits.
    bool const first_is_contribution =
        share.begin < share.end && share.segment_at(share.begin, p.k_tiles).k_begin > 0;
    if (!first_is_contribution) cute::cluster_arrive_relaxed();
    bool waited = false;
    for (int64_t pos = share.begin; pos < share.end;) {
      SwapABSegment const seg = share.segment_at(pos, p.k_tiles);
      int const count = seg.k_end - seg.k_begin;
      swapab_sweep_segment(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, count);
      if (seg.k_begin > 0) {
        // A cut unit's tail (this CTA's first segment): the partial goes to the owner.
        swapab_stage_partial<Kernel>(accum, smem.stream_partial, wg_thread_idx);
        cute::cluster_arrive();  // release: the partial is visible to the owner's acquire
      } else {
        if (seg.k_end < p.k_tiles) {
          // A cut unit's head (this CTA's last segment): add the partials of the CTAs that hold
          // the rest of it, in rank order; each holds it as its first segment.
          cute::cluster_wait();
          waited = true;
          int64_t const unit_last = int64_t(seg.unit - share.first_unit + 1) * p.k_tiles - 1;
          uint32_t const local = cute::cast_smem_ptr_to_uint(smem.stream_partial);
          for (int peer = rank + 1; peer < splits && share.range_begin(peer, splits) <= unit_last; ++peer) {
            if (share.range_begin(peer, splits) == share.range_begin(peer + 1, splits)) continue;  // empty share
            CUTLASS_PRAGMA_UNROLL
            for (int v = 0; v < Kernel::kAccumValues; v += 4) {
              uint32_t const offset =
                  uint32_t(((v / 4) * Kernel::kConsumerThreads + wg_thread_idx) * sizeof(float4));
              float4 const q = load_shared_cluster_v4(map_shared_to_rank(local + offset, uint32_t(peer)));
              accum(v) += q.x;
              accum(v + 1) += q.y;
              accum(v + 2) += q.z;
              accum(v + 3) += q.w;
            }
          }
        }
        swapab_store_unit<Kernel>(accum, p, seg.unit % p.tiles, seg.unit / p.tiles, 1, 0, 0u, wg_thread_idx);
      }
      pos += count;
    }
    if (!waited) cute::cluster_wait();
  }
  // Phase 2: no CTA exits (freeing the partial its owner reads) before every CTA is done.
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
}

// The grid stream-K schedule (kGridStreamK; header comment). CTA r's share of the one run of all
// units is k tiles [T r / G, T (r + 1) / G) of T = units x k_tiles, G = gridDim.x = p.splits. A
// cut unit's first CTA owns it (its k tile 0 is that CTA's last segment); each later CTA holding
// part of it holds that part as its first segment and hands its partial over through its
// exchange slot:
//   contributor r: take lock[r] (CAS 0 -> epoch; another launch's owner may still be reading the
//     slot), write the slot, fence, set lock[r] = epoch | ready;
//   owner: for each such r in rank order, wait for lock[r] == epoch | ready, add the slot to the
//     sum, then set lock[r] = 0.
// The consumer warpgroup does neither: a stall of its sweep is a stall of the CTA's weight stream
// (the ring is full of landed stages it has not read, so the producer cannot issue), which the
// first version, doing both in the consumer, paid on every CTA (session 12: 1.3-4 us over the
// balanced grid, 0.5B-72B). So warps 1 and 2 of the producer warpgroup, idle otherwise, are the
// exchange warps: the consumer stages its contribution in shared memory and arrives on
// kStagedBarrier without waiting; the exchange warps take the lock, copy it out and publish;
// then they wait for the owned unit's peers, sum their slots into shared memory and arrive on
// kOwnedBarrier, on which the consumer waits only when it reaches that unit's end.
// Waiting across CTAs needs them all resident: the launch is cooperative. A contributor waiting
// on a lock another launch holds waits for that launch's owner, which waits only on its own
// launch's contributors, each of which already holds its lock (rank 0 never contributes): no
// cycle. Deterministic (rank-order sums), like the cluster grids.
inline constexpr int kStagedBarrier = 2;  // CUTLASS user named barriers (1 is the split-K one)
inline constexpr int kOwnedBarrier = 3;
inline constexpr int kExchangeBarrier = 4;  // the exchange warps among themselves

template <class Kernel, class TiledMma, class Accum, class Fragments>
CUTLASS_DEVICE void sm90_swapab_grid_stream_k_body(typename Kernel::Params const& p,
                                                   typename Kernel::Pipeline& pipeline,
                                                   typename Kernel::SharedStorage& smem, TiledMma& tiled_mma,
                                                   Accum& accum, Fragments const& consumer_fragments,
                                                   bool is_producer, int wg_thread_idx) {
  using namespace cute;
  using PipelineState = typename Kernel::PipelineState;
  constexpr int kSlotFloat4s = (Kernel::kAccumValues / 4) * Kernel::kConsumerThreads;
  constexpr int kExchangeWarps = 2;  // warps 1 and 2 of the producer warpgroup
  constexpr int kExchangeThreads = Kernel::kConsumerThreads + kExchangeWarps * cutlass::NumThreadsPerWarp;
  int const grid = p.splits;
  int const rank = int(blockIdx.x);
  SwapABStreamKShare const share(p.units, 1, grid, p.k_tiles, 0, rank);
  // What this CTA hands over and what it owns, known alike to the consumer and the exchange warps.
  bool const contributes = share.begin < share.end && share.segment_at(share.begin, p.k_tiles).k_begin > 0;
  int64_t owned_last = -1;  // the owned cut unit's last run position, or -1
  if (share.begin < share.end) {
    int64_t const last_unit_start = (share.end - 1) / p.k_tiles * p.k_tiles;
    SwapABSegment const last = share.segment_at(last_unit_start > share.begin ? last_unit_start : share.begin,
                                                p.k_tiles);
    if (last.k_begin == 0 && last.k_end < p.k_tiles) owned_last = int64_t(last.unit + 1) * p.k_tiles - 1;
  }

  if (is_producer) {
    int const warp = cutlass::canonical_warp_idx_sync();
    if (warp == 0) {
      if (cute::elect_one_sync()) swapab_load_share<Kernel>(p, pipeline, smem, share);
    } else if (warp == 1 || warp == 2) {
      // The exchange warps. Their loads go in batches of kBatch per thread, issued before any is
      // used: a loop that stores each load to shared memory before the next load cannot overlap
      // them (a first version, one warp, one load in flight: 16 L2 round trips per partial of 16
      // tokens, 0.5B at 16.6 us against the balanced grid's 9.2).
      constexpr int kThreads = kExchangeWarps * cutlass::NumThreadsPerWarp;
      constexpr int kPerThread = kSlotFloat4s / kThreads;
      constexpr int kBatch = kPerThread < 4 ? kPerThread : 4;
      static_assert(kSlotFloat4s % kThreads == 0 && kPerThread % kBatch == 0, "exchange split");
      int const t = int(threadIdx.x) - cutlass::NumThreadsPerWarp;  // 0 .. kThreads - 1
      float4* const partials = g_swapab_exchange_partials<Kernel>;
      unsigned long long* const locks = g_swapab_exchange_locks<Kernel>;
      auto exchange_sync = [] { cutlass::arch::NamedBarrier::sync(kThreads, kExchangeBarrier); };
      if (contributes) {
        cutlass::arch::NamedBarrier::sync(kExchangeThreads, kStagedBarrier);
        if (t == 0) {
          while (atomicCAS(&locks[rank], 0ull, p.epoch) != 0ull) __nanosleep(64);
          __threadfence();  // the previous holder's owner read the slot before it freed the lock
        }
        exchange_sync();
        float4 const* const staged = reinterpret_cast<float4 const*>(smem.stream_partial);
        float4* const slot = partials + int64_t(rank) * kSlotFloat4s;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < kPerThread; ++j) __stcg(&slot[t + j * kThreads], staged[t + j * kThreads]);
        __threadfence();
        exchange_sync();
        if (t == 0) grid_exchange_store_release(&locks[rank], p.epoch | kGridExchangeReady);
      }
      if (owned_last >= 0) {
        float4* const sum = reinterpret_cast<float4*>(smem.owner_partial);
        bool first = true;
        for (int peer = rank + 1; peer < grid && share.range_begin(peer, grid) <= owned_last; ++peer) {
          if (share.range_begin(peer, grid) == share.range_begin(peer + 1, grid)) continue;  // empty share
          if (t == 0) {
            while (grid_exchange_load_acquire(&locks[peer]) != (p.epoch | kGridExchangeReady)) __nanosleep(32);
          }
          exchange_sync();
          float4 const* const slot = partials + int64_t(peer) * kSlotFloat4s;
          CUTLASS_PRAGMA_UNROLL
          for (int j0 = 0; j0 < kPerThread; j0 += kBatch) {
            float4 q[kBatch];
            CUTLASS_PRAGMA_UNROLL
            for (int b = 0; b < kBatch; ++b) q[b] = __ldcg(&slot[t + (j0 + b) * kThreads]);
            CUTLASS_PRAGMA_UNROLL
            for (int b = 0; b < kBatch; ++b) {
              float4& d = sum[t + (j0 + b) * kThreads];
              d = first ? q[b] : make_float4(d.x + q[b].x, d.y + q[b].y, d.z + q[b].z, d.w + q[b].w);
            }
          }
          first = false;
          exchange_sync();  // every thread's loads have returned (their values are in shared memory)
          if (t == 0) {
            __threadfence();
            grid_exchange_store_release(&locks[peer], 0ull);
          }
        }
        cutlass::arch::NamedBarrier::arrive(kExchangeThreads, kOwnedBarrier);
      }
    }
    return;
  }
  auto fragments = consumer_fragments();
  auto& tCrA = get<0>(fragments);
  auto& tCrB = get<1>(fragments);
  PipelineState read_state{};
  for (int64_t pos = share.begin; pos < share.end;) {
    SwapABSegment const seg = share.segment_at(pos, p.k_tiles);
    int const count = seg.k_end - seg.k_begin;
    swapab_sweep_segment(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, count);
    if (seg.k_begin > 0) {
      // A cut unit's tail (this CTA's first segment): staged for the exchange warps.
      swapab_stage_partial<Kernel>(accum, smem.stream_partial, wg_thread_idx);
      cutlass::arch::NamedBarrier::arrive(kExchangeThreads, kStagedBarrier);
    } else {
      if (seg.k_end < p.k_tiles) {
        // A cut unit's head (this CTA's last segment): add the peers' sum.
        cutlass::arch::NamedBarrier::sync(kExchangeThreads, kOwnedBarrier);
        grid_exchange_add_staged<Kernel::kAccumValues, Kernel::kConsumerThreads>(
            accum, reinterpret_cast<float4 const*>(smem.owner_partial), wg_thread_idx);
      }
      swapab_store_unit<Kernel>(accum, p, seg.unit % p.tiles, seg.unit / p.tiles, 1, 0, 0u, wg_thread_idx);
    }
    pos += count;
  }
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, Kernel::kMinCtasPerSm)
sm90_swiglu_swapab_kernel(__grid_constant__ typename Kernel::Params const p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cute;
  using Pipeline = typename Kernel::Pipeline;
  using PipelineState = typename Kernel::PipelineState;
  using SharedStorage = typename Kernel::SharedStorage;

  extern __shared__ char smem_raw[];
  SharedStorage& smem = aligned_shared_storage<SharedStorage>(smem_raw);

  int const warp_group = cutlass::canonical_warp_group_idx();
  int const wg_thread_idx = int(threadIdx.x) % cutlass::NumThreadsPerWarpGroup;
  bool const is_producer = warp_group == 0;
  if (threadIdx.x == 0) {
    cute::prefetch_tma_descriptor(p.tma_gate.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_up.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_x.get_tma_descriptor());
  }

  Pipeline pipeline(smem.pipeline, int(threadIdx.x), Kernel::kTmaTransactionBytes,
                    !is_producer && wg_thread_idx == 0);
  __syncthreads();  // barriers initialised before use; all local to this CTA

  typename Kernel::TiledMma tiled_mma;
  // ((2 cols, 2 rows, kTokens / 8), MMA_M = 2 (gate, up), MMA_N = 1), compact: gate value v at
  // index v, its up value at v + kHalf.
  Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<Kernel::kTileRows>{}, Int<Kernel::kTokens>{}));
  static_assert(decltype(size(accum))::value == Kernel::kAccumValues, "accumulator size");
  auto consumer_fragments = [&] {
    Tensor sA = make_tensor(make_smem_ptr(smem.tensors.a.data()), typename Kernel::SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(smem.tensors.b.data()), typename Kernel::SmemLayoutB{});
    auto thread_mma = tiled_mma.get_slice(wg_thread_idx);
    return cute::make_tuple(thread_mma.make_fragment_A(thread_mma.partition_A(sA)),   // (MMA, 2, MMA_K, PIPE)
                            thread_mma.make_fragment_B(thread_mma.partition_B(sB)));  // (MMA, 1, MMA_K, PIPE)
  };

  if constexpr (Kernel::kStreamK) {
    sm90_swapab_stream_k_body<Kernel>(p, pipeline, smem, tiled_mma, accum, consumer_fragments, is_producer,
                                      wg_thread_idx);
  } else if constexpr (Kernel::kGridStreamK) {
    sm90_swapab_grid_stream_k_body<Kernel>(p, pipeline, smem, tiled_mma, accum, consumer_fragments,
                                           is_producer, wg_thread_idx);
  } else if constexpr (Kernel::kPersistent) {
    // Units blockIdx.x, blockIdx.x + gridDim.x, ...: the producer runs ahead over unit borders
    // (the ring does not drain between units), the consumer stores a unit while the next one's
    // stages land.
    if (is_producer) {
      if (cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
        PipelineState write_state{0, 1, 0};  // the producer starts on the "previous" phase
        for (int u = int(blockIdx.x); u < p.units; u += int(gridDim.x)) {
          swapab_load_unit<Kernel>(p, pipeline, write_state, smem, u % p.tiles, u / p.tiles, 0, p.k_tiles);
        }
      }
    } else {
      auto fragments = consumer_fragments();
      auto& tCrA = get<0>(fragments);
      auto& tCrB = get<1>(fragments);
      PipelineState read_state{};
      for (int u = int(blockIdx.x); u < p.units; u += int(gridDim.x)) {
        swapab_sweep_segment(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, p.k_tiles);
        swapab_store_unit<Kernel>(accum, p, u % p.tiles, u / p.tiles, 1, 0, 0u, wg_thread_idx);
      }
    }
  } else {
    int const splits = p.splits;
    int const rank = splits > 1 ? int(cute::block_rank_in_cluster()) : 0;
    int const col_blk = int(blockIdx.x) / splits;
    int const token_blk = int(blockIdx.y);
    int const k_begin = int(int64_t(p.k_tiles) * rank / splits);
    int const k_count = int(int64_t(p.k_tiles) * (rank + 1) / splits) - k_begin;

    if (is_producer) {
      if (k_count > 0 && cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
        PipelineState write_state{0, 1, 0};
        swapab_load_unit<Kernel>(p, pipeline, write_state, smem, col_blk, token_blk, k_begin, k_count);
      }
    } else {
      if (k_count > 0) {
        auto fragments = consumer_fragments();
        auto& tCrA = get<0>(fragments);
        auto& tCrB = get<1>(fragments);
        wgmma_k_sweep(tiled_mma, tCrA, tCrB, accum, pipeline, PipelineState{}, k_count);
        warpgroup_wait<0>();
        warpgroup_fence_operand(accum);
      } else {
        clear(accum);  // K_t < splits: this CTA's range is empty
      }
      if (splits > 1) {
        // Every stage has been consumed and every WGMMA reading it has retired: the pipeline
        // buffers are dead, and the partial goes over them once the whole warpgroup is past them.
        cutlass::arch::NamedBarrier::sync(Kernel::kConsumerThreads, 1);
        swapab_stage_partial<Kernel>(accum, smem.partial, wg_thread_idx);
      }
    }

    // Every CTA's partial is written before any CTA reads one (release / acquire over the cluster).
    if (splits > 1) {
      cute::cluster_arrive();
      cute::cluster_wait();
    }
    if (!is_producer) {
      swapab_store_unit<Kernel>(accum, p, col_blk, token_blk, splits, rank,
                                cute::cast_smem_ptr_to_uint(smem.partial), wg_thread_idx);
    }
    // No CTA leaves (and frees the shared memory its peers read) before every CTA has read.
    if (splits > 1) {
      cute::cluster_arrive_relaxed();
      cute::cluster_wait();
    }
  }
#endif
}

// CTAs of `kernel` that fit on one SM at once (by its shared memory and registers), asked once
// per device (a cache per Kernel); 0 when the query fails.
template <class Kernel, class KernelFn>
int swapab_ctas_per_sm(KernelFn* kernel) {
  return once_per_device([&] {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Kernel::kThreads, Kernel::kSmemBytes) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return blocks;
  });
}

// TILEGLU_SWAPAB_PACKED_WEIGHTS=1 or 2 (decode_plan.h): tma_gate re-encoded over the slot-packed weights
// at p.w_gate, viewed as [2 I K / 64, 64] with the kernels' 64 x 64 128-byte-swizzled box and the
// device's L2 promotion. Called before any other re-encode, while params' descriptors are still
// CuTe's own: the box is CuTe's only if our encoding reproduces that descriptor for the row-major
// tensor (tma_reproduces_cute), checked on every call of a measuring knob, where a wrong image would
// be a wrong result. A call its rule refuses (swapab_packed_weights_refusal; the C API refused it
// first) fails: the pointer holds packed bytes that no other read can use.
template <class Kernel>
cudaError_t swapab_apply_packed_weights(typename Kernel::Params& params, SwigluParams const& p) {
  static_assert(Kernel::kTileCols == 64 && Kernel::kTileK == 64, "the packed slot is two 64 x 64 boxes");
  char const* env = std::getenv("TILEGLU_SWAPAB_PACKED_WEIGHTS");
  int const packed = parse_swapab_packed_weights(env);
  if (char const* refusal = swapab_packed_weights_refusal(packed, p.i, p.k)) {
    std::fprintf(stderr, "tileglu: TILEGLU_SWAPAB_PACKED_WEIGHTS=%s %s\n", env, refusal);
    return cudaErrorInvalidValue;
  }
  if (packed == 0) return cudaSuccess;
  using Element = typename Kernel::Element;
  CUtensorMapDataType const format = std::is_same_v<Element, cutlass::half_t> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                             : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (!tma_reproduces_cute(*params.tma_gate.get_tma_descriptor(), format, p.w_gate, p.i, p.k, p.ld_gate, 64, 64)) {
    std::fprintf(stderr, "tileglu: TILEGLU_SWAPAB_PACKED_WEIGHTS: CuTe's weight box was not reproduced\n");
    return cudaErrorNotSupported;
  }
  cute::TmaDescriptor desc{};
  if (!encode_weight_tma(format, p.w_gate, int(int64_t(2) * p.i * (p.k / 64)), 64, 64, 64, 64,
                         tma_l2_promotion_of(weight_tma_l2_promotion(WeightReader::kSwapABStream)), &desc)) {
    return cudaErrorInvalidValue;
  }
  *const_cast<cute::TmaDescriptor*>(params.tma_gate.get_tma_descriptor()) = desc;
  params.packed_weights = packed;
  return cudaSuccess;
}

// The weight-read knobs (decode_plan.h): TILEGLU_SWAPAB_ISSUE_BATCH, the producer's stages per
// batch (at most the ring less one), and TILEGLU_SWAPAB_K_STAGGER, the k offset of each tile's
// sweep, both off unless set and kept for measuring; a bad value is named once and ignored. Then
// the weight descriptors: packed weights (TILEGLU_SWAPAB_PACKED_WEIGHTS) or the L2 promotion
// (sm90_tma_l2_promotion.hpp; TILEGLU_TMA_L2_PROMOTION).
template <class Kernel>
cudaError_t swapab_apply_read_knobs(typename Kernel::Params& params, SwigluParams const& p) {
  static std::atomic<bool> warned_batch{false};
  if (char const* batch_env = std::getenv("TILEGLU_SWAPAB_ISSUE_BATCH")) {
    int const batch = parse_swapab_issue_batch(batch_env);
    if (batch > 0) {
      params.issue_batch = batch < Kernel::kStages - 1 ? batch : Kernel::kStages - 1;  // see swapab_load_unit
    } else if (batch < 0 && !warned_batch.exchange(true)) {
      std::fprintf(stderr, "tileglu: warning: TILEGLU_SWAPAB_ISSUE_BATCH=%s is not 1-%d; stages go one at a time\n",
                   batch_env, kSwapABMaxIssueBatch);
    }
  }
  static std::atomic<bool> warned_stagger{false};
  if (char const* stagger_env = std::getenv("TILEGLU_SWAPAB_K_STAGGER")) {
    int const stagger = parse_swapab_k_stagger(stagger_env);
    if (stagger >= 0) {
      params.k_stagger = stagger;
    } else if (!warned_stagger.exchange(true)) {
      std::fprintf(stderr, "tileglu: warning: TILEGLU_SWAPAB_K_STAGGER=%s is not 0-%d; no stagger\n", stagger_env,
                   kSwapABMaxKStagger);
    }
  }
  // Packed weights first, on CuTe's descriptors; their descriptor carries the promotion itself.
  if (cudaError_t const packed = swapab_apply_packed_weights<Kernel>(params, p); packed != cudaSuccess) return packed;
  if (params.packed_weights) return cudaSuccess;
  promote_weight_tmas<Kernel, typename Kernel::Element>(
      WeightReader::kSwapABStream, p.i, p.k, Kernel::kTileCols, Kernel::kTileK,
      {params.tma_gate.get_tma_descriptor(), p.w_gate, p.ld_gate},
      {params.tma_up.get_tma_descriptor(), p.w_up, p.ld_up});
  return cudaSuccess;
}

// Host side: TMA descriptors for the user's pointers; one cluster of `splits` CTAs per (64-column
// tile, token block), the split of K chosen for this device's SM count, or (kPersistent) the
// balanced persistent grid of the header comment.
template <class Kernel>
cudaError_t launch_sm90_swiglu_swapab(SwigluParams const& p, int sm_count, cudaStream_t stream) {
  using namespace cute;
  using Element = typename Kernel::Element;
  auto gmem = [](void const* ptr, int rows, int cols, int64_t ld) {
    return make_tensor(make_gmem_ptr(static_cast<Element const*>(ptr)),
                       make_layout(make_shape(rows, cols), make_stride(ld, _1{})));
  };
  // (x - 1) / t + 1 rounds up without overflowing for x near INT_MAX (x >= 1 is validated).
  int64_t const tiles = (p.i - 1) / Kernel::kTileCols + 1;
  int64_t const token_blocks = (p.m - 1) / Kernel::kTokens + 1;
  if (token_blocks >= (int64_t(1) << 16) || tiles * token_blocks * kSwapABMaxSplits >= (int64_t(1) << 31)) {
    return cudaErrorInvalidValue;
  }
  typename Kernel::Params params{
      make_tma_copy(SM90_TMA_LOAD{}, gmem(p.w_gate, p.i, p.k, p.ld_gate), typename Kernel::SmemLayoutAHalf{}),
      make_tma_copy(SM90_TMA_LOAD{}, gmem(p.w_up, p.i, p.k, p.ld_up), typename Kernel::SmemLayoutAHalf{}),
      make_tma_copy(SM90_TMA_LOAD{}, gmem(p.x, p.m, p.k, p.ldx), typename Kernel::SmemLayoutBStage{}),
      static_cast<Element*>(p.out), p.ld_out, p.m, p.k, p.i,
      (p.k - 1) / Kernel::kTileK + 1, 1, int(tiles), int(tiles * token_blocks), 1, 0ull, 1, 0, 0};

  if (cudaError_t const knobs = swapab_apply_read_knobs<Kernel>(params, p); knobs != cudaSuccess) return knobs;

  auto* kernel = &sm90_swiglu_swapab_kernel<Kernel>;
  cudaError_t err = opt_in_shared_memory_once<Kernel>(kernel, Kernel::kSmemBytes);
  if (err != cudaSuccess) return err;

  if constexpr (Kernel::kStreamK) {
    // The clusters of S CTAs that fit on the GPU at once, asked once per device for each S.
    static_assert(kSwapABStreamKMaxSplits == 4, "one query per cluster size below");
    int max_clusters[kSwapABStreamKMaxSplits + 1] = {0, 0, max_active_clusters_once<Kernel, 2>(kernel, stream),
                                                     max_active_clusters_once<Kernel, 3>(kernel, stream),
                                                     max_active_clusters_once<Kernel, 4>(kernel, stream)};
    // TILEGLU_SWAPAB_SPLITS=2..4 (where that size fits): the plan over that cluster size alone.
    int const forced_splits = parse_swapab_splits(std::getenv("TILEGLU_SWAPAB_SPLITS"));
    int only_forced[kSwapABStreamKMaxSplits + 1] = {};
    bool const forced = forced_splits >= 2 && forced_splits <= kSwapABStreamKMaxSplits && max_clusters[forced_splits] > 0;
    if (forced) only_forced[forced_splits] = max_clusters[forced_splits];
    SwapABStreamKPlan const plan = swapab_stream_k_plan(params.units, forced ? only_forced : max_clusters);
    if (plan.splits < 2) return cudaErrorLaunchOutOfResources;  // no cluster of 2 fits: nothing to run on
    static std::atomic<int> logged_units{-1};  // the plan under TILEGLU_LOG_DISPATCH, when the unit count changes
    if (logged_units.load() != params.units && std::getenv("TILEGLU_LOG_DISPATCH") != nullptr) {
      logged_units.store(params.units);
      std::fprintf(stderr,
                   "tileglu: swap-AB stream-K: %d units of %d k tiles on %d clusters of %d CTAs "
                   "(clusters that fit: %d of 2, %d of 3, %d of 4)\n",
                   params.units, params.k_tiles, plan.clusters, plan.splits, max_clusters[2], max_clusters[3],
                   max_clusters[4]);
    }
    params.splits = plan.splits;
    params.clusters = plan.clusters;
    Sm90Launch launch(dim3(unsigned(plan.clusters * plan.splits), 1, 1), Kernel::kThreads, Kernel::kSmemBytes,
                      stream, unsigned(plan.splits));
    return launch.launch(kernel, params);
  } else if constexpr (Kernel::kGridStreamK) {
    // Every CTA that fits at once (decode_plan.h swapab_grid_stream_k_ctas), or
    // TILEGLU_SWAPAB_GRID's count within that.
    int const per_sm = swapab_ctas_per_sm<Kernel>(kernel);
    if (per_sm <= 0) return cudaErrorLaunchOutOfResources;
    int64_t const resident = int64_t(sm_count > 0 ? sm_count : 1) * per_sm;
    int grid = swapab_grid_stream_k_ctas(params.units, params.k_tiles, resident);
    char const* forced = std::getenv("TILEGLU_SWAPAB_GRID");
    int const forced_grid = parse_swapab_grid(forced);
    if (forced_grid > 0) {
      grid = int(forced_grid < resident ? forced_grid : resident);
    } else if (forced_grid < 0) {
      std::fprintf(stderr, "tileglu: warning: TILEGLU_SWAPAB_GRID=%s is not 1-%d; the plan decides\n", forced,
                   kSwapABGridMaxCtas);
    }
    params.epoch = grid_exchange_next_epoch();
    return launch_cooperative_shrinking(kernel, params, grid, Kernel::kThreads, Kernel::kSmemBytes, stream,
                                        [](int g, typename Kernel::Params& q) { q.splits = g; });
  } else if constexpr (Kernel::kPersistent) {
    // CTAs that fit on an SM at once (by the shared memory and registers), asked once per device.
    int const per_sm = swapab_ctas_per_sm<Kernel>(kernel);
    int64_t const resident = int64_t(sm_count > 0 ? sm_count : 1) * (per_sm > 0 ? per_sm : 1);
    Sm90Launch launch(dim3(unsigned(swapab_balanced_grid(params.units, resident)), 1, 1), Kernel::kThreads,
                      Kernel::kSmemBytes, stream);
    return launch.launch(kernel, params);
  } else {
    params.splits = swapab_splits(tiles * token_blocks, params.k_tiles, sm_count);
    char const* forced = std::getenv("TILEGLU_SWAPAB_SPLITS");
    int const forced_splits = parse_swapab_splits(forced);
    if (forced_splits > 0) {
      params.splits = forced_splits;  // a CTA whose K range is empty contributes zeros
    } else if (forced_splits < 0) {
      std::fprintf(stderr, "tileglu: warning: TILEGLU_SWAPAB_SPLITS=%s is not 1-%d; the split rule decides\n",
                   forced, kSwapABMaxSplits);
    }
    Sm90Launch launch(dim3(unsigned(tiles * params.splits), unsigned(token_blocks), 1), Kernel::kThreads,
                      Kernel::kSmemBytes, stream, unsigned(params.splits));
    return launch.launch(kernel, params);
  }
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/ (sm90_launch.hpp); the trailing
// arguments are Sm90SwigluSwapAB's after the element type.
#define TILEGLU_INSTANTIATE_SWAPAB(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_swapab, Sm90SwigluSwapAB, name, dtype, Element, __VA_ARGS__)
