// The SwiGLU kernels: one persistent, TMA warp-specialized Pingpong GEMM over [gate | up] weight
// tiles with SwiGLU computed from the accumulators before the single rounding. Both of the
// design's kernels are this template:
//   Kernel-2 (kSplitAccumulators = false): one WGMMA of N = 2*tile_n per k-block, one accumulator
//     whose column halves are gate and up.
//   Kernel-1 (kSplitAccumulators = true): two WGMMAs of N = tile_n per k-block from the same X
//     and [gate | up] stage, into a gate and an up accumulator.
// kOverlapEpilogue = false is the ablation of the overlap below (the tensor cores wait for the
// epilogue). kSequential = true (Kernel-1, Pingpong) is the design's literal "Swish on Gate while
// Up loads": a gate K sweep, then an up K sweep over X again, SiLU applied to the gate
// accumulator during the up sweep and only the product left to the epilogue (see the mainloop).
// kCooperative = true is the Cooperative schedule instead: both consumer warpgroups work on the
// same tile, each on tile_m / 2 of its rows, from the same stages. Its tile can be twice as large
// for the same registers per thread (128 x 2*128 with 128 accumulator registers each), which
// halves the operand bytes per MAC that L2 and shared memory must deliver (ncu on an H200:
// the cuBLAS kernels that beat the 128 x 2*64 Pingpong tile at large K load 192x192 and
// 256x128 tiles and run at a higher clock under the power limit); the price is an epilogue the
// tensor cores wait for. The tuner decides per shape. With promotion (kPromoteKTiles > 0) the
// Cooperative schedule has a second accumulator anyway, and uses it to hide that epilogue: the
// mainloop's promoted_tile_loop() issues the next tile's first WGMMAs into the scratch
// accumulator before storing the promoted one. That makes promotion (fewer outputs off by more
// than 1 ulp than the tensor cores' own fp32 sums give) a candidate at full tile size, where the
// Pingpong tile has no registers for a second 128 x 128 accumulator.
//
// Warp roles (384 threads): warpgroup 0 is the producer (one elected thread issues the TMA
// copies of sm90_swiglu_mainloop_tma_gmma_ws.hpp), warpgroups 1 and 2 are consumers. Each
// consumer owns a whole output tile at a time; tiles of one CTA alternate between the two
// consumers. An ordered barrier hands the tensor cores from one consumer's K sweep to the
// other's, so the SwiGLU math and the stores of one consumer (sm90_swiglu_epilogue.hpp) run
// while the other consumer issues WGMMA — that is where the epilogue hides.
//
// Clusters of kClusterM x kClusterN CTAs take a block of neighbouring tiles: kClusterN N-blocks
// of one M-block share (multicast) the X tile, kClusterM M-blocks of one N-block the weight tiles
// (see the mainloop). Every CTA of a cluster walks the same sequence of cluster tiles; where M or
// I does not fill the last cluster tile, a CTA's tile lies past M or I: it still loads (zeros)
// and multiplies so that the multicasts and the barriers stay paired, and stores nothing.
//
// Register split: the producer gives registers back (setmaxnreg 40) so each consumer can
// hold 232; a 128 x 128 fp32 accumulator costs 128 of them per thread.
//
// Split tail (kSplitTail, Cooperative only, the `_split` config): a grid of one CTA per SM runs
// the whole waves' tiles whole and cuts each tile of the last, partial wave into pieces of K
// spread over every CTA (split_tail_plan.h says which and why), so no SM idles through that wave.
// The last piece of a tile owns it: the other pieces hand their fp32 partials over through slots
// in module memory as soon as they are swept (sm90_grid_exchange.hpp's protocol), and the owner
// adds them in piece order (deterministic) and stores the tile. A launch that cuts tiles is
// cooperative (owners wait on other CTAs, so every CTA must be resident); one that cuts none is
// a plain launch of the persistent grid.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/cutlass.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "sm90_grid_exchange.hpp"
#include "sm90_launch.hpp"
#include "sm90_swiglu_epilogue.hpp"
#include "sm90_swiglu_mainloop_tma_gmma_ws.hpp"
#include "sm90_tile_scheduler.hpp"
#include "split_tail_plan.h"
#include "swiglu_params.h"

namespace tileglu::kernels {

template <class Element_, int kTileM, int kTileN, int kTileK, int kStages, int kClusterN_,
          int kPromoteKTiles = 0, bool kSplitAccumulators = false, bool kOverlapEpilogue_ = true,
          bool kCooperative_ = false, bool kTmaStore_ = false, bool kSequential_ = false,
          int kClusterM_ = 1, bool kSplitTail_ = false>
struct Sm90SwigluPingpong {
  using Element = Element_;
  static constexpr int kClusterN = kClusterN_;  // cluster extent along N (X multicast)
  static constexpr int kClusterM = kClusterM_;  // cluster extent along M (weight multicast)
  static constexpr int kClusterSize = kClusterM * kClusterN;
  static constexpr bool kCooperative = kCooperative_;
  // true: the epilogue stages the output tile in shared memory and stores it with TMA
  // (Sm90SwigluTmaStore); false: register-direct stores.
  static constexpr bool kTmaStore = kTmaStore_;
  // Consumer threads that share one tile: one warpgroup (Pingpong) or both (Cooperative).
  static constexpr int kTileConsumerThreads = kCooperative ? 256 : 128;
  static_assert(!kCooperative || kOverlapEpilogue_, "the ablation is of the Pingpong overlap");
  // false: the ablation that proves the overlap — a consumer hands the tensor cores to the
  // other only after its epilogue, so SwiGLU and the stores sit on the critical path.
  static constexpr bool kOverlapEpilogue = kOverlapEpilogue_;
  // true: gate K sweep, then up K sweep with SiLU on the gate accumulator meanwhile; the
  // epilogue then multiplies only (MulActivated).
  static constexpr bool kSequential = kSequential_;
  static_assert(!kSequential || !kCooperative, "the sequential sweeps are a Pingpong ablation");
  // Split tail (header comment): the Cooperative schedule without promotion or clusters.
  static constexpr bool kSplitTail = kSplitTail_;
  static_assert(!kSplitTail || (kCooperative && kPromoteKTiles == 0 && kClusterM * kClusterN == 1),
                "the split tail is a variant of the unclustered, unpromoted Cooperative tile");
  using Mainloop = Sm90SwigluMainloop<Element, kTileM, kTileN, kTileK, kStages, kClusterN,
                                        kPromoteKTiles, kSplitAccumulators, kCooperative ? 2 : 1,
                                        kSequential, kClusterM>;
  using Epilogue = Sm90SwigluEpilogue<Element, kTileM, kTileN,
                                      cute::conditional_t<kSequential, MulActivated, SiluMul>>;
  // Without kTmaStore no staging type is instantiated (its swizzle atom needs tile_n % 16 == 0).
  struct NoTmaStore {
    struct Tma {};
    static constexpr int kBufferElems = 0;
  };
  using TmaStore = cute::conditional_t<kTmaStore, Sm90SwigluTmaStore<Element, kTileM, kTileN>, NoTmaStore>;
  // Staging buffers: one per consumer warpgroup in Pingpong (each owns its tiles), one shared in
  // Cooperative.
  static constexpr int kOutBuffers = kTmaStore ? (kCooperative ? 1 : 2) : 0;
  using TiledMma = typename Mainloop::TiledMma;
  using Pipeline = typename Mainloop::Pipeline;
  using PipelineState = typename Mainloop::PipelineState;
  // Depth 1: only the consumers' K sweeps are ordered; the epilogue shares nothing.
  using MathOrderBarrier = cutlass::OrderedSequenceBarrier<1, 2>;

  static constexpr int kThreads = 384;
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  // fp32 accumulator registers per consumer thread (twice that with promotion's scratch).
  static constexpr int kAccumRegisters =
      kTileM * 2 * kTileN / kTileConsumerThreads * (kPromoteKTiles > 0 ? 2 : 1);
  static_assert(kAccumRegisters <= 160, "accumulators must leave registers for the epilogue");
  // Split tail: one partial (the tile's accumulators) per exchange slot, float4 (v / 4) of
  // consumer thread t at [v / 4][t], so the consumers' stores and loads are coalesced.
  static constexpr int kExchangeSlotFloat4s = kAccumRegisters / 4 * kTileConsumerThreads;

  struct OutStorage {
    alignas(1024) cute::array_aligned<Element, TmaStore::kBufferElems * (kOutBuffers > 0 ? kOutBuffers : 1), 1024> buffers;
  };
  struct NoOutStorage {};
  // Split tail: the barrier on which an owning piece waits for another piece's slot, copied by
  // one bulk copy into the weight stages (free by then: the owning piece is its CTA's last unit).
  struct ExchangeStorage {
    cutlass::arch::ClusterTransactionBarrier::ValueType slot_landed;
  };
  struct NoExchangeStorage {};
  struct SharedStorage {
    typename Mainloop::SharedStorage tensors;
    cute::conditional_t<kTmaStore, OutStorage, NoOutStorage> out;
    typename Pipeline::SharedStorage pipeline;
    typename MathOrderBarrier::SharedStorage math_order;
    cute::conditional_t<kSplitTail, ExchangeStorage, NoExchangeStorage> exchange;
  };
  static constexpr int kSmemBytes = smem_bytes_with_alignment_slack<SharedStorage>();

  struct Params {
    typename Mainloop::Params mainloop;
    Sm90StaticPersistentScheduler scheduler;
    Element* out;
    int64_t ld_out;
    typename TmaStore::Tma tma_out;  // built and used only when kTmaStore
    // kSplitTail (split_tail_plan.h): tiles [0, dp_tiles) whole, the next tail_tiles cut in
    // `pieces`; this launch's tag in the exchange's lock words (grid_exchange_next_epoch).
    int dp_tiles;
    int tail_tiles;
    int pieces;
    unsigned long long epoch;
  };
};

// The split-tail exchange (kSplitTail): a slot and a lock word per handed-over piece (piece j
// < P - 1 of tail tile t: slot j R + t; its lock word: 0 free, epoch | ready published). Module
// memory, zero at load: no allocation under stream capture, no workspace argument; a launch's
// owners set every lock word it published back to 0. Per kernel
// instantiation (dtype).
template <class Kernel>
__device__ float4 g_split_tail_exchange_partials[kSplitTailExchangeSlots * Kernel::kExchangeSlotFloat4s];
template <class Kernel>
__device__ unsigned long long g_split_tail_exchange_locks[kSplitTailExchangeSlots];
// The exchange is one launch's at a time: its holder's epoch (0: free), and how many of the
// holder's CTAs are done with it. Why whole: with per-slot locks alone, two launches on two
// streams can each hold a slot the other's owner needs (launch A's piece took slot 1 and waits
// for slot 2, B's the reverse) and wait on each other for ever. A launch's CTAs are all resident
// (cooperative), so the holder always finishes and a waiting launch only waits.
template <class Kernel>
__device__ unsigned long long g_split_tail_exchange_holder;
template <class Kernel>
__device__ unsigned int g_split_tail_exchange_done;
// The two consumer warpgroups of a Cooperative tile, among themselves (CUTLASS user named barrier
// ids: 0 and 1 are the epilogue's TMA-store barriers).
inline constexpr int kSplitTailExchangeBarrier = 2;

// The split tail's timeline, for bench/split_tail_trace.cu only: a Kernel type that declares
// `static constexpr bool kSplitTailTrace = true` stamps %globaltimer (ns) once per CTA at each
// step below into g_split_tail_trace<Kernel>[cta][step]; no shipped config declares it, so their
// code has no stamps. Steps: start, whole tiles done, exchange acquired, then per tail unit i of
// the CTA (at most kSplitTailMaxPieces) swept / handed over or peers added / stored, and released.
inline constexpr int kSplitTailTraceStart = 0;
inline constexpr int kSplitTailTraceWholeTilesDone = 1;
inline constexpr int kSplitTailTraceAcquired = 2;
inline constexpr int kSplitTailTraceUnit = 3;  // + 3 i + {0 swept, 1 exchanged, 2 stored}
inline constexpr int kSplitTailTraceReleased = kSplitTailTraceUnit + 3 * kSplitTailMaxPieces;
inline constexpr int kSplitTailTraceSteps = kSplitTailTraceReleased + 1;
template <class Kernel, class = void>
inline constexpr bool kSplitTailTraced = false;
template <class Kernel>
inline constexpr bool kSplitTailTraced<Kernel, std::void_t<decltype(Kernel::kSplitTailTrace)>> =
    Kernel::kSplitTailTrace;
template <class Kernel>
__device__ unsigned long long g_split_tail_trace[kSplitTailMaxCtas * kSplitTailTraceSteps];

template <class Kernel>
CUTLASS_DEVICE void split_tail_trace_stamp(int step, int consumer_thread) {
  if constexpr (kSplitTailTraced<Kernel>) {
    if (consumer_thread == 0) {
      unsigned long long now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      g_split_tail_trace<Kernel>[int(blockIdx.x) * kSplitTailTraceSteps + step] = now;
    }
  }
}

// Every consumer thread of a CTA of a launch that cuts tiles, before its first tail unit: the
// exchange becomes this launch's (or already is).
template <class Kernel>
CUTLASS_DEVICE void split_tail_exchange_acquire(unsigned long long epoch, int consumer_thread) {
  if (consumer_thread == 0) {
    unsigned long long* const holder = &g_split_tail_exchange_holder<Kernel>;
    for (;;) {
      unsigned long long const v = grid_exchange_load_acquire(holder);
      if (v == epoch) break;
      if (v == 0ull && atomicCAS(holder, 0ull, epoch) == 0ull) break;
      __nanosleep(256);
    }
    __threadfence();
  }
  cutlass::arch::NamedBarrier::sync(Kernel::kTileConsumerThreads, kSplitTailExchangeBarrier);
}

// After a CTA's last tail unit: the last of the launch's `grid` CTAs to get here frees the exchange.
template <class Kernel>
CUTLASS_DEVICE void split_tail_exchange_release(int grid, int consumer_thread) {
  cutlass::arch::NamedBarrier::sync(Kernel::kTileConsumerThreads, kSplitTailExchangeBarrier);
  if (consumer_thread == 0) {
    __threadfence();
    if (atomicAdd(&g_split_tail_exchange_done<Kernel>, 1u) == unsigned(grid) - 1u) {
      atomicExch(&g_split_tail_exchange_done<Kernel>, 0u);
      __threadfence();
      grid_exchange_store_release(&g_split_tail_exchange_holder<Kernel>, 0ull);
    }
  }
}

// A piece that does not own its tile hands its partial (`accum`) over through slot `slot`.
// `consumer_thread` 0..255. The slot is free without asking: this launch holds the exchange
// (split_tail_exchange_acquire), and the launch that held it before released it only after its
// owners had copied every slot out and set its lock word back to 0.
template <class Kernel, class Accum>
CUTLASS_DEVICE void split_tail_exchange_hand_over(Accum const& accum, int slot_index, unsigned long long epoch,
                                                  int consumer_thread) {
  unsigned long long* const lock = &g_split_tail_exchange_locks<Kernel>[slot_index];
  float4* const slot = g_split_tail_exchange_partials<Kernel> + int64_t(slot_index) * Kernel::kExchangeSlotFloat4s;
  CUTLASS_PRAGMA_UNROLL
  for (int v = 0; v < Kernel::kAccumRegisters; v += 4) {
    __stcg(&slot[(v / 4) * Kernel::kTileConsumerThreads + consumer_thread],
           make_float4(accum(v), accum(v + 1), accum(v + 2), accum(v + 3)));
  }
  __threadfence();
  cutlass::arch::NamedBarrier::sync(Kernel::kTileConsumerThreads, kSplitTailExchangeBarrier);
  if (consumer_thread == 0) grid_exchange_store_release(lock, epoch | kGridExchangeReady);
}

// Owner: adds the partial in slot `peer` (another piece of the tile this CTA owns) to `accum`,
// once it is published, and frees the slot. Why a bulk copy into shared memory: 128 KiB read by
// the consumers' own loads, a few float4 in flight per thread, is a string of L2 round trips
// (about 1 us each at 16 KiB a batch); one cp.async.bulk has it all in flight. `staging`: the weight stages, which
// hold a slot (static_assert at the caller) and are free at the owner's last unit; `phase`: the
// barrier's, flipped per peer.
template <class Kernel, class Accum>
CUTLASS_DEVICE void split_tail_exchange_add_peer(Accum& accum, int peer, unsigned long long epoch,
                                                 int consumer_thread, uint64_t* slot_landed, uint32_t& phase,
                                                 float4* staging) {
  unsigned long long* const lock = &g_split_tail_exchange_locks<Kernel>[peer];
  constexpr uint32_t kSlotBytes = uint32_t(Kernel::kExchangeSlotFloat4s) * sizeof(float4);
  auto sync = [] { cutlass::arch::NamedBarrier::sync(Kernel::kTileConsumerThreads, kSplitTailExchangeBarrier); };
  // Every consumer thread is done with the stages (its WGMMAs, or its reads of the last peer's
  // slot) before the copy overwrites them.
  sync();
  if (consumer_thread == 0) {
    while (grid_exchange_load_acquire(lock) != (epoch | kGridExchangeReady)) __nanosleep(32);
    // The slot was written through the generic proxy; the bulk copy reads it through the async one.
    asm volatile("fence.proxy.async.global;" ::: "memory");
    cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(slot_landed, kSlotBytes);
    cute::SM90_BULK_COPY_G2S::copy(g_split_tail_exchange_partials<Kernel> + int64_t(peer) * Kernel::kExchangeSlotFloat4s,
                                   slot_landed, staging, int32_t(kSlotBytes));
  }
  cutlass::arch::ClusterBarrier::wait(slot_landed, phase);
  phase ^= 1u;
  // The slot is in shared memory: the peer's lock word is free for its next launch.
  if (consumer_thread == 0) grid_exchange_store_release(lock, 0ull);
  grid_exchange_add_staged<Kernel::kAccumRegisters, Kernel::kTileConsumerThreads>(accum, staging, consumer_thread);
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, 1)
sm90_swiglu_pingpong_kernel(__grid_constant__ typename Kernel::Params const params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cute;
  using Mainloop = typename Kernel::Mainloop;
  using Pipeline = typename Kernel::Pipeline;
  using PipelineState = typename Kernel::PipelineState;
  using SharedStorage = typename Kernel::SharedStorage;

  extern __shared__ char smem_raw[];
  SharedStorage& smem = aligned_shared_storage<SharedStorage>(smem_raw);

  int const warp_group = cutlass::canonical_warp_group_idx();
  int const warp_in_group = cutlass::canonical_warp_idx_sync() % cutlass::NumWarpsPerWarpGroup;
  int const wg_thread_idx = int(threadIdx.x) % cutlass::NumThreadsPerWarpGroup;
  bool const is_producer = warp_group == 0;

  if (threadIdx.x == 0) {
    Mainloop::prefetch_tma_descriptors(params.mainloop);
  }

  typename Pipeline::Params pipe_params;
  pipe_params.role = is_producer ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  pipe_params.is_leader = wg_thread_idx == 0;
  pipe_params.num_consumers = Kernel::kTileConsumerThreads;
  pipe_params.transaction_bytes = Mainloop::kTmaTransactionBytes;
  Pipeline pipeline(smem.pipeline, pipe_params, typename Mainloop::ClusterShape{});

  typename Kernel::MathOrderBarrier::Params order_params;
  order_params.group_id = is_producer ? 0 : warp_group - 1;
  order_params.group_size = cutlass::NumThreadsPerWarpGroup;
  typename Kernel::MathOrderBarrier math_order(smem.math_order, order_params);

  if constexpr (Kernel::kSplitTail) {
    if (threadIdx.x == 0) {
      cutlass::arch::ClusterTransactionBarrier::init(&smem.exchange.slot_landed, 1);
      cutlass::arch::fence_barrier_init();
    }
  }
  // Barriers initialised (in every CTA of the cluster) before anyone waits on or signals them.
  if constexpr (Kernel::kClusterSize > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  } else {
    __syncthreads();
  }
  // The grid is (kClusterM * clusters, kClusterN): cluster c is blocks x in [c kClusterM,
  // (c + 1) kClusterM), every y; the rank in the cluster is x-major.
  int const cta_m = int(blockIdx.x) % Kernel::kClusterM;
  int const cta_n = int(blockIdx.y);
  int const cta_rank = cta_m + cta_n * Kernel::kClusterM;
  int const cluster_id = int(blockIdx.x) / Kernel::kClusterM;
  int const num_clusters = int(gridDim.x) / Kernel::kClusterM;

  Sm90StaticPersistentScheduler const& sched = params.scheduler;
  int const total_tiles = sched.total_tiles();
  int const k_tiles = Mainloop::k_tiles(params.mainloop);
  // Stages per tile: k_tiles, or 2 * k_tiles for the sequential sweeps.
  int const tile_stages = Mainloop::stages_per_tile(params.mainloop);

  if (is_producer) {
    cutlass::arch::warpgroup_reg_dealloc<Kernel::kProducerRegisters>();
    if (warp_in_group == 0 && cute::elect_one_sync()) {
      PipelineState write_state = cutlass::make_producer_start_state<Pipeline>();
      if constexpr (Kernel::kSplitTail) {
        // The same units in the same order as the consumers below.
        int const grid = int(gridDim.x);
        for (int tile = cluster_id; tile < params.dp_tiles; tile += grid) {
          int m_blk, n_blk;
          sched.tile_coord(tile, m_blk, n_blk);
          Mainloop::load(params.mainloop, pipeline, write_state, m_blk, n_blk, cta_rank, smem.tensors);
        }
        for (int u = cluster_id; u < params.tail_tiles * params.pieces; u += grid) {
          int const piece = u / params.tail_tiles;
          int const k_begin = split_tail_piece_k_begin(k_tiles, piece, params.pieces);
          int m_blk, n_blk;
          sched.tile_coord(params.dp_tiles + u - piece * params.tail_tiles, m_blk, n_blk);
          Mainloop::load(params.mainloop, pipeline, write_state, m_blk, n_blk, cta_rank, smem.tensors, k_begin,
                         split_tail_piece_k_begin(k_tiles, piece + 1, params.pieces) - k_begin);
        }
      } else {
        for (int tile = cluster_id; tile < total_tiles; tile += num_clusters) {
          int m_blk, n_blk;
          sched.tile_coord(tile, m_blk, n_blk);
          m_blk = m_blk * Kernel::kClusterM + cta_m;
          n_blk = n_blk * Kernel::kClusterN + cta_n;
          Mainloop::load(params.mainloop, pipeline, write_state, m_blk, n_blk, cta_rank, smem.tensors);
        }
      }
      Mainloop::load_preissue_tail(params.mainloop, pipeline, write_state, cta_rank, smem.tensors);
      pipeline.producer_tail(write_state);
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<Kernel::kConsumerRegisters>();
    int const consumer = warp_group - 1;
    typename Kernel::TiledMma tiled_mma;
    PipelineState read_state;
    // Pingpong: consumer 1 takes the CTA's odd tiles, so it skips the stages of consumer 0's
    // first tile, and each consumer steps over the other's tiles. Cooperative: both take every
    // tile, consumer c the rows of MMA atom c.
    int const consumer_thread = Kernel::kCooperative ? consumer * 128 + wg_thread_idx : wg_thread_idx;
    int const first_tile = Kernel::kCooperative ? cluster_id : cluster_id + consumer * num_clusters;
    int const tile_step = Kernel::kCooperative ? num_clusters : 2 * num_clusters;
    int const stages_per_step = Kernel::kCooperative ? tile_stages : 2 * tile_stages;
    if (!Kernel::kCooperative && consumer == 1) read_state.advance(tile_stages);

    // The epilogue of one finished tile (both schedules); `thread` is consumer_thread (the split
    // tail passes a copy the compiler cannot see through: see there).
    auto store_tile = [&](auto const& accum, int m_blk, int n_blk, int thread) {
      // A ragged M's last tile row starts early and overlaps the previous one (the mainloop's
      // tile_row0): it is stored register-direct, skipping the rows already stored, also where
      // the other tiles go out by TMA (whose box cannot skip rows). Uniform per tile.
      int const rows_done = Mainloop::tile_rows_done(m_blk, params.mainloop.m);
      bool stored = false;
      if constexpr (Kernel::kTmaStore) {
        if (rows_done == 0) {
          // Named barriers 0 and 1 (NamedBarrier adds CUTLASS's 8 reserved ids: hardware 8 and 9):
          // one per Pingpong consumer, 0 for the Cooperative pair.
          Kernel::TmaStore::template store<typename Kernel::Epilogue>(
              accum, tiled_mma, thread, Kernel::kTileConsumerThreads,
              Kernel::kCooperative ? 0 : consumer, thread == 0,
              smem.out.buffers.data() + (Kernel::kCooperative ? 0 : consumer) * Kernel::TmaStore::kBufferElems,
              params.tma_out, m_blk, n_blk, params.mainloop.m, params.mainloop.i);
          stored = true;
        }
      }
      if (!stored) {
        Kernel::Epilogue::store(accum, tiled_mma, thread, m_blk * Mainloop::kTileM - rows_done,
                                rows_done, n_blk * Mainloop::kTileN, params.mainloop.m,
                                params.mainloop.i, params.out, params.ld_out);
      }
    };
    auto cta_tile_coord = [&](int tile, int& m_blk, int& n_blk) {
      sched.tile_coord(tile, m_blk, n_blk);
      m_blk = m_blk * Kernel::kClusterM + cta_m;
      n_blk = n_blk * Kernel::kClusterN + cta_n;
    };

    if constexpr (Kernel::kSplitTail) {
      int const grid = int(gridDim.x);
      int const rank = cluster_id;
      uint32_t exchange_phase = 0;  // smem.exchange.slot_landed's
      // One unit's k_count k tiles into a fresh accumulator.
      auto sweep = [&](auto& accum, int k_count) {
        Mainloop::mma(pipeline, read_state, accum, k_count, consumer_thread, smem.tensors);
        Mainloop::mma_tail(pipeline, read_state, k_count);
        read_state.advance(k_count);
      };
      auto stamp = [&](int step) { split_tail_trace_stamp<Kernel>(step, consumer_thread); };
      stamp(kSplitTailTraceStart);
      static_assert(sizeof(smem.tensors.b) >= Kernel::kExchangeSlotFloat4s * sizeof(float4),
                    "a handed-over slot fits in the weight stages");
      int const dp_tiles = params.dp_tiles;
      int const tail_tiles = params.tail_tiles;
      int const pieces = params.pieces;
      bool const cuts = pieces > 1;
      // Before the CTA's first tail unit (or at its end, if it has none): where tiles are cut, the
      // exchange becomes this launch's; every CTA takes it before it counts itself done in the
      // release.
      bool entered_tail = false;
      auto enter_tail = [&] {
        entered_tail = true;
        stamp(kSplitTailTraceWholeTilesDone);
        if (cuts) split_tail_exchange_acquire<Kernel>(params.epoch, consumer_thread);
        stamp(kSplitTailTraceAcquired);
      };
      // One loop over the CTA's whole tiles and then its tail units: position u is tile u below
      // dp_tiles and tail unit u - dp_tiles past it (dp_tiles is a multiple of the grid, so CTA r
      // gets the split's units r, r + grid, ...); one copy of the epilogue.
      int unit_step = kSplitTailTraceUnit - 3;  // this tail unit's first trace step
      for (int u = rank; u < dp_tiles + tail_tiles * pieces; u += grid) {
        bool const tail_unit = u >= dp_tiles;
        int tile = u, piece = 0, k_count = k_tiles;
        if (tail_unit) {
          if (!entered_tail) enter_tail();
          unit_step += 3;
          int const t = u - dp_tiles;
          piece = t / tail_tiles;
          tile = dp_tiles + (t - piece * tail_tiles);
          int const k_begin = split_tail_piece_k_begin(k_tiles, piece, pieces);
          k_count = split_tail_piece_k_begin(k_tiles, piece + 1, pieces) - k_begin;
        }
        Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<Mainloop::kTileM>{}, Int<Mainloop::kGemmTileN>{}));
        static_assert(CUTE_STATIC_V(size(accum)) == Kernel::kAccumRegisters, "the exchange slot's layout");
        sweep(accum, k_count);
        if (tail_unit) {
          stamp(unit_step);
          if (piece < pieces - 1) {
            split_tail_exchange_hand_over<Kernel>(accum, u - dp_tiles, params.epoch, consumer_thread);
            stamp(unit_step + 1);
            continue;
          }
          // The owning piece: this CTA's last unit (its next, u + grid, would be past P R), so the
          // weight stages are free to receive the other pieces' slots, added in piece order.
          float4* const staging = reinterpret_cast<float4*>(smem.tensors.b.data());
          for (int j = 0; j < piece; ++j) {
            split_tail_exchange_add_peer<Kernel>(accum, j * tail_tiles + (tile - dp_tiles), params.epoch,
                                                 consumer_thread, &smem.exchange.slot_landed, exchange_phase,
                                                 staging);
          }
          stamp(unit_step + 1);
        }
        int m_blk, n_blk;
        cta_tile_coord(tile, m_blk, n_blk);
        // The thread index through an empty asm, once per tile: the epilogue's shared-memory
        // addresses derive from it, so they are computed at each store as in the whole-tile
        // kernel. Without it ptxas hoisted them out of the loop, where next to the exchange's
        // state they no longer fit the registers: 830 bytes spilled per thread and reloaded at
        // every store, from L2 (the stages leave L1 too small to hold them), 17-20 us a tile,
        // 20-40 % of the kernel where nothing is cut (bench/NOTES.md session 21).
        int epilogue_thread = consumer_thread;
        asm volatile("" : "+r"(epilogue_thread));
        store_tile(accum, m_blk, n_blk, epilogue_thread);
        if (tail_unit) stamp(unit_step + 2);
      }
      if (!entered_tail) enter_tail();
      if (cuts) split_tail_exchange_release<Kernel>(grid, consumer_thread);
      stamp(kSplitTailTraceReleased);
    } else if constexpr (Mainloop::kChunkedPromotion) {
      // Cooperative with promotion: the mainloop runs the tile loop, so that the next tile's
      // first WGMMAs can be issued before this tile's epilogue; consumer 1 promotes half a chunk
      // after consumer 0.
      Mainloop::promoted_tile_loop(pipeline, read_state, k_tiles, consumer_thread,
                                   consumer * (Mainloop::kPromoteKTiles / 2), first_tile, tile_step,
                                   total_tiles, smem.tensors, [&](auto const& accum, int tile) {
                                     int m_blk, n_blk;
                                     cta_tile_coord(tile, m_blk, n_blk);
                                     store_tile(accum, m_blk, n_blk, consumer_thread);
                                   });
    } else {
      for (int tile = first_tile; tile < total_tiles; tile += tile_step) {
        int m_blk, n_blk;
        cta_tile_coord(tile, m_blk, n_blk);
        Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<Mainloop::kTileM>{}, Int<Mainloop::kGemmTileN>{}));

        if constexpr (!Kernel::kCooperative) math_order.wait();
        if constexpr (Mainloop::kPromoteKTiles > 0) {
          Mainloop::mma_promoted(pipeline, read_state, accum, k_tiles, consumer_thread, smem.tensors);
        } else if constexpr (Kernel::kSequential) {
          Mainloop::mma_sequential(pipeline, read_state, accum, k_tiles, consumer_thread, smem.tensors);
        } else {
          Mainloop::mma(pipeline, read_state, accum, k_tiles, consumer_thread, smem.tensors);
        }
        if constexpr (!Kernel::kCooperative && Kernel::kOverlapEpilogue) math_order.arrive();
        Mainloop::mma_tail(pipeline, read_state, tile_stages);
        read_state.advance(stages_per_step);  // past this tile (and the other consumer's)
        store_tile(accum, m_blk, n_blk, consumer_thread);
        if constexpr (!Kernel::kCooperative && !Kernel::kOverlapEpilogue) math_order.arrive();
      }
    }
    if constexpr (Kernel::kTmaStore) Kernel::TmaStore::drain(consumer_thread == 0);
  }
#endif
}

// Host side: builds the TMA descriptors for the user's pointers and launches a persistent grid.
template <class Kernel>
cudaError_t launch_sm90_swiglu_pingpong(SwigluParams const& p, int sm_count, cudaStream_t stream) {
  using Element = typename Kernel::Element;
  using Mainloop = typename Kernel::Mainloop;
  typename Kernel::Params params{
      Mainloop::make_params(static_cast<Element const*>(p.x), p.ldx,
                            static_cast<Element const*>(p.w_gate), p.ld_gate,
                            static_cast<Element const*>(p.w_up), p.ld_up, p.m, p.k, p.i),
      // Scheduler tiles are cluster tiles: kClusterM x kClusterN neighbouring tiles.
      // (x - 1) / t + 1 rounds up without overflowing for x near INT_MAX (x >= 1 is validated).
      // Raster bands of 8 tile rows (4 cluster rows of a weight-multicast cluster).
      Sm90StaticPersistentScheduler{(p.m - 1) / (Mainloop::kTileM * Kernel::kClusterM) + 1,
                                    (p.i - 1) / (Mainloop::kTileN * Kernel::kClusterN) + 1,
                                    8 / Kernel::kClusterM},
      static_cast<Element*>(p.out), p.ld_out, {}, 0, 0, 1, 0};
  if constexpr (Kernel::kTmaStore) {
    params.tma_out = Kernel::TmaStore::make(static_cast<Element*>(p.out), p.m, p.i, p.ld_out);
  }

  // Tile indices are int in the kernel, and the loops step past the last tile by up to twice
  // the grid: keep the count far from INT_MAX (the C API rejects such shapes before this).
  if (int64_t(params.scheduler.tiles_m) * params.scheduler.tiles_n > (int64_t(1) << 30)) {
    return cudaErrorInvalidValue;
  }

  auto* kernel = &sm90_swiglu_pingpong_kernel<Kernel>;
  cudaError_t err = opt_in_shared_memory_once<Kernel>(kernel, Kernel::kSmemBytes);
  if (err != cudaSuccess) return err;

  if constexpr (Kernel::kSplitTail) {
    // One CTA per SM (the tile's shared memory allows no more), or TILEGLU_SPLIT_TAIL_GRID's count
    // within that; split_tail_launch says how (a launch that cuts tiles is cooperative, with the
    // split refitted to a smaller grid if the context refuses).
    int const tiles = params.scheduler.total_tiles();
    int const k_tiles = Mainloop::k_tiles(params.mainloop);
    int const resident = sm_count > 0 ? sm_count : 1;
    int grid = split_tail_ctas(resident);
    char const* forced = std::getenv("TILEGLU_SPLIT_TAIL_GRID");
    int const forced_grid = parse_split_tail_grid(forced);
    if (forced_grid > 0) {
      grid = forced_grid < resident ? forced_grid : resident;
    } else if (forced_grid < 0) {
      std::fprintf(stderr, "tileglu: warning: TILEGLU_SPLIT_TAIL_GRID=%s is not 1-%d; the plan decides\n", forced,
                   kSplitTailMaxCtas);
    }
    params.epoch = grid_exchange_next_epoch();
    auto set_plan = [](SplitTailPlan const& split, typename Kernel::Params& q) {
      q.dp_tiles = split.dp_tiles;
      q.tail_tiles = split.tail_tiles;
      q.pieces = split.pieces;
    };
    SplitTailLaunch const how = split_tail_launch(tiles, k_tiles, grid);
    if (!how.cooperative) {
      // Nothing cut, nothing waited on (a CTA that is not yet resident only starts later).
      set_plan(how.plan, params);
      Sm90Launch launch(dim3(unsigned(how.grid), 1, 1), Kernel::kThreads, Kernel::kSmemBytes, stream);
      return launch.launch(kernel, params);
    }
    // The shrinking launch plans each grid it tries, how.grid (whose plan is how.plan) first.
    return launch_cooperative_shrinking(kernel, params, how.grid, Kernel::kThreads, Kernel::kSmemBytes, stream,
                                        [&](int g, typename Kernel::Params& q) {
                                          set_plan(split_tail_plan(tiles, k_tiles, g), q);
                                        });
  }

  // Persistent grid: one CTA per SM, or as many clusters as fit at once, which depends on how
  // the device's SMs group into GPCs: asked of the driver once per device.
  int max_clusters = sm_count;
  if constexpr (Kernel::kClusterSize > 1) {
    max_clusters = max_active_clusters_once<Kernel, Kernel::kClusterM, Kernel::kClusterN>(kernel, stream);
    if (max_clusters <= 0) max_clusters = sm_count / Kernel::kClusterSize;
  }
  int const tiles = params.scheduler.total_tiles();
  int const clusters = tiles < max_clusters ? tiles : max_clusters;
  Sm90Launch launch(dim3(clusters * Kernel::kClusterM, Kernel::kClusterN, 1), Kernel::kThreads,
                    Kernel::kSmemBytes, stream, Kernel::kClusterM, Kernel::kClusterN);
  return launch.launch(kernel, params);
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/ (sm90_launch.hpp); the trailing
// arguments are Sm90SwigluPingpong's after the element type.
#define TILEGLU_INSTANTIATE_PINGPONG(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_pingpong, Sm90SwigluPingpong, name, dtype, Element, __VA_ARGS__)
