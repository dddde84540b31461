// Swap-AB Pingpong SwiGLU kernel for prefill-sized M (a few hundred to a few thousand tokens):
// the weights on the WGMMA's M side in units of kCols output columns (2 * kCols weight rows,
// gate and up interleaved in 8-row groups), the tokens on its N side (kTokens, any N CUTLASS has
// one instruction for), two consumer warpgroups taking alternate units so one's SwiGLU and stores
// run under the other's WGMMAs.
//
// Why: cuBLAS's fastest kernels at these M (`nvjet_sm90_tst_192x128` at Qwen2.5-7B M = 256,
// `_192x176` at 72B M = 1537; bench/NOTES.md session 9) put 192 weight rows on M and 128-176
// tokens on N, so the tiles fill whole waves (7B M = 256: 198 x 2 = 396 tiles = 3.0 waves of 132)
// and a ragged M wastes under one 8-token step instead of a 64- or 128-row tile row. Under ncu
// at 7B M = 256 that kernel keeps the tensor pipe 87 % busy against 78 % for tileglu's 64x64
// Pingpong tile. A fused SwiGLU tile needs the gate and up rows of the same output column in the
// same thread's accumulator: the m64nNk16 accumulator gives each thread rows r and r + 8 of every
// 16-row slice, so stage rows [16g, 16g + 8) hold gate rows 8g..8g+7 of the unit and rows
// [16g + 8, 16g + 16) the same up rows, and every thread holds its gate value and its up value
// in the two "row" halves of its fragment. 96 columns = 192 rows = three m64 atoms.
//
// Structure (384 threads, persistent, one CTA per SM): warpgroup 0 produces (one thread issues
// 2 * kCols / 8 weight copies of 8 rows and one token copy per stage, all on one barrier),
// warpgroups 1 and 2 consume units s = 0, 2, 4, ... and 1, 3, 5, ... of this CTA's sequence
// (unit blockIdx.x + s * gridDim.x). Units are token-block-fastest: the CTAs running together
// take every token block of a few column blocks, so each weight row comes from DRAM once and
// from L2 for the other token blocks; X (M x K, 1.8 MB at 7B M = 256, 25 MB at 72B M = 1537)
// stays in L2. Column-block-fastest read the weights once per token block: 7B M = 256 took
// 155 us, twice the weights' stream time, against 124 us for the incumbent. A consumer's
// pipeline position skips the other's k tiles. Tails in I, K and M: TMA zero fill, stores
// guarded.
//
// Cooperative variant (kCooperative, the `k2_swapab_coop_` configs): both consumer warpgroups
// take every unit, each half of its tokens, so one unit can be 192 rows x 176 tokens (cuBLAS's
// 72B M = 1537 tile) with 132 accumulators per thread. Bigger units read less from L2 and shared
// memory per FLOP: per output element (1/rows + 1/tokens) operand bytes, 0.0109 at 192 x 176
// against 0.0141 at the Pingpong 192 x 112. At these shapes the card runs at its power limit
// (session 9), so bytes moved are clock lost.
//
// Row-split Cooperative variant (kSplitRows, the `k2_swapab_rowcoop_` configs): both warpgroups
// take every unit, each half of its weight rows (alternate m64 atoms) and all of its tokens, as
// cuBLAS's `nvjet_sm90_tst_256x144_..._coopA` does at 32B M = 1537 (session 23's ncu: 95.7 % SM
// throughput against 82.1 % for the token-split c96 n224 unit). Why: 144 tokens cover M = 1537
// in 11 blocks (1584 rows), and 256-row units then make 216 x 11 = 2376 units at 32B (I = 27648),
// 18 whole rounds of 132, and 108 x 11 = 1188 = 9 rounds at 14B; and a warpgroup's two
// m64n144 atoms share one token operand, 44.8 shared-memory bytes per 1000 MACs against 48 for
// c96 n224's three m64n112. The gate/up pairing holds in any m64 atom, so the epilogue is the
// same. Needs kRows a multiple of 128.
//
// 2-CTA clusters (kClusterCols = 2, the `_x2` configs): the two CTAs of a cluster take adjacent
// column blocks of the same token block, and each loads half of the stage's tokens and
// multicasts it to both (cuBLAS's 32B M = 1537 kernel runs its 256 x 144 tile in 2x1 clusters).
// Why: per stage a CTA then reads 256 + 72 operand rows from L2 instead of 256 + 144, 22 % fewer
// bytes at c128 n144, and at these shapes the card runs at its power limit (session 9), so bytes
// moved are clock lost. The stage releases become cluster-wide (sm90_tma_pipeline.hpp, kPeers = 2).
// Both CTAs walk the same unit sequence (units are column-block pairs), so they consume the same
// stages; where the column blocks are odd in number the last pair's second CTA computes on the
// TMA's zero fill past I and stores nothing.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/cutlass.h>

#include "sm90_launch.hpp"
#include "sm90_tma_pipeline.hpp"
#include "sm90_tma_l2_promotion.hpp"
#include "sm90_wgmma_k_sweep.hpp"
#include "swiglu_activation.hpp"
#include "swiglu_params.h"

namespace tileglu::kernels {

template <class Element_, int kCols_, int kTokens_, int kStages_, bool kCooperative_ = false,
          bool kSplitRows_ = false, int kClusterCols_ = 1, bool kSiluWithoutDivision_ = false>
struct Sm90SwigluSwapABPingpong {
  using Element = Element_;
  static constexpr int kCols = kCols_;          // output columns per unit
  static constexpr int kRows = 2 * kCols;       // weight rows per unit, gate/up interleaved by 8
  static constexpr int kGroups = kCols / 8;     // 8-column groups: one gate and one up copy each
  static constexpr int kTokens = kTokens_;      // tokens per unit
  // Pingpong (false): each consumer warpgroup takes whole units in turn. Cooperative (true): both
  // take every unit, each half of its tokens (the WGMMA's N = kTokens / 2), so a unit can be
  // twice as wide in tokens for the same accumulator registers.
  static constexpr bool kCooperative = kCooperative_;
  // Cooperative only: the warpgroups split the unit's weight rows (alternate m64 atoms) instead
  // of its tokens, each WGMMA taking all kTokens.
  static constexpr bool kSplitRows = kSplitRows_;
  static_assert(!kSplitRows || kCooperative, "the row split is a Cooperative schedule");
  // CTAs per cluster sharing each token tile (1: no cluster; 2: each loads half, multicast).
  static constexpr int kClusterCols = kClusterCols_;
  static_assert(kClusterCols == 1 || kClusterCols == 2, "clusters of 1 or 2 CTAs");
  static constexpr int kTokensPerLoad = kTokens / kClusterCols;  // token rows one CTA's X copy loads
  static_assert(kTokensPerLoad % 8 == 0, "each CTA's share of the token tile must be whole 8-row atoms");
  // The epilogue's SiLU: the IEEE division (default) or without it (the `_fs` configs; see
  // swiglu_activation.hpp). In the Cooperative units the tensor pipe waits for the epilogue:
  // under ncu (session 24, 32B M = 1537) the row-split unit's tensor pipe is busy 85 % of the
  // cycles against cuBLAS's 95 % on the same tile shape and the same MMA cycles. Without the
  // division: 2-3 points more, and the c96 n224 unit 0.97-0.98x its twin's time there.
  using Activation = cute::conditional_t<kSiluWithoutDivision_, SiluMulWithoutDivision, SiluMul>;
  static constexpr int kConsumers = 2;
  static constexpr int kConsumerTokens = kCooperative && !kSplitRows ? kTokens / 2 : kTokens;
  static constexpr int kConsumerRows = kSplitRows ? kRows / 2 : kRows;  // weight rows per warpgroup
  static constexpr int kTileK = 64;             // one 128-byte swizzle atom of K per stage
  static constexpr int kStages = kStages_;
  static constexpr int kThreads = 384;
  static constexpr int kConsumerThreads = 128;
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  static constexpr int kOrderBarrier = 2;  // named barriers 2 and 3 (after CUTLASS's reserved ones)
  static_assert(kRows % (kSplitRows ? 128 : 64) == 0,
                "whole m64 atoms of weight rows (per warpgroup): kCols a multiple of 32 (64 split by rows)");
  static_assert(kConsumerTokens % 8 == 0 && kConsumerTokens <= 256 && kTokens % kConsumerTokens == 0, "WGMMA N");
  // fp32 accumulators per consumer thread: kConsumerRows * kConsumerTokens / 128.
  static constexpr int kAccumValues = kConsumerRows * kConsumerTokens / kConsumerThreads;
  static_assert(kAccumValues <= 192, "accumulators must leave room in the consumers' 232 registers");

  using MmaAtom = decltype(sm90_ss_wgmma_atom<Element, kConsumerTokens, kTileK>());
  static_assert(cute::size<1>(typename cute::MMA_Traits<MmaAtom>::Shape_MNK{}) == kConsumerTokens,
                "no single WGMMA instruction of N = kConsumerTokens: choose a token count CUTLASS selects");
  // Cooperative: the two warpgroups tile N, so one TiledMma over 256 threads partitions the
  // stage's tokens between them (as CUTLASS's Cooperative kernels tile M); split by rows they
  // tile M, warpgroup c taking m64 atoms c, c + 2, ... of the unit.
  using TiledMma = decltype(cute::make_tiled_mma(
      MmaAtom{}, cute::Layout<cute::Shape<cute::Int<kSplitRows ? 2 : 1>, cute::Int<kTokens / kConsumerTokens>, cute::_1>>{}));

  // K-major, 128-byte swizzled; tile_to_shape stacks 8-row atoms along the rows first, so row
  // block b of a stage (rows [8b, 8b + 8)) is the dense 1 KiB atom at element offset 512 * b:
  // what one 8-row TMA copy writes.
  using SmemAtom = cute::GMMA::Layout_K_SW128_Atom<Element>;
  using SmemLayoutA = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  using SmemLayoutB = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTokens>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  using SmemLayoutGroup = decltype(cute::tile_to_shape(SmemAtom{}, cute::make_shape(cute::_8{}, cute::Int<kTileK>{})));
  using SmemLayoutBStage = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTokens>{}, cute::Int<kTileK>{})));
  // One CTA's X copy: the first kTokensPerLoad rows of SmemLayoutBStage have this layout (row
  // atoms stack first), so the copy of share r lands at element offset r * kXLoadElems.
  using SmemLayoutXLoad = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTokensPerLoad>{}, cute::Int<kTileK>{})));
  static constexpr int kXLoadElems = kTokensPerLoad * kTileK;
  static constexpr int kGroupElems = 8 * kTileK;
  static constexpr int kStageElemsA = kRows * kTileK;
  static constexpr int kStageElemsB = kTokens * kTileK;
  static_assert(cute::cosize_v<SmemLayoutGroup> == kGroupElems, "an 8-row group must be one dense atom");
  static_assert(cute::cosize_v<SmemLayoutA> == kStageElemsA * kStages, "A stages must be dense");
  static_assert(cute::cosize_v<SmemLayoutB> == kStageElemsB * kStages, "B stages must be dense");
  static constexpr uint32_t kTmaTransactionBytes = uint32_t((kRows + kTokens) * kTileK * sizeof(Element));

  using Pipeline = Sm90TmaPipeline<kStages, kClusterCols>;
  using PipelineState = typename Pipeline::PipelineState;

  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutA>, 1024> a;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutB>, 1024> b;
    typename Pipeline::SharedStorage pipeline;
  };
  static constexpr int kSmemBytes = smem_bytes_with_alignment_slack<SharedStorage>();

  using GmemLayout = cute::Layout<cute::Shape<int, int>, cute::Stride<int64_t, cute::_1>>;
  using GmemTensor = decltype(cute::make_tensor(cute::make_gmem_ptr(static_cast<Element const*>(nullptr)), GmemLayout{}));
  using TmaW = decltype(cute::make_tma_copy(cute::SM90_TMA_LOAD{}, GmemTensor{}, SmemLayoutGroup{}));
  using XCopyOp = cute::conditional_t<kClusterCols == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
  using TmaX = decltype(cute::make_tma_copy(XCopyOp{}, GmemTensor{}, SmemLayoutXLoad{}));

  struct Params {
    TmaW tma_gate;
    TmaW tma_up;
    TmaX tma_x;
    Element* out;
    int64_t ld_out;
    int m, k, i;
    int k_tiles;      // ceil(K / 64)
    int token_blocks;  // ceil(M / kTokens)
    int units;         // ceil(ceil(I / kCols) / kClusterCols) x token_blocks: a cluster's units
  };

  // Unit u of a cluster, for the CTA of rank `rank` in it: token-block-fastest; the cluster's
  // CTAs take adjacent column blocks.
  struct UnitCoord {
    int token_blk;
    int col_blk;
  };
  CUTLASS_DEVICE static UnitCoord unit_coord(Params const& p, int u, int rank) {
    return {u % p.token_blocks, (u / p.token_blocks) * kClusterCols + rank};
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, 1)
sm90_swiglu_swapab_pingpong_kernel(__grid_constant__ typename Kernel::Params const p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cute;
  using Element = typename Kernel::Element;
  using PipelineState = typename Kernel::PipelineState;
  using SharedStorage = typename Kernel::SharedStorage;
  constexpr int kTileK = Kernel::kTileK;

  extern __shared__ char smem_raw[];
  SharedStorage& smem = aligned_shared_storage<SharedStorage>(smem_raw);

  int const warp_group = cutlass::canonical_warp_group_idx();
  int const wg_thread_idx = int(threadIdx.x) % cutlass::NumThreadsPerWarpGroup;
  if (threadIdx.x == 0) {
    cute::prefetch_tma_descriptor(p.tma_gate.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_up.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_x.get_tma_descriptor());
  }
  // Pingpong: each stage is consumed by one warpgroup, whose thread 0 releases it. Cooperative:
  // by both, each warpgroup's thread 0 releasing its half.
  typename Kernel::Pipeline pipeline(smem.pipeline, int(threadIdx.x), Kernel::kTmaTransactionBytes,
                                     warp_group > 0 && wg_thread_idx == 0, Kernel::kCooperative ? 2u : 1u);
  // This CTA's rank in its cluster, and the cluster's place in the grid's unit sequence (units
  // first, first + stride, ...). Clustered, the peers' barriers must be initialised before any
  // multicast or release reaches them: a cluster-wide sync.
  int const rank = Kernel::kClusterCols > 1 ? int(cute::block_rank_in_cluster()) : 0;
  int const first = int(blockIdx.x) / Kernel::kClusterCols;
  int const stride = int(gridDim.x) / Kernel::kClusterCols;
  if constexpr (Kernel::kClusterCols > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  } else {
    __syncthreads();
  }

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<Kernel::kProducerRegisters>();
    if (cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
      Tensor mG = p.tma_gate.get_tma_tensor(make_shape(p.i, p.k));
      Tensor mU = p.tma_up.get_tma_tensor(make_shape(p.i, p.k));
      Tensor mX = p.tma_x.get_tma_tensor(make_shape(p.m, p.k));
      // (8, 64, 8-row group, k tile) and (kTokensPerLoad, 64, token share, k tile): token block b's
      // shares are b * kClusterCols + rank.
      Tensor gG = local_tile(mG, make_shape(_8{}, Int<kTileK>{}), make_coord(_, _));
      Tensor gU = local_tile(mU, make_shape(_8{}, Int<kTileK>{}), make_coord(_, _));
      Tensor gX = local_tile(mX, make_shape(Int<Kernel::kTokensPerLoad>{}, Int<kTileK>{}), make_coord(_, _));
      auto tma_g = p.tma_gate.get_slice(Int<0>{});
      auto tma_u = p.tma_up.get_slice(Int<0>{});
      auto tma_x = p.tma_x.get_slice(Int<0>{});
      Tensor tGgG = tma_g.partition_S(gG);  // (TMA, TMA_M, TMA_K, groups, k tiles)
      Tensor tUgU = tma_u.partition_S(gU);
      Tensor tXgX = tma_x.partition_S(gX);
      PipelineState write_state{0, 1, 0};  // the producer starts on the "previous" phase
      for (int u = first; u < p.units; u += stride) {
        auto const [token_blk, col_blk] = Kernel::unit_coord(p, u, rank);
        int const group0 = col_blk * Kernel::kGroups;
        CUTLASS_PRAGMA_NO_UNROLL
        for (int kt = 0; kt < p.k_tiles; ++kt) {
          pipeline.producer_acquire(write_state);
          auto* full_barrier = pipeline.producer_get_barrier(write_state);
          Element* const stage_a = smem.a.data() + write_state.index() * Kernel::kStageElemsA;
          CUTLASS_PRAGMA_UNROLL
          for (int g = 0; g < Kernel::kGroups; ++g) {
            // Gate rows of group g into row block 2g, the same up rows into row block 2g + 1.
            Tensor sG = make_tensor(make_smem_ptr(stage_a + (2 * g) * Kernel::kGroupElems),
                                    typename Kernel::SmemLayoutGroup{});
            Tensor sU = make_tensor(make_smem_ptr(stage_a + (2 * g + 1) * Kernel::kGroupElems),
                                    typename Kernel::SmemLayoutGroup{});
            copy(p.tma_gate.with(*full_barrier), tGgG(_, _, _, group0 + g, kt), tma_g.partition_D(sG));
            copy(p.tma_up.with(*full_barrier), tUgU(_, _, _, group0 + g, kt), tma_u.partition_D(sU));
          }
          // This CTA's share of the token tile, at its offset in the stage (of every CTA's stage
          // when multicast: the same offset in each).
          Tensor sX = make_tensor(make_smem_ptr(smem.b.data() + write_state.index() * Kernel::kStageElemsB +
                                                rank * Kernel::kXLoadElems),
                                  typename Kernel::SmemLayoutXLoad{});
          int const share = token_blk * Kernel::kClusterCols + rank;
          if constexpr (Kernel::kClusterCols == 1) {
            copy(p.tma_x.with(*full_barrier), tXgX(_, _, _, share, kt), tma_x.partition_D(sX));
          } else {
            uint16_t const every_cta = uint16_t((1u << Kernel::kClusterCols) - 1);
            copy(p.tma_x.with(*full_barrier, every_cta), tXgX(_, _, _, share, kt), tma_x.partition_D(sX));
          }
          ++write_state;
        }
      }
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<Kernel::kConsumerRegisters>();
    int const consumer = warp_group - 1;
    typename Kernel::TiledMma tiled_mma;
    Tensor sA = make_tensor(make_smem_ptr(smem.a.data()), typename Kernel::SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(smem.b.data()), typename Kernel::SmemLayoutB{});
    // Cooperative: the TiledMma spans both consumer warpgroups (256 threads) and gives each its
    // half of the tokens (or of the m64 atoms, kSplitRows); Pingpong: one warpgroup's 128
    // threads hold the whole unit.
    auto thread_mma = tiled_mma.get_slice(Kernel::kCooperative ? int(threadIdx.x) - cutlass::NumThreadsPerWarpGroup
                                                               : wg_thread_idx);
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA, kConsumerRows / 64, MMA_K, PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));  // (MMA, 1, MMA_K, PIPE)
    // ((2 tokens, 2 rows r / r + 8, kConsumerTokens / 8), kConsumerRows / 64, 1): mode 0's second
    // sub-mode separates gate (0) from up (1).
    Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<Kernel::kRows>{}, Int<Kernel::kTokens>{}));
    Tensor coord = thread_mma.partition_C(make_identity_tensor(make_shape(Int<Kernel::kRows>{}, Int<Kernel::kTokens>{})));
    uint16_t* const out = reinterpret_cast<uint16_t*>(p.out);
    typename Kernel::Activation const act;
    // SwiGLU of this thread's accumulators of unit u, stored from registers: each store
    // instruction writes 8 consecutive columns (16 bytes) of 4 tokens. In the Pingpong schedule
    // it runs under the other warpgroup's sweep; in the Cooperative ones the tensor pipe waits
    // for it (session 24's ncu at 32B M = 1537: 12 % of the cycles), so it is written for few
    // instructions per output: the bounds and addresses that do not change along the unrolled
    // loops are hoisted (session 25's SASS of the row-split unit had ~30 instructions per
    // output, half of them 64-bit address math and a branch around each store), leaving per
    // output the activation, the rounding and one predicated store at an immediate offset.
    //   Thread layout (the m64nNk16 accumulator): for (c, v, j) of atom m, weight row
    // row(m) + 8 v, token token(c, j); row(m) - row(0) and token(c, j) - token(0, 0) are
    // compile-time constants, so only row(0) and token(0, 0) are per thread.
    constexpr int kAtoms = size<1>(accum);
    constexpr int kTokenGroups = size<0, 2>(accum);
    auto store_unit = [&](int u) {
      auto const [token_blk, col_blk] = Kernel::unit_coord(p, u, rank);
      // Gate at row r (r % 16 < 8), up at r + 8: output column 8 * (r / 16) + r % 8. Atom m's
      // rows are row(0) + a multiple of 16, so its column is column(0) + (row(m) - row(0)) / 2.
      int const row0 = get<0>(coord(make_coord(make_coord(0, 0, 0), 0, 0)));
      int const token_first = get<1>(coord(make_coord(make_coord(0, 0, 0), 0, 0)));
      int const col_first = col_blk * Kernel::kCols + 8 * (row0 / 16) + row0 % 8;
      int const token_base = token_blk * Kernel::kTokens + token_first;
      int col_step[kAtoms];  // atom m's output column - col_first
      bool col_in[kAtoms];
      CUTLASS_PRAGMA_UNROLL
      for (int m = 0; m < kAtoms; ++m) {
        col_step[m] = (get<0>(coord(make_coord(make_coord(0, 0, 0), m, 0))) - row0) / 2;
        col_in[m] = col_first + col_step[m] < p.i;
      }
      // Tokens from this thread's first one to M (0 or less: all past M); M is 32-bit.
      int const tokens_left = p.m - token_base;
      uint16_t* const first = out + int64_t(token_base) * p.ld_out + col_first;
      CUTLASS_PRAGMA_UNROLL
      for (int j = 0; j < kTokenGroups; ++j) {
        CUTLASS_PRAGMA_UNROLL
        for (int c = 0; c < 2; ++c) {
          int const token_step = get<1>(coord(make_coord(make_coord(c, 0, j), 0, 0))) - token_first;
          bool const token_in = token_step < tokens_left;
          uint16_t* const row_out = first + int64_t(token_step) * p.ld_out;
          CUTLASS_PRAGMA_UNROLL
          for (int m = 0; m < kAtoms; ++m) {
            // Computed whether stored or not (past I or M the TMA zero fill makes it finite), so
            // that the store alone is predicated: no branch per output.
            uint16_t const bits = round_to_bits<Element>(
                act(accum(make_coord(make_coord(c, 0, j), m, 0)), accum(make_coord(make_coord(c, 1, j), m, 0))));
            if (token_in && col_in[m]) row_out[col_step[m]] = bits;
          }
        }
      }
    };

    if constexpr (Kernel::kCooperative) {
      // Both warpgroups sweep every unit of this CTA in step; each releases every stage.
      PipelineState read_state{};
      for (int u = first; u < p.units; u += stride) {
        wgmma_k_sweep(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, p.k_tiles);
        warpgroup_wait<0>();
        warpgroup_fence_operand(accum);
        read_state.advance(uint32_t(p.k_tiles - 1));
        pipeline.consumer_release(read_state);  // the last k tile's stage: its WGMMAs have retired
        ++read_state;
        store_unit(u);
      }
    } else {
      // The consumers' K sweeps take turns (named barriers kOrderBarrier + 0/1, 256 threads: one
      // warpgroup waits, the other arrives). Not only for the schedule: the stage barriers are
      // phase-parity barriers, which cannot tell a stage's fill for position p from its fill for
      // p - 2 * kStages, so a consumer must not wait on its first position (the other's k tiles
      // ahead) before the other has issued its whole sweep; then every position it waits on is
      // at most one phase ahead of its barrier. Consumer c takes units s = c, c + 2, ... of this
      // CTA's sequence.
      int const my_units = (p.units - first + stride - 1) / stride;
      PipelineState read_state{};
      read_state.advance(uint32_t(consumer * p.k_tiles));  // past the other consumer's first unit
      int s = consumer;  // position of unit u in this CTA's sequence
      for (int u = first + consumer * stride; u < p.units; u += 2 * stride, s += 2) {
        if (s > 0) cutlass::arch::NamedBarrier::sync(2 * Kernel::kConsumerThreads, Kernel::kOrderBarrier + consumer);
        wgmma_k_sweep(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, p.k_tiles);
        if (s + 1 < my_units) {  // the other consumer's next sweep may start
          cutlass::arch::NamedBarrier::arrive(2 * Kernel::kConsumerThreads, Kernel::kOrderBarrier + 1 - consumer);
        }
        warpgroup_wait<0>();
        warpgroup_fence_operand(accum);
        read_state.advance(uint32_t(p.k_tiles - 1));
        pipeline.consumer_release(read_state);  // the last k tile's stage: its WGMMAs have retired
        read_state.advance(uint32_t(1 + p.k_tiles));  // and past the other consumer's next unit
        store_unit(u);
      }
    }
  }
  // Clustered: the peer's last releases arrive on this CTA's empty barriers, so neither CTA may
  // exit before both are done (the arrive releases them, the wait acquires).
  if constexpr (Kernel::kClusterCols > 1) {
    cute::cluster_arrive();
    cute::cluster_wait();
  }
#endif
}

// Host side: one 8-row TMA descriptor per weight (each stage issues 2 * kCols / 8 of them), one
// for X (a CTA's share of the token tile); a persistent grid of one CTA per SM (the units are
// compute-heavy: every SM is used), clustered: as many whole clusters as fit at once.
template <class Kernel>
cudaError_t launch_sm90_swiglu_swapab_pingpong(SwigluParams const& p, int sm_count, cudaStream_t stream) {
  using namespace cute;
  using Element = typename Kernel::Element;
  auto gmem = [](void const* ptr, int rows, int cols, int64_t ld) {
    return make_tensor(make_gmem_ptr(static_cast<Element const*>(ptr)),
                       make_layout(make_shape(rows, cols), make_stride(ld, _1{})));
  };
  // (x - 1) / t + 1 rounds up without overflowing for x near INT_MAX (x >= 1 is validated).
  int64_t const col_blocks = (p.i - 1) / Kernel::kCols + 1;
  int64_t const cluster_col_blocks = (col_blocks - 1) / Kernel::kClusterCols + 1;
  int64_t const token_blocks = (p.m - 1) / Kernel::kTokens + 1;
  // The kernel's unit count and its first column and token of a unit (past I or M for the tails)
  // are 32-bit.
  if (cluster_col_blocks * token_blocks >= (int64_t(1) << 31) ||
      cluster_col_blocks * Kernel::kClusterCols * Kernel::kCols >= (int64_t(1) << 31) ||
      token_blocks * Kernel::kTokens >= (int64_t(1) << 31)) {
    return cudaErrorInvalidValue;
  }
  typename Kernel::Params params{
      make_tma_copy(SM90_TMA_LOAD{}, gmem(p.w_gate, p.i, p.k, p.ld_gate), typename Kernel::SmemLayoutGroup{}),
      make_tma_copy(SM90_TMA_LOAD{}, gmem(p.w_up, p.i, p.k, p.ld_up), typename Kernel::SmemLayoutGroup{}),
      make_tma_copy(typename Kernel::XCopyOp{}, gmem(p.x, p.m, p.k, p.ldx), typename Kernel::SmemLayoutXLoad{}),
      static_cast<Element*>(p.out), p.ld_out, p.m, p.k, p.i,
      (p.k - 1) / Kernel::kTileK + 1, int(token_blocks), int(cluster_col_blocks * token_blocks)};
  // The weights' L2 promotion (sm90_tma_l2_promotion.hpp), on the 8-row group boxes.
  promote_weight_tmas<Kernel, Element>(WeightReader::kSwapABPingpong, p.i, p.k, 8, Kernel::kTileK,
                                       {params.tma_gate.get_tma_descriptor(), p.w_gate, p.ld_gate},
                                       {params.tma_up.get_tma_descriptor(), p.w_up, p.ld_up});

  auto* kernel = &sm90_swiglu_swapab_pingpong_kernel<Kernel>;
  cudaError_t err = opt_in_shared_memory_once<Kernel>(kernel, Kernel::kSmemBytes);
  if (err != cudaSuccess) return err;
  constexpr int kCluster = Kernel::kClusterCols;
  int64_t clusters = (sm_count > 0 ? sm_count : 1) / kCluster;
  if constexpr (kCluster > 1) {
    // Whole clusters only; the GPCs' SM counts may leave some SMs out of any cluster.
    int const fit = max_active_clusters_once<Kernel, kCluster>(kernel, stream);
    if (fit > 0 && fit < clusters) clusters = fit;
  }
  if (clusters < 1) clusters = 1;
  if (params.units < clusters) clusters = params.units;
  Sm90Launch launch(dim3(unsigned(clusters * kCluster), 1, 1), Kernel::kThreads, Kernel::kSmemBytes, stream,
                    unsigned(kCluster));
  return launch.launch(kernel, params);
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/ (sm90_launch.hpp); the trailing
// arguments are Sm90SwigluSwapABPingpong's after the element type.
#define TILEGLU_INSTANTIATE_SWAPAB_PINGPONG(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_swapab_pingpong, Sm90SwigluSwapABPingpong, name, dtype, Element, __VA_ARGS__)
