// Mainloop of the WGMMA kernels: TMA loads of one X tile and one [gate | up] weight tile per
// stage, consumed by one WGMMA per k-block over the whole 2*tile_n-wide tile (Kernel-2) or by
// two tile_n-wide WGMMAs into separate gate and up accumulators (Kernel-1, kSplitAccumulators).
//
// Why two weight TMA copies per stage instead of one over an interleaved weight: the user's
// weights stay where they are (separate Wg/Wu or a stacked [Wg; Wu], any leading dimension,
// any order in memory). Each copy fills one half of the stage's B buffer: gate rows
// [n0, n0+tile_n) of Wg into rows [0, tile_n), the same rows of Wu into rows [tile_n, 2 tile_n).
// One WGMMA with N = 2*tile_n then leaves matching gate and up columns in the same thread's
// accumulator (see sm90_swiglu_epilogue.hpp). The stage's full barrier counts the bytes of all
// three copies.
//
// Clusters of kClusterM x kClusterN CTAs (cluster x = M direction, y = N direction, as CUTLASS's
// PipelineTmaAsync expects): the kClusterN CTAs of a cluster column share an M-block and each
// loads 1/kClusterN of the X tile and multicasts it to the others (X multicast); the kClusterM
// CTAs of a cluster row share an N-block and each loads 1/kClusterM of the gate and up tiles and
// multicasts them (weight multicast). L2->SM traffic per CTA and stage falls from
// (tile_m + 2 tile_n) * tile_k to (tile_m / kClusterN + 2 tile_n / kClusterM) * tile_k elements.
// Weight multicast halves the larger operand of the wide tiles: it is what cuBLAS's large-M
// kernels do (swap-AB 256x128 tiles in 1x2 clusters, the weights shared; bench/NOTES.md).
//
// Promotion (kPromoteKTiles = P > 0): the tensor cores' fp32 accumulation over a long K loses
// bits (the share of outputs more than 1 bf16 ulp from the exact result grows with K, measured
// 0.006% at K=896 to 0.068% at K=8192 with plain WGMMA accumulation, the same as cuBLAS). With
// promotion the WGMMA accumulates P k tiles into a scratch accumulator that starts from zero,
// and the scratch is added into the real accumulator with ordinary round-to-nearest FADDs, so
// the tensor cores sum at most P*tile_k products at a time. It costs a second accumulator of
// registers and one WGMMA drain per P k tiles.
//
// Chunked promotion (kPromoteKTiles > 0 with two consumer warpgroups, the Cooperative schedule):
// promoted_tile_loop() runs a consumer's whole tile loop. It differs from mma_promoted() in three
// ways, each for the tensor cores' sake: (1) the warpgroups promote half a chunk apart (phase 0
// and P/2), so while one drains its WGMMAs and adds, the other's batches keep the tensor cores
// busy; (2) the last chunk of a tile is as long as K leaves it (no k tiles of zeros: at K = 896
// rounding 14 k tiles up to 16 would cost 14 %); (3) the first kPreissueKTiles k tiles of the next
// tile are issued into the scratch accumulator before the epilogue of this tile, which reads the
// promoted accumulator only, so the SwiGLU math and stores run under those WGMMAs instead of
// leaving the tensor cores idle as the Cooperative epilogue otherwise does.
//
// Sequential (kSequential, a Kernel-1 ablation): the design's literal "Swish on Gate while Up
// loads". A tile takes 2 * k_tiles stages: a gate K sweep (stage j: X and Wg k tile j), then an
// up K sweep (X and Wu k tile j again), so X is read twice. mma_sequential() applies SiLU to the
// gate accumulator while the up sweep's WGMMAs run, and the epilogue only multiplies
// (MulActivated). Each stage carries one weight tile, in the first tile_n rows of its B buffer;
// the other half stays unused: that wastes tile_n * tile_k elements of shared memory per stage
// but keeps the one stage layout (and WGMMA descriptors) of the other variants.
//
// Tails in M, I and K come for free: TMA zero-fills rows and columns outside each
// tensor's bounds, so out-of-range gate/up rows contribute zeros and are never stored.
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "sm90_tma_l2_promotion.hpp"
#include "sm90_wgmma_k_sweep.hpp"
#include "swiglu_activation.hpp"

namespace tileglu::kernels {

template <class Element_, int kTileM_, int kTileN_, int kTileK_, int kStages_, int kClusterN_,
          int kPromoteKTiles_, bool kSplitAccumulators_ = false, int kConsumerWarpgroups_ = 1,
          bool kSequential_ = false, int kClusterM_ = 1>
struct Sm90SwigluMainloop {
  using Element = Element_;
  static constexpr int kTileM = kTileM_;        // rows of X per warpgroup tile
  static constexpr int kTileN = kTileN_;        // output columns per tile
  static constexpr int kGemmTileN = 2 * kTileN; // [gate | up] GEMM columns per tile
  static constexpr int kTileK = kTileK_;
  static constexpr int kStages = kStages_;
  static constexpr int kClusterN = kClusterN_;  // CTAs sharing (multicasting) one X tile
  static constexpr int kClusterM = kClusterM_;  // CTAs sharing (multicasting) one weight tile
  static constexpr int kClusterSize = kClusterM * kClusterN;
  static constexpr int kPromoteKTiles = kPromoteKTiles_;  // 0: accumulate in the tensor cores only
  // false (Kernel-2): one WGMMA of N = 2*tile_n per k-block, one accumulator over [gate | up].
  // true (Kernel-1): WGMMA atoms of N = tile_n, so the same loop issues two WGMMAs per k-block
  // into two accumulators, gate (MMA_N index 0) and up (index 1), from the same stage.
  static constexpr bool kSplitAccumulators = kSplitAccumulators_;
  static constexpr int kMmaAtomN = kSplitAccumulators ? kTileN : kGemmTileN;
  // Warpgroups that share one tile's K sweep: 1 (Pingpong: a warpgroup owns a whole tile) or
  // 2 (Cooperative: each takes tile_m / 2 rows of the same stage).
  static constexpr int kConsumerWarpgroups = kConsumerWarpgroups_;
  // true: the gate K sweep, then the up K sweep (see the header comment); Kernel-1 only.
  static constexpr bool kSequential = kSequential_;
  // Weight sweeps per tile, each of k_tiles() stages: [gate | up] together, or gate then up.
  static constexpr int kSweeps = kSequential ? 2 : 1;

  static_assert(kTileM % (64 * kConsumerWarpgroups) == 0, "a warpgroup's WGMMA covers 64 rows at a time");
  static_assert(kConsumerWarpgroups == 1 || kConsumerWarpgroups == 2, "one or two consumer warpgroups per tile");
  static_assert(kGemmTileN % 16 == 0 && kGemmTileN <= 256, "WGMMA N is at most 256");
  static_assert(kClusterN == 1 || kClusterN == 2, "X multicast over 1 or 2 CTAs");
  static_assert(kPromoteKTiles >= 0, "promotion interval is a number of k tiles");
  static_assert(kTileM % (8 * kClusterN) == 0, "each CTA multicasts whole swizzle atoms of X");
  static_assert(kClusterM == 1 || kClusterM == 2, "weight multicast over 1 or 2 CTAs");
  static_assert(kTileN % (8 * kClusterM) == 0, "each CTA multicasts whole swizzle atoms of the weights");
  static_assert(!kSequential || kSplitAccumulators, "the sequential sweeps fill separate gate and up accumulators");
  static_assert(!kSequential || kPromoteKTiles == 0, "the sequential sweeps have no promoted variant");
  // Cooperative promotion runs promoted_tile_loop() (chunks half a chunk apart per warpgroup, no
  // rounding of K); the Pingpong one mma_promoted().
  static constexpr bool kChunkedPromotion = kPromoteKTiles > 0 && kConsumerWarpgroups == 2;
  // k tiles of the next tile issued before a tile's epilogue (chunked promotion). Two batches
  // of both warpgroups are 4 x 64 x 128 x 64 MACs, ~1000 tensor-core cycles of an SM: about what
  // the epilogue of a 128 x 64 output tile takes (SiLU, staging, TMA store issue).
  static constexpr int kPreissueKTiles = kPromoteKTiles / 2 < 2 ? kPromoteKTiles / 2 : 2;
  static_assert(!kChunkedPromotion || (kPromoteKTiles >= 2 && kPromoteKTiles % 2 == 0),
                "the warpgroups promote half a chunk apart");

  // The consumer warpgroup(s) compute the whole tile: kTileM/64 WGMMA atoms along M (split
  // between the warpgroups), 2*tile_n/kMmaAtomN along N.
  using MmaAtom = decltype(sm90_ss_wgmma_atom<Element, kMmaAtomN, kTileK>());
  using TiledMma = decltype(cute::make_tiled_mma(
      MmaAtom{}, cute::Layout<cute::Shape<cute::Int<kConsumerWarpgroups>, cute::_1, cute::_1>>{}));

  // K-major, 128-byte swizzled smem rows (8 x 64 elements per atom). A stage holds kKAtoms atoms
  // along K, each a dense [rows, 64] block (tile_to_shape fills M first): X in blocks of tile_m
  // rows, the weights in blocks of 2*tile_n rows whose first tile_n are gate and the rest up.
  // One TMA copy fills one [rows, 64] block (128-byte swizzle caps a box at 64 elements of K), so a
  // 128-deep stage reads 256 contiguous bytes of every weight row per stage instead of 128.
  using SmemAtom = cute::GMMA::Layout_K_SW128_Atom<Element>;
  static constexpr int kAtomK = cute::size<1>(SmemAtom{});
  static_assert(kTileK % kAtomK == 0, "tile_k is whole swizzle atoms along K");
  static constexpr int kKAtoms = kTileK / kAtomK;
  using SmemLayoutA = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTileM>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  using SmemLayoutB = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kGemmTileN>{}, cute::Int<kTileK>{}, cute::Int<kStages>{})));
  // One [rows, 64] block: what one TMA copy writes (X: tile_m rows; gate or up: tile_n rows).
  using SmemLayoutABlock = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTileM>{}, cute::Int<kAtomK>{})));
  using SmemLayoutBHalf = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(cute::Int<kTileN>{}, cute::Int<kAtomK>{})));
  static constexpr int kStageElemsA = kTileM * kTileK;
  static constexpr int kStageElemsB = kGemmTileN * kTileK;
  static constexpr int kBlockElemsA = kTileM * kAtomK;
  static constexpr int kBlockElemsB = kGemmTileN * kAtomK;  // gate half, then up half
  static constexpr int kHalfElemsB = kTileN * kAtomK;
  static_assert(cute::cosize_v<SmemLayoutABlock> == kBlockElemsA, "X block must be dense");
  static_assert(cute::cosize_v<SmemLayoutBHalf> == kHalfElemsB, "B half must be dense");
  static_assert(cute::cosize_v<SmemLayoutA> == kStageElemsA * kStages, "A stages must be dense");
  static_assert(cute::cosize_v<SmemLayoutB> == kStageElemsB * kStages, "B stages must be dense");

  // Bytes every stage's TMA copies write: X and both weight tiles, or X and one (kSequential).
  static constexpr uint32_t kTmaTransactionBytes =
      uint32_t((kTileM + (kSequential ? kTileN : kGemmTileN)) * kTileK * sizeof(Element));

  using Pipeline = cutlass::PipelineTmaAsync<kStages>;
  // The pipeline's view of the cluster: consumers release a stage to every CTA that wrote it,
  // those of the same cluster row (weights) and column (X).
  using ClusterShape = cute::Shape<cute::Int<kClusterM>, cute::Int<kClusterN>, cute::_1>;
  using CopyOpX = cute::conditional_t<kClusterN == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
  using CopyOpW = cute::conditional_t<kClusterM == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
  using PipelineState = cutlass::PipelineState<kStages>;

  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutA>, 1024> a;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutB>, 1024> b;
  };

  // Row-major [rows, K] global tensors with a runtime leading dimension.
  using GmemLayout = cute::Layout<cute::Shape<int, int>, cute::Stride<int64_t, cute::_1>>;
  using GmemTensor = decltype(cute::make_tensor(cute::make_gmem_ptr(static_cast<Element const*>(nullptr)), GmemLayout{}));
  using TmaX = decltype(cute::make_tma_copy(CopyOpX{}, GmemTensor{}, SmemLayoutABlock{},
                                            cute::Int<kClusterN>{}));
  using TmaW = decltype(cute::make_tma_copy(CopyOpW{}, GmemTensor{}, SmemLayoutBHalf{},
                                            cute::Int<kClusterM>{}));

  struct Params {
    TmaX tma_x;
    TmaW tma_gate;
    TmaW tma_up;
    int m, k, i;
  };

  static Params make_params(Element const* x, int64_t ldx, Element const* w_gate, int64_t ld_gate,
                            Element const* w_up, int64_t ld_up, int m, int k, int i) {
    using namespace cute;
    auto gmem = [](Element const* ptr, int rows, int cols, int64_t ld) {
      return make_tensor(make_gmem_ptr(ptr), make_layout(make_shape(rows, cols), make_stride(ld, _1{})));
    };
    Params params{make_tma_copy(CopyOpX{}, gmem(x, m, k, ldx), SmemLayoutABlock{}, Int<kClusterN>{}),
                  make_tma_copy(CopyOpW{}, gmem(w_gate, i, k, ld_gate), SmemLayoutBHalf{}, Int<kClusterM>{}),
                  make_tma_copy(CopyOpW{}, gmem(w_up, i, k, ld_up), SmemLayoutBHalf{}, Int<kClusterM>{}),
                  m, k, i};
    // The weights' L2 promotion (sm90_tma_l2_promotion.hpp). Each CTA of a weight-multicast
    // cluster loads kTileN / kClusterM rows of a swizzle atom's k; the check against CuTe's
    // descriptor confirms that box before any re-encode.
    promote_weight_tmas<Sm90SwigluMainloop, Element>(
        WeightReader::kTiled, i, k, kTileN / kClusterM, kAtomK, {params.tma_gate.get_tma_descriptor(), w_gate, ld_gate},
        {params.tma_up.get_tma_descriptor(), w_up, ld_up});
    return params;
  }

  CUTLASS_DEVICE static void prefetch_tma_descriptors(Params const& p) {
    cute::prefetch_tma_descriptor(p.tma_x.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_gate.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_up.get_tma_descriptor());
  }

  // K loop length in k tiles; with mma_promoted() rounded up to whole chunks, with chunked
  // promotion at least kPreissueKTiles (zeros past K).
  CUTLASS_HOST_DEVICE static int k_tiles(Params const& p) {
    int const tiles = (p.k - 1) / kTileK + 1;  // k >= 1; no overflow near INT_MAX
    if constexpr (kChunkedPromotion) {
      return tiles > kPreissueKTiles ? tiles : kPreissueKTiles;  // see promoted_tile_loop()
    } else if constexpr (kPromoteKTiles > 0) {
      return (tiles + kPromoteKTiles - 1) / kPromoteKTiles * kPromoteKTiles;
    } else {
      return tiles;
    }
  }

  // Pipeline stages one output tile takes: the stage count the consumers step over per tile.
  CUTLASS_HOST_DEVICE static int stages_per_tile(Params const& p) { return kSweeps * k_tiles(p); }

  // The first row of X (and of the output) that tile row m_blk computes: m_blk * kTileM, except
  // that the last tile row of a ragged M >= kTileM is moved back to end at row M, so its X box
  // lies wholly inside X; its first m_blk * kTileM - row0 rows are the previous tile row's, and
  // the epilogue skips them (tile_rows_done). Why: TMA loads of a box that runs past M are slow
  // in proportion to the rows past M (H200, qwen2.5-1.5b, 64x32 tiles: M = 96 and 100 took
  // 32 us, M = 112 24.5, M = 128 23.4 with the same two tile rows; bench/NOTES.md session 5).
  CUTLASS_HOST_DEVICE static int tile_row0(int m_blk, int m) {
    int const row0 = m_blk * kTileM;
    return (m >= kTileM && m - row0 < kTileM) ? m - kTileM : row0;
  }
  // Rows at the top of tile row m_blk that an earlier tile row has already computed and stored.
  CUTLASS_HOST_DEVICE static int tile_rows_done(int m_blk, int m) { return m_blk * kTileM - tile_row0(m_blk, m); }

  // Producer: issues the K sweep(s) of one output tile, k tiles [k_begin, k_begin + k_count) (the
  // whole K by default; a split-K CTA takes its range). Called by one elected thread.
  // `cta_rank` (the CTA's rank in its cluster, x-major) picks this CTA's slices of the multicast
  // X and weight tiles and the CTAs each slice goes to. PipelineT: the Pingpong kernel's
  // Pipeline, or any pipeline with its interface (sm90_tma_pipeline.hpp).
  template <class PipelineT, class StateT>
  CUTLASS_DEVICE static void load(Params const& p, PipelineT& pipeline, StateT& write_state,
                                  int m_blk, int n_blk, int cta_rank, SharedStorage& smem,
                                  int k_begin = 0, int k_count = -1) {
    using namespace cute;
    Tensor mX = p.tma_x.get_tma_tensor(make_shape(p.m, p.k));
    Tensor mG = p.tma_gate.get_tma_tensor(make_shape(p.i, p.k));
    Tensor mU = p.tma_up.get_tma_tensor(make_shape(p.i, p.k));
    // Tiles of one swizzle atom (64) along K: k tile kt is blocks kt * kKAtoms + [0, kKAtoms).
    Tensor gX = local_tile(domain_offset(make_coord(tile_row0(m_blk, p.m), 0), mX),
                           make_shape(Int<kTileM>{}, Int<kAtomK>{}), make_coord(0, _));  // (BM,64,k64)
    Tensor gG = local_tile(mG, make_shape(Int<kTileN>{}, Int<kAtomK>{}), make_coord(n_blk, _));  // (BN,64,k64)
    Tensor gU = local_tile(mU, make_shape(Int<kTileN>{}, Int<kAtomK>{}), make_coord(n_blk, _));

    // Cluster coordinates: cta_m along M (which weight slice), cta_n along N (which X slice).
    int const cta_m = cta_rank % kClusterM;
    int const cta_n = cta_rank / kClusterM;
    // X goes to the cluster column (ranks cta_m + y * kClusterM), the weights to the cluster row.
    uint16_t x_mask = 0;
    CUTLASS_PRAGMA_UNROLL
    for (int y = 0; y < kClusterN; ++y) x_mask |= uint16_t(1u << (cta_m + y * kClusterM));
    uint16_t const w_mask = uint16_t(((1u << kClusterM) - 1) << (cta_n * kClusterM));
    auto tma_x = p.tma_x.get_slice(cta_n);
    auto tma_g = p.tma_gate.get_slice(cta_m);
    auto tma_u = p.tma_up.get_slice(cta_m);
    Tensor tXgX = tma_x.partition_S(gX);  // (TMA,TMA_M,TMA_K,k64)
    Tensor tGgG = tma_g.partition_S(gG);
    Tensor tUgU = tma_u.partition_S(gU);

    int const k_end = k_begin + (k_count < 0 ? k_tiles(p) : k_count);
    // kSequential: sweep 0 loads the gate weights, sweep 1 the up weights, each with X again.
    CUTLASS_PRAGMA_UNROLL
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      bool const load_gate = !kSequential || sweep == 0;
      bool const load_up = !kSequential || sweep == 1;
      CUTLASS_PRAGMA_NO_UNROLL
      for (int kt = k_begin; kt < k_end; ++kt) {
        pipeline.producer_acquire(write_state);
        auto* full_barrier = pipeline.producer_get_barrier(write_state);
        int const stage = write_state.index();
        CUTLASS_PRAGMA_UNROLL
        for (int atom = 0; atom < kKAtoms; ++atom) {
          int const k64 = kt * kKAtoms + atom;
          Tensor sX = make_tensor(make_smem_ptr(smem.a.data() + stage * kStageElemsA + atom * kBlockElemsA),
                                  SmemLayoutABlock{});
          Element* block_b = smem.b.data() + stage * kStageElemsB + atom * kBlockElemsB;
          // Sequential: the up weights go where the gate weights would (the one weight tile of
          // the stage is always the first tile_n rows, the operand mma_sequential reads).
          Tensor sG = make_tensor(make_smem_ptr(block_b), SmemLayoutBHalf{});
          Tensor sU = make_tensor(make_smem_ptr(block_b + (kSequential ? 0 : kHalfElemsB)), SmemLayoutBHalf{});
          copy(p.tma_x.with(*full_barrier, x_mask), tXgX(_, _, _, k64), tma_x.partition_D(sX));
          if (load_gate) copy(p.tma_gate.with(*full_barrier, w_mask), tGgG(_, _, _, k64), tma_g.partition_D(sG));
          if (load_up) copy(p.tma_up.with(*full_barrier, w_mask), tUgU(_, _, _, k64), tma_u.partition_D(sU));
        }
        ++write_state;
      }
    }
  }

  // This thread's WGMMA operand descriptors for every stage of the A and B buffers:
  // (MMA, MMA_M, MMA_K, PIPE) and (MMA, MMA_N, MMA_K, PIPE). `consumer_thread_idx`: the
  // thread's index among the tile's 128 * kConsumerWarpgroups consumer threads.
  CUTLASS_DEVICE static auto operand_descriptors(TiledMma const& tiled_mma, int consumer_thread_idx,
                                                 SharedStorage& smem) {
    using namespace cute;
    Tensor sA = make_tensor(make_smem_ptr(smem.a.data()), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(smem.b.data()), SmemLayoutB{});
    auto thread_mma = tiled_mma.get_slice(consumer_thread_idx);
    return cute::make_tuple(thread_mma.make_fragment_A(thread_mma.partition_A(sA)),
                            thread_mma.make_fragment_B(thread_mma.partition_B(sB)));
  }

  // Consumer: accumulates one tile over K into `accum` (sm90_wgmma_k_sweep.hpp: one WGMMA batch
  // in flight, each stage released as soon as the WGMMA reading it has retired).
  template <class Accum, class PipelineT, class StateT>
  CUTLASS_DEVICE static void mma(PipelineT& pipeline, StateT read_state, Accum& accum,
                                 int k_tile_count, int consumer_thread_idx, SharedStorage& smem) {
    TiledMma tiled_mma;
    auto [tCrA, tCrB] = operand_descriptors(tiled_mma, consumer_thread_idx, smem);
    wgmma_k_sweep(tiled_mma, tCrA, tCrB, accum, pipeline, read_state, k_tile_count);
  }

  // mma() with promotion: WGMMA into `scratch` for kPromoteKTiles k tiles, then FADD into
  // `accum`. Within a chunk one WGMMA batch stays in flight; a chunk ends with a full drain.
  // The chunk loop is unrolled so every wait is static: ptxas then knows which WGMMA results
  // are ready and injects no waits of its own (C7517). k_tiles() rounds the K loop up to whole
  // chunks; the extra k tiles lie past K, where TMA fills zeros. Every stage is released here,
  // so mma_tail has nothing left to do.
  template <class Accum, class PipelineT, class StateT>
  CUTLASS_DEVICE static void mma_promoted(PipelineT& pipeline, StateT read_state, Accum& accum,
                                          int k_tile_count, int consumer_thread_idx, SharedStorage& smem) {
    using namespace cute;
    TiledMma tiled_mma;
    auto [tCrA, tCrB] = operand_descriptors(tiled_mma, consumer_thread_idx, smem);
    Tensor scratch = make_fragment_like(accum);

    clear(accum);
    StateT release_state = read_state;
    CUTLASS_PRAGMA_NO_UNROLL
    for (int chunk = 0; chunk < k_tile_count / kPromoteKTiles; ++chunk) {
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      CUTLASS_PRAGMA_UNROLL
      for (int j = 0; j < kPromoteKTiles; ++j) {
        wgmma_issue_k_tile(tiled_mma, tCrA, tCrB, scratch, pipeline, read_state);
        if (j + 1 < kPromoteKTiles) {
          warpgroup_wait<1>();  // the previous k tile's WGMMA has retired: free its stage
          warpgroup_fence_operand(scratch);
          if (j > 0) {
            pipeline.consumer_release(release_state);
            ++release_state;
          }
        } else {
          warpgroup_wait<0>();
          warpgroup_fence_operand(scratch);
          CUTLASS_PRAGMA_UNROLL
          for (int r = 0; r < (kPromoteKTiles > 1 ? 2 : 1); ++r) {
            pipeline.consumer_release(release_state);
            ++release_state;
          }
          CUTLASS_PRAGMA_UNROLL
          for (int v = 0; v < size(accum); ++v) accum(v) += scratch(v);
        }
      }
    }
  }

  // The tile loop of a consumer warpgroup with chunked promotion (see the header comment): tiles
  // first_tile, first_tile + tile_step, ... below total_tiles, each accumulated over K and then
  // handed to store_tile(accum, tile). `phase`: 0 or kPromoteKTiles / 2, the k tile offset of this
  // warpgroup's promotions. One WGMMA batch stays in flight inside a chunk as in wgmma_k_sweep();
  // a chunk ends with a full drain and the FADDs.
  // Why the code has no branch around an issue: ptxas must see the scratch registers written by
  // WGMMAs in flight on every path into a loop head, or it serializes (C7517 injects a wait). So
  // the first kPreissueKTiles k tiles are issued after every tile, the last one's included: the
  // producer loads kPreissueKTiles more stages after its last tile (load_preissue_tail) and this
  // loop drains them at the end; and k_tiles() is at least kPreissueKTiles.
  template <class PipelineT, class StateT, class StoreTile>
  CUTLASS_DEVICE static void promoted_tile_loop(PipelineT& pipeline, StateT read_state, int k_tile_count,
                                                int consumer_thread_idx, int phase, int first_tile,
                                                int tile_step, int total_tiles, SharedStorage& smem,
                                                StoreTile&& store_tile) {
    using namespace cute;
    static_assert(kChunkedPromotion, "Cooperative promotion only");
    TiledMma tiled_mma;
    auto descriptors = operand_descriptors(tiled_mma, consumer_thread_idx, smem);
    auto& tCrA = get<0>(descriptors);  // named, not a structured binding: the lambdas capture it
    auto& tCrB = get<1>(descriptors);
    Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<kTileM>{}, Int<kGemmTileN>{}));
    Tensor scratch = make_fragment_like(accum);
    StateT release_state = read_state;
    int unreleased = 0;  // stages of issued batches not yet released

    // One k tile's WGMMA batch into scratch; zero_init restarts the scratch sum (a chunk's first).
    auto issue = [&](bool zero_init) {
      tiled_mma.accumulate_ = zero_init ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
      wgmma_issue_k_tile(tiled_mma, tCrA, tCrB, scratch, pipeline, read_state);
      warpgroup_fence_operand(scratch);
      ++unreleased;
    };
    // Frees the stages of every retired batch: all but the `in_flight` newest.
    auto release_retired = [&](int in_flight) {
      while (unreleased > in_flight) {
        pipeline.consumer_release(release_state);
        ++release_state;
        --unreleased;
      }
    };
    // The first k tiles of a tile (or the producer's tail stages after the last tile).
    auto issue_first_k_tiles = [&]() {
      CUTLASS_PRAGMA_UNROLL
      for (int kt = 0; kt < kPreissueKTiles; ++kt) issue(kt == 0);
    };

    issue_first_k_tiles();
    CUTLASS_PRAGMA_NO_UNROLL
    for (int tile = first_tile; tile < total_tiles; tile += tile_step) {
      clear(accum);  // the previous tile's epilogue has read it
      int kt = kPreissueKTiles;
      // The first chunk is kPromoteKTiles - phase long (>= kPreissueKTiles), the others
      // kPromoteKTiles, the last whatever K leaves.
      int chunk_end = kPromoteKTiles - phase < k_tile_count ? kPromoteKTiles - phase : k_tile_count;
      CUTLASS_PRAGMA_NO_UNROLL
      while (true) {
        CUTLASS_PRAGMA_NO_UNROLL
        for (; kt < chunk_end; ++kt) {
          issue(false);
          warpgroup_wait<1>();  // the previous batches have retired: free their stages
          warpgroup_fence_operand(scratch);
          release_retired(1);
        }
        warpgroup_wait<0>();
        warpgroup_fence_operand(scratch);
        release_retired(0);
        warpgroup_fence_operand(accum);
        CUTLASS_PRAGMA_UNROLL
        for (int v = 0; v < size(accum); ++v) accum(v) += scratch(v);
        warpgroup_fence_operand(accum);
        if (kt >= k_tile_count) break;
        issue(true);
        ++kt;
        chunk_end = kt - 1 + kPromoteKTiles < k_tile_count ? kt - 1 + kPromoteKTiles : k_tile_count;
      }
      issue_first_k_tiles();  // the next tile's (or the tail's): they run under the epilogue
      store_tile(accum, tile);
    }
    warpgroup_wait<0>();
    warpgroup_fence_operand(scratch);
    release_retired(0);
  }

  // Producer side of promoted_tile_loop(): after its last tile, kPreissueKTiles stages more (any
  // in-bounds or zero-filled tile; the consumers drain and discard them).
  template <class PipelineT, class StateT>
  CUTLASS_DEVICE static void load_preissue_tail(Params const& p, PipelineT& pipeline, StateT& write_state,
                                                int cta_rank, SharedStorage& smem) {
    if constexpr (kChunkedPromotion) {
      load(p, pipeline, write_state, 0, 0, cta_rank, smem, 0, kPreissueKTiles);
    }
  }

  // mma() for kSequential: the gate K sweep into accum(_, _, 0), then the up K sweep into
  // accum(_, _, 1), each over k_tile_count stages with one WGMMA batch in flight. Both sweeps
  // read the stage's first tile_n weight rows (where load() puts either weight). While the up
  // sweep runs, the gate registers become silu(gate): the first kSwishSteps up k tiles are
  // unrolled and each, once its WGMMA batch is issued and the previous one has retired, applies
  // SiLU to its fixed slice of the gate registers (static indices, so the accumulator stays in
  // registers), so the MUFU work runs under the tensor cores' up WGMMAs instead of in the
  // epilogue. With fewer up k tiles than steps the remaining slices follow the last up batch's
  // issue, still under it. The first up k tile's wait<1> retires the last gate batch: no gate
  // register is read while a WGMMA that writes it is in flight. mma_tail releases the last stage.
  template <class Accum, class PipelineT, class StateT>
  CUTLASS_DEVICE static void mma_sequential(PipelineT& pipeline, StateT read_state, Accum& accum,
                                            int k_tile_count, int consumer_thread_idx, SharedStorage& smem) {
    using namespace cute;
    static_assert(size<2>(Accum{}) == 2, "gate (MMA_N index 0) and up (index 1) accumulators");
    TiledMma tiled_mma;
    auto descriptors = operand_descriptors(tiled_mma, consumer_thread_idx, smem);
    auto& tCrA = get<0>(descriptors);  // named, not a structured binding: the lambdas capture it
    auto& tCrB = get<1>(descriptors);
    // (MMA, 1, MMA_K, PIPE): the stage's first tile_n weight rows as the one N atom of a WGMMA.
    Tensor tCrW = make_tensor(tCrB.data(), make_layout(layout<0>(tCrB), Layout<_1, _0>{},
                                                       layout<2>(tCrB), layout<3>(tCrB)));
    // (MMA, MMA_M, 1) views of the gate and up accumulators, the shape cute::gemm pairs with tCrW.
    auto one_n_atom = [](auto&& acc) { return make_tensor(acc.data(), append(acc.layout(), Layout<_1, _0>{})); };
    Tensor gate = one_n_atom(accum(_, _, 0));
    Tensor up = one_n_atom(accum(_, _, 1));

    // Up k tiles that share the SiLU. All of a 128x64 tile's 64 gate values per thread take about
    // four up k tiles of WGMMA time (two MUFU ops each at 16 per SM and clock, against eight
    // m64n64k16 per k tile; throughput tables, not measured): eight slices keep each step
    // under its k tile.
    constexpr int kSwishSteps = 8;
    constexpr int kSwishChunk = size(decltype(gate){}) / kSwishSteps;
    static_assert(size(decltype(gate){}) % kSwishSteps == 0, "gate registers split evenly over the steps");

    StateT release_state = read_state;
    // One k tile of a sweep into `acc`; a sweep's first zero-initialises it through
    // ScaleOut::Zero. Every k tile but the gate sweep's first frees the stage of the batch
    // before it (the up sweep's first: the last gate stage).
    auto k_tile = [&](auto& acc, auto first_of_sweep, auto release_previous) {
      pipeline.consumer_wait(read_state, pipeline.consumer_try_wait(read_state));
      int const stage = read_state.index();
      warpgroup_fence_operand(accum);
      warpgroup_arrive();
      if constexpr (first_of_sweep) {
        tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
        CUTLASS_PRAGMA_UNROLL
        for (int kb = 0; kb < size<2>(tCrA); ++kb) {
          cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrW(_, _, kb, stage), acc);
          tiled_mma.accumulate_ = GMMA::ScaleOut::One;
        }
      } else {
        cute::gemm(tiled_mma, tCrA(_, _, _, stage), tCrW(_, _, _, stage), acc);
      }
      warpgroup_commit_batch();
      ++read_state;
      if constexpr (release_previous) {
        warpgroup_wait<1>();  // the previous k tile's WGMMA has retired: free its stage
        warpgroup_fence_operand(accum);
        pipeline.consumer_release(release_state);
        ++release_state;
      }
    };

    // SiLU on gate registers [step * kSwishChunk, (step + 1) * kSwishChunk).
    auto swish_slice = [&](int step) {
      CUTLASS_PRAGMA_UNROLL
      for (int v = step * kSwishChunk; v < (step + 1) * kSwishChunk; ++v) gate(v) = silu(gate(v));
    };

    // Sweep 1: gate.
    k_tile(gate, true_type{}, false_type{});
    CUTLASS_PRAGMA_NO_UNROLL
    for (int kt = 1; kt < k_tile_count; ++kt) k_tile(gate, false_type{}, true_type{});

    // Sweep 2: up, with SiLU on the gate registers one slice per k tile.
    k_tile(up, true_type{}, true_type{});
    swish_slice(0);
    CUTLASS_PRAGMA_UNROLL
    for (int step = 1; step < kSwishSteps; ++step) {
      if (step < k_tile_count) k_tile(up, false_type{}, true_type{});
      swish_slice(step);
    }
    CUTLASS_PRAGMA_NO_UNROLL
    for (int kt = kSwishSteps; kt < k_tile_count; ++kt) k_tile(up, false_type{}, true_type{});
    warpgroup_fence_operand(accum);
  }

  // Waits for the last WGMMA batch and releases the stage it read; `stage_count`: the stages
  // of the tile (stages_per_tile(), or a split-K CTA's k tiles).
  template <class PipelineT, class StateT>
  CUTLASS_DEVICE static void mma_tail(PipelineT& pipeline, StateT read_state, int stage_count) {
    if constexpr (kPromoteKTiles > 0) return;  // mma_promoted drained and released everything
    cute::warpgroup_wait<0>();
    read_state.advance(stage_count - 1);
    pipeline.consumer_release(read_state);
  }
};

}  // namespace tileglu::kernels
