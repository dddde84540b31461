// The K sweep of one tile over a TMA -> WGMMA shared-memory pipeline, shared by the Pingpong,
// Cooperative and split-K mainloop (sm90_swiglu_mainloop_tma_gmma_ws.hpp) and the swap-AB decode
// kernel (sm90_swiglu_swapab.hpp).
//
// Why this order: one WGMMA batch stays in flight. Each k tile waits for its stage, issues its
// WGMMAs, then waits for the previous k tile's batch (warpgroup_wait<1>) and releases that stage,
// so the producer refills a stage as soon as the tensor cores have read it, while the next
// batch already runs. The first k tile starts the accumulator from zero (ScaleOut::Zero) instead
// of clearing registers.
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/cutlass.h>

// CUTLASS declares the WGMMA atoms of N other than 8-32, 48, 64, 80, 96, 128, 192 and 256 in
// headers it includes only under CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED, which also changes
// ss_op_selector's choices everywhere. A translation unit that instantiates an N among them
// defines TILEGLU_WGMMA_EXTENDED_N before including any kernel header; the others do not pay for
// them. In use: the swap-AB tiles' token counts (88 and 112: 14 steps of 8 cover M = 1537 in 1568
// rows; 144: 11 blocks cover it in 1584, cuBLAS's 32B M = 1537 tile; 176: cuBLAS's 72B M = 1537
// tile) and the 112-column tiles' GEMM N = 224 ([gate | up]).
#if defined(TILEGLU_WGMMA_EXTENDED_N)
#include <cute/arch/mma_sm90_gmma_ext.hpp>
#include <cute/atom/mma_traits_sm90_gmma_ext.hpp>
#endif

namespace tileglu::kernels {

// The SS WGMMA atom (A and B K-major from shared memory, fp32 accumulators) of a 64 x kN tile:
// CUTLASS's selector where it has the N, else the extended atom, named.
template <class Element, int kN, int kTileK>
CUTLASS_HOST_DEVICE constexpr auto sm90_ss_wgmma_atom() {
  using cute::GMMA::Major;
  if constexpr (kN == 88 || kN == 112 || kN == 144 || kN == 176 || kN == 224) {
#if defined(TILEGLU_WGMMA_EXTENDED_N)
    constexpr bool kBF16 = cute::is_same_v<Element, cutlass::bfloat16_t>;
    if constexpr (kN == 88) {
      if constexpr (kBF16) return cute::SM90::GMMA::MMA_64x88x16_F32BF16BF16_SS<Major::K, Major::K>{};
      else return cute::SM90::GMMA::MMA_64x88x16_F32F16F16_SS<Major::K, Major::K>{};
    } else if constexpr (kN == 112) {
      if constexpr (kBF16) return cute::SM90::GMMA::MMA_64x112x16_F32BF16BF16_SS<Major::K, Major::K>{};
      else return cute::SM90::GMMA::MMA_64x112x16_F32F16F16_SS<Major::K, Major::K>{};
    } else if constexpr (kN == 144) {
      if constexpr (kBF16) return cute::SM90::GMMA::MMA_64x144x16_F32BF16BF16_SS<Major::K, Major::K>{};
      else return cute::SM90::GMMA::MMA_64x144x16_F32F16F16_SS<Major::K, Major::K>{};
    } else if constexpr (kN == 176) {
      if constexpr (kBF16) return cute::SM90::GMMA::MMA_64x176x16_F32BF16BF16_SS<Major::K, Major::K>{};
      else return cute::SM90::GMMA::MMA_64x176x16_F32F16F16_SS<Major::K, Major::K>{};
    } else {
      if constexpr (kBF16) return cute::SM90::GMMA::MMA_64x224x16_F32BF16BF16_SS<Major::K, Major::K>{};
      else return cute::SM90::GMMA::MMA_64x224x16_F32F16F16_SS<Major::K, Major::K>{};
    }
#else
    static_assert(kN != kN, "N = 88 / 112 / 144 / 176 / 224 need TILEGLU_WGMMA_EXTENDED_N defined before the kernel headers");
#endif
  } else {
    return cute::GMMA::ss_op_selector<Element, Element, float,
                                      cute::Shape<cute::_64, cute::Int<kN>, cute::Int<kTileK>>,
                                      Major::K, Major::K>();
  }
}

// One k tile's WGMMA batch into `accum`: waits for the stage read_state points at, issues its
// k-blocks and commits them as one batch, then steps read_state on. The first k-block scales the
// accumulator as the caller left tiled_mma.accumulate_ (ScaleOut::Zero restarts the sum), the
// others accumulate. The promoted mainloops issue every k tile through this, wgmma_k_sweep below
// its first one; its later k tiles keep their own loop body (one gemm call over all k-blocks).
template <class TiledMma, class FragA, class FragB, class Accum, class PipelineT, class StateT>
CUTLASS_DEVICE void wgmma_issue_k_tile(TiledMma& tiled_mma, FragA const& tCrA, FragB const& tCrB,
                                       Accum& accum, PipelineT& pipeline, StateT& read_state) {
  using namespace cute;
  pipeline.consumer_wait(read_state, pipeline.consumer_try_wait(read_state));
  int const stage = read_state.index();
  warpgroup_fence_operand(accum);
  warpgroup_arrive();
  CUTLASS_PRAGMA_UNROLL
  for (int kb = 0; kb < size<2>(tCrA); ++kb) {
    cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), accum);
    tiled_mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  ++read_state;
}

// tCrA (MMA, MMA_M, MMA_K, PIPE) and tCrB (MMA, MMA_N, MMA_K, PIPE): this thread's WGMMA operand
// descriptors for every stage. On return the last k tile's batch is still in flight and its
// stage unreleased: wait (warpgroup_wait<0>) before reading `accum`.
template <class TiledMma, class FragA, class FragB, class Accum, class PipelineT, class StateT>
CUTLASS_DEVICE void wgmma_k_sweep(TiledMma& tiled_mma, FragA const& tCrA, FragB const& tCrB,
                                  Accum& accum, PipelineT& pipeline, StateT read_state,
                                  int k_tile_count) {
  using namespace cute;
  StateT release_state = read_state;

  warpgroup_fence_operand(accum);
  tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  wgmma_issue_k_tile(tiled_mma, tCrA, tCrB, accum, pipeline, read_state);
  warpgroup_fence_operand(accum);

  CUTLASS_PRAGMA_NO_UNROLL
  for (int kt = 1; kt < k_tile_count; ++kt) {
    pipeline.consumer_wait(read_state, pipeline.consumer_try_wait(read_state));
    int const stage = read_state.index();
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
    cute::gemm(tiled_mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), accum);
    warpgroup_commit_batch();
    warpgroup_wait<1>();  // the previous k tile's WGMMA has retired: free its stage
    warpgroup_fence_operand(accum);
    pipeline.consumer_release(release_state);
    ++read_state;
    ++release_state;
  }
  warpgroup_fence_operand(accum);
}

}  // namespace tileglu::kernels
