// Split-K SwiGLU kernel for small M (decode): the K sweep of each output tile is spread over the
// kSplits CTAs of a thread-block cluster, which reduce their fp32 partial accumulators through
// distributed shared memory (DSMEM) before the SwiGLU.
//
// Why: at M <= 64 the problem is the stream of weights (2·I·K elements), and the Pingpong
// kernel has only ceil(I / tile_n) tiles to spread over the SMs: 76 for qwen2.5-0.5b at 64-wide
// tiles (56 of 132 SMs idle), 462 for qwen2.5-72b (3.5 tiles per SM: the last wave runs half
// empty). Splitting K multiplies the work units by kSplits without changing what is read.
// Why a cluster and DSMEM rather than a global workspace: SwiGLU is nonlinear, so the partial
// sums must be complete before it. In a cluster the partials never leave the SMs (no fp32
// [M, 2I] round trip through memory, no workspace to allocate or to share between streams, no
// semaphore), and the reduction order is fixed, so results are deterministic.
//
// Structure (256 threads, non-persistent: one output tile per cluster):
//   warpgroup 0: producer. One thread issues the TMA loads of this CTA's K range (the Kernel-2
//     mainloop of sm90_swiglu_mainloop_tma_gmma_ws.hpp: X tile + [gate | up] weight tile).
//   warpgroup 1: consumer. WGMMA over the K range into one [tile_m, 2 tile_n] fp32 accumulator,
//     written to this CTA's shared memory (over the then-dead pipeline buffers); cluster barrier;
//     CTA `rank` then sums, for the gate/up column groups j with j % kSplits == rank, the partials
//     of all kSplits CTAs (read through DSMEM in a fixed order), applies SwiGLU, rounds once and
//     stores; a last cluster barrier keeps every CTA's shared memory alive until all have read it.
// CTA k of a cluster takes k tiles [K_t·k/kSplits, K_t·(k+1)/kSplits); a CTA whose range is empty
// (K_t < kSplits) contributes zeros.
//
// Registers: no setmaxnreg; __launch_bounds__(256, 2) gives 128 per thread, two CTAs per SM when
// the shared memory allows, and a 64 x 128 accumulator takes 64 of them.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>

#include "sm90_cluster_dsmem.hpp"
#include "sm90_launch.hpp"
#include "sm90_tma_pipeline.hpp"
#include "sm90_swiglu_epilogue.hpp"
#include "sm90_swiglu_mainloop_tma_gmma_ws.hpp"
#include "swiglu_params.h"

namespace tileglu::kernels {

template <class Element_, int kTileN_, int kStages_, int kSplits_>
struct Sm90SwigluSplitK {
  using Element = Element_;
  static constexpr int kTileM = 64;
  static constexpr int kTileN = kTileN_;
  static constexpr int kTileK = 64;
  static constexpr int kStages = kStages_;
  static constexpr int kSplits = kSplits_;
  using Mainloop = Sm90SwigluMainloop<Element, kTileM, kTileN, kTileK, kStages, 1, 0, false>;
  using Epilogue = Sm90SwigluEpilogue<Element, kTileM, kTileN>;
  using TiledMma = typename Mainloop::TiledMma;
  using Pipeline = Sm90TmaPipeline<kStages>;
  using PipelineState = typename Pipeline::PipelineState;

  static constexpr int kThreads = 256;
  static constexpr int kConsumerThreads = 128;
  // fp32 accumulator values per consumer thread.
  static constexpr int kAccumValues = kTileM * 2 * kTileN / kConsumerThreads;
  static constexpr int kGateGroups = kTileN / 8;  // 8-column groups of gate (and of up) per tile

  static_assert(kSplits == 1 || kSplits == 2 || kSplits == 4 || kSplits == 8,
                "a portable cluster has at most 8 CTAs");
  static_assert(kGateGroups % kSplits == 0, "each CTA of the cluster reduces whole column groups");
  static_assert(kAccumValues % 4 == 0, "partials move as float4");

  struct SharedStorage {
    union {
      typename Mainloop::SharedStorage tensors;
      // After the K sweep, this CTA's partial accumulator: value v of consumer thread t at
      // [v / 4][t][v % 4], so a warp's float4 accesses are contiguous.
      alignas(16) float partial[kAccumValues * kConsumerThreads];
    };
    typename Pipeline::SharedStorage pipeline;
  };
  static constexpr int kSmemBytes = smem_bytes_with_alignment_slack<SharedStorage>();

  struct Params {
    typename Mainloop::Params mainloop;
    Element* out;
    int64_t ld_out;
  };
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, 2)
sm90_swiglu_splitk_kernel(__grid_constant__ typename Kernel::Params const params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cute;
  using Mainloop = typename Kernel::Mainloop;
  using Pipeline = typename Kernel::Pipeline;
  using PipelineState = typename Kernel::PipelineState;
  using SharedStorage = typename Kernel::SharedStorage;
  constexpr int kSplits = Kernel::kSplits;

  extern __shared__ char smem_raw[];
  SharedStorage& smem = aligned_shared_storage<SharedStorage>(smem_raw);

  int const warp_group = cutlass::canonical_warp_group_idx();
  int const wg_thread_idx = int(threadIdx.x) % cutlass::NumThreadsPerWarpGroup;
  bool const is_producer = warp_group == 0;
  if (threadIdx.x == 0) Mainloop::prefetch_tma_descriptors(params.mainloop);

  Pipeline pipeline(smem.pipeline, int(threadIdx.x), Mainloop::kTmaTransactionBytes,
                    !is_producer && wg_thread_idx == 0);
  __syncthreads();  // barriers initialised before use; all local to this CTA

  int const rank = kSplits > 1 ? int(cute::block_rank_in_cluster()) : 0;
  int const n_blk = int(blockIdx.x) / kSplits;
  int const m_blk = int(blockIdx.y);
  int const k_tiles = Mainloop::k_tiles(params.mainloop);
  int const k_begin = int(int64_t(k_tiles) * rank / kSplits);
  int const k_count = int(int64_t(k_tiles) * (rank + 1) / kSplits) - k_begin;

  typename Kernel::TiledMma tiled_mma;
  Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<Kernel::kTileM>{}, Int<Mainloop::kGemmTileN>{}));
  static_assert(decltype(size(accum))::value == Kernel::kAccumValues, "accumulator size");

  if (is_producer) {
    if (k_count > 0 && cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
      PipelineState write_state{0, 1, 0};  // the producer starts on the "previous" phase
      Mainloop::load(params.mainloop, pipeline, write_state, m_blk, n_blk, 0, smem.tensors,
                     k_begin, k_count);
    }
  } else {
    if (k_count > 0) {
      PipelineState read_state;
      Mainloop::mma(pipeline, read_state, accum, k_count, wg_thread_idx, smem.tensors);
      Mainloop::mma_tail(pipeline, read_state, k_count);
    } else {
      clear(accum);
    }
    // Every stage has been consumed and every WGMMA reading it has retired: the pipeline
    // buffers are dead, and the partial goes over them. (The CTA-wide barrier below orders the
    // consumer's reads of the stages before these writes for all consumer threads.)
    cutlass::arch::NamedBarrier::sync(Kernel::kConsumerThreads, 1);
    float4* partial = reinterpret_cast<float4*>(smem.partial);
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < Kernel::kAccumValues; v += 4) {
      partial[(v / 4) * Kernel::kConsumerThreads + wg_thread_idx] =
          make_float4(accum(v), accum(v + 1), accum(v + 2), accum(v + 3));
    }
  }

  // Every CTA's partial is written before any CTA reads one (release / acquire over the cluster).
  if constexpr (kSplits > 1) {
    cute::cluster_arrive();
    cute::cluster_wait();
  }

  if (!is_producer) {
    if constexpr (kSplits > 1) {
      // Sum the partials of the value groups this CTA owns. Value v is column group
      // j = v / 4 % (2 * kGateGroups) (the accumulator's value mode is ((2 cols, 2 rows, groups),
      // MMA_M, 1)); this CTA owns gate group j and its up group j + kGateGroups when
      // j % kSplits == rank.
      uint32_t const local = cute::cast_smem_ptr_to_uint(smem.partial);
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < Kernel::kAccumValues; v += 4) {
        int const group = (v / 4) % (2 * Kernel::kGateGroups);
        if ((group % Kernel::kGateGroups) % kSplits != rank) continue;
        uint32_t const offset =
            uint32_t(((v / 4) * Kernel::kConsumerThreads + wg_thread_idx) * sizeof(float4));
        float4 const sum = sum_over_cluster_v4(local + offset, kSplits);
        accum(v) = sum.x;
        accum(v + 1) = sum.y;
        accum(v + 2) = sum.z;
        accum(v + 3) = sum.w;
      }
    }
    Kernel::Epilogue::store(accum, tiled_mma, wg_thread_idx, Mainloop::tile_row0(m_blk, params.mainloop.m),
                            Mainloop::tile_rows_done(m_blk, params.mainloop.m), n_blk * Kernel::kTileN,
                            params.mainloop.m, params.mainloop.i, params.out, params.ld_out, rank, kSplits);
  }

  // No CTA leaves (and frees the shared memory its peers read) before every CTA has read.
  if constexpr (kSplits > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  }
#endif
}

// Host side: TMA descriptors for the user's pointers; one cluster of kSplits CTAs per output tile.
template <class Kernel>
cudaError_t launch_sm90_swiglu_splitk(SwigluParams const& p, int /*sm_count*/, cudaStream_t stream) {
  using Element = typename Kernel::Element;
  using Mainloop = typename Kernel::Mainloop;
  typename Kernel::Params params{
      Mainloop::make_params(static_cast<Element const*>(p.x), p.ldx,
                            static_cast<Element const*>(p.w_gate), p.ld_gate,
                            static_cast<Element const*>(p.w_up), p.ld_up, p.m, p.k, p.i),
      static_cast<Element*>(p.out), p.ld_out};
  // (x - 1) / t + 1 rounds up without overflowing for x near INT_MAX (x >= 1 is validated).
  int64_t const tiles_m = (p.m - 1) / Kernel::kTileM + 1;
  int64_t const tiles_n = (p.i - 1) / Kernel::kTileN + 1;
  // Grid limits: x < 2^31 and y < 2^16.
  if (tiles_n * Kernel::kSplits >= (int64_t(1) << 31) || tiles_m >= (int64_t(1) << 16)) {
    return cudaErrorInvalidValue;
  }

  auto* kernel = &sm90_swiglu_splitk_kernel<Kernel>;
  cudaError_t err = opt_in_shared_memory_once<Kernel>(kernel, Kernel::kSmemBytes);
  if (err != cudaSuccess) return err;

  Sm90Launch launch(dim3(unsigned(tiles_n * Kernel::kSplits), unsigned(tiles_m), 1), Kernel::kThreads,
                    Kernel::kSmemBytes, stream, Kernel::kSplits);
  return launch.launch(kernel, params);
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/ (sm90_launch.hpp); the trailing
// arguments are Sm90SwigluSplitK's after the element type.
#define TILEGLU_INSTANTIATE_SPLITK(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_splitk, Sm90SwigluSplitK, name, dtype, Element, __VA_ARGS__)
