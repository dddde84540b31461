// Decode SwiGLU kernel (M <= 64): the weights take the 16-row side of mma.sync m16n8k16
// (swap-AB) and the tokens its 8-wide side, K is split across the warps of a CTA and summed in
// shared memory before SwiGLU, and the weights stream from HBM straight into registers.
//
// Why not the Pingpong kernel at small M: there the tokens are the 64-row WGMMA side, so at
// M = 1 63 of 64 rows are padding, and the unit of work is a 64 x 2*tile_n x K tile, of which
// qwen2.5-0.5b has 76 (56 of 132 SMs idle) and qwen2.5-72b 462 (3.5 per SM, the last wave half
// empty). Measured (bench/NOTES.md, session 2) that streamed 1.4-3.8 TB/s against cuBLAS's
// 1.9-4.0. The problem is a stream of 2*I*K weight elements; this kernel is built around that:
//   - Swap-AB: a warp's MMA A operand is 8 gate rows and the 8 up rows of the same output
//     columns, B is 8 tokens. The m16n8k16 accumulator gives each lane rows g and g + 8 of
//     columns 2q, 2q+1 (g = lane / 4, q = lane % 4): the gate and the up value of output column
//     g for tokens 2q and 2q+1, in one lane, so SwiGLU needs no data movement.
//   - Operands from global memory into registers, no shared-memory staging: a lane loads 16
//     bytes (8 k values) of each of its two weight rows per 32-deep k step, which is exactly its
//     A fragment for two MMAs once K is permuted the same way for A and B (below); the tokens'
//     16 bytes likewise. The weights are read once (ld.global.nc.L1::no_allocate); X is a few
//     hundred KB that every CTA reads, so it goes through L1 and L2.
//   - `kUnroll` k steps are loaded before their MMAs, so each warp keeps 2 * groups * kUnroll
//     16-byte weight loads in flight; several CTAs per SM (__launch_bounds__(256, 2)) keep the
//     HBM busy while a warp multiplies.
//   - K split over the CTA's warps (decode_plan.h picks 1-8 slices per shape), partial sums
//     reduced in shared memory in a fixed order: no workspace, no atomics, deterministic.
//
// The K permutation. m16n8k16 with 16-bit inputs gives lane (g, q) A elements at columns
// {2q, 2q+1} (registers 0, 1) and {2q+8, 2q+9} (registers 2, 3) and B elements at rows
// {2q, 2q+1} and {2q+8, 2q+9}. A dot product does not care how K is ordered as long as A and B
// agree, so the kernel feeds a lane's 16-byte chunk k0 + 8q .. k0 + 8q + 7 as: elements 0-3 to
// the first MMA (logical columns 2q, 2q+1, 2q+8, 2q+9) and 4-7 to the second. The 4 lanes of a
// row cover 32 consecutive k, so a warp reads 64 contiguous bytes of each of its 16 weight rows
// per step, and `kUnroll` steps read 64 * kUnroll contiguous bytes of each row.
//
// Tails: any M (tokens past M load zeros and are not stored), I and K multiples of 8 (validated
// by the C API: an 8-column group and a 16-byte k chunk are all in or all out). Only
// KernelConfig::max_m bounds M: above it every token block re-reads the weights.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "decode_plan.h"
#include "sm90_launch.hpp"
#include "swiglu_activation.hpp"
#include "swiglu_params.h"

namespace tileglu::kernels {

// Both decode kernels' parameters: the problem, and the plan of decode_plan.h.
template <class Element>
struct Sm90SwigluDecodeParams {
  Element const* x;
  int64_t ldx;
  Element const* w_gate;
  int64_t ld_gate;
  Element const* w_up;
  int64_t ld_up;
  Element* out;
  int64_t ld_out;
  int m, k, i;
  int token_blocks, k_steps, k_slices;
  int64_t tasks = 0;  // the streaming kernel's (token block, strip) count
};

template <class Element_, int kTokenTiles_, int kColGroupsPerWarp_, int kUnroll_>
struct Sm90SwigluDecode {
  using Element = Element_;
  // n8 MMA tiles per CTA: the CTA's token block is 8 * kTokenTiles tokens.
  static constexpr int kTokenTiles = kTokenTiles_;
  static constexpr int kTokensPerCta = 8 * kTokenTiles;
  // 8-column output groups per warp (16 weight rows each): more reuse of each token load.
  static constexpr int kColGroupsPerWarp = kColGroupsPerWarp_;
  // 32-deep k steps whose loads are issued together before their MMAs.
  static constexpr int kUnroll = kUnroll_;
  static constexpr int kWarps = kDecodeWarps;
  static constexpr int kThreads = 32 * kWarps;
  // fp32 accumulator values per lane: 4 per (column group, token tile).
  static constexpr int kAccum = 4 * kColGroupsPerWarp * kTokenTiles;

  using Params = Sm90SwigluDecodeParams<Element>;
};

namespace decode_detail {

// D += A * B, m16n8k16, fp32 accumulation.
template <class Element>
CUTLASS_DEVICE void mma_m16n8k16(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                 uint32_t b0, uint32_t b1);

template <>
CUTLASS_DEVICE void mma_m16n8k16<cutlass::bfloat16_t>(float (&d)[4], uint32_t a0, uint32_t a1,
                                                      uint32_t a2, uint32_t a3, uint32_t b0,
                                                      uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <>
CUTLASS_DEVICE void mma_m16n8k16<cutlass::half_t>(float (&d)[4], uint32_t a0, uint32_t a1,
                                                  uint32_t a2, uint32_t a3, uint32_t b0,
                                                  uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// One 32-deep k step: the lane's 16-byte chunks of its gate row, up row and token row, K
// permuted as the header says (elements 0-3 to the first MMA, 4-7 to the second); A rows g
// (gate) and g + 8 (up).
template <class Element>
CUTLASS_DEVICE void mma_k_step(float (&d)[4], uint4 const& gate, uint4 const& up, uint4 const& tokens) {
  mma_m16n8k16<Element>(d, gate.x, up.x, gate.y, up.y, tokens.x, tokens.y);
  mma_m16n8k16<Element>(d, gate.z, up.z, gate.w, up.w, tokens.z, tokens.w);
}

// Weights: read once per call, so kept out of L1; the L2 fetches 256 bytes around each miss,
// the next kUnroll steps of the same row.
CUTLASS_DEVICE uint4 load_weights(void const* ptr) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(ptr));
  return v;
}

// Tokens: every CTA of the grid reads them, so they stay cached.
CUTLASS_DEVICE uint4 load_tokens(void const* ptr) { return __ldg(static_cast<uint4 const*>(ptr)); }

// The k-slice reduction: the warps of slices 1, 2, ... of a column set write their partial sums
// to `partials` ([warp][value][lane], lane-minor: conflict-free), and after the barrier the
// slice-0 warp adds them in slice order, so every run sums the same way. Every thread of the CTA
// must call it.
template <int kValues>
CUTLASS_DEVICE void reduce_k_slices(float (&acc)[kValues], float* partials, int warp, int lane,
                                    int slice, int k_slices) {
  if (slice != 0) {
#pragma unroll
    for (int v = 0; v < kValues; ++v) partials[(warp * kValues + v) * 32 + lane] = acc[v];
  }
  __syncthreads();
  if (slice != 0) return;
  for (int other = 1; other < k_slices; ++other) {
#pragma unroll
    for (int v = 0; v < kValues; ++v) acc[v] += partials[((warp + other) * kValues + v) * 32 + lane];
  }
}

// SwiGLU and the one rounding. Lane (g, q) holds output column `col` for tokens
// first_token + 8 t and first_token + 8 t + 1 of each token tile t (first_token = the block's
// first token + 2q): accumulator values 0, 1 are their gate sums, 2, 3 their up sums.
template <class Element, int kTiles>
CUTLASS_DEVICE void store_outputs(float const (&acc)[kTiles][4], Element* out_elements, int64_t ld_out,
                                  int m, int64_t col, int first_token) {
  SiluMul const act;
  uint16_t* const out = reinterpret_cast<uint16_t*>(out_elements);
#pragma unroll
  for (int tile = 0; tile < kTiles; ++tile) {
    int const token = first_token + 8 * tile;
    if (token < m) out[token * ld_out + col] = round_to_bits<Element>(act(acc[tile][0], acc[tile][2]));
    if (token + 1 < m) out[(token + 1) * ld_out + col] = round_to_bits<Element>(act(acc[tile][1], acc[tile][3]));
  }
}

}  // namespace decode_detail

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, 2)
sm90_swiglu_decode_kernel(__grid_constant__ typename Kernel::Params const p) {
  using Element = typename Kernel::Element;
  constexpr int kGroups = Kernel::kColGroupsPerWarp;
  constexpr int kTiles = Kernel::kTokenTiles;
  constexpr int kUnroll = Kernel::kUnroll;
  // Partial sums of the k-slices other than 0, [warp][value][lane]: lane-minor, conflict-free.
  __shared__ float partials[Kernel::kWarps][Kernel::kAccum][32];

  int const warp = int(threadIdx.x) / 32;
  int const lane = int(threadIdx.x) % 32;
  int const row = lane / 4;   // g: weight row (of 8) in a group; token (of 8) in a token tile
  int const quad = lane % 4;  // q: which 8 of each 32-deep k step
  // warp = column set * k_slices + slice: the slices of one column set are neighbours.
  int const slice = warp % p.k_slices;
  int const col_set = warp / p.k_slices;
  int const sets_per_cta = Kernel::kWarps / p.k_slices;
  int const token_block = int(blockIdx.x) % p.token_blocks;
  int64_t const strip = int64_t(blockIdx.x) / p.token_blocks;
  int64_t const col_base = (strip * sets_per_cta + col_set) * (8 * kGroups);

  // This lane's weight rows and token rows, at its 8-element offset in each k step. Rows past I
  // or M are never loaded from; their pointers stay at row 0 so that they are valid addresses.
  Element const* gate_rows[kGroups];
  Element const* up_rows[kGroups];
  bool group_in[kGroups];
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    group_in[grp] = col_base + 8 * grp < p.i;  // I % 8 == 0: a group is all in or all out
    int64_t const col = group_in[grp] ? col_base + 8 * grp + row : 0;
    gate_rows[grp] = p.w_gate + col * p.ld_gate + 8 * quad;
    up_rows[grp] = p.w_up + col * p.ld_up + 8 * quad;
  }
  Element const* token_rows[kTiles];
  bool token_in[kTiles];
#pragma unroll
  for (int tile = 0; tile < kTiles; ++tile) {
    int const token = token_block * Kernel::kTokensPerCta + 8 * tile + row;
    token_in[tile] = token < p.m;
    token_rows[tile] = p.x + (token_in[tile] ? token : 0) * p.ldx + 8 * quad;
  }

  float acc[kGroups][kTiles][4];
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp)
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[grp][tile][v] = 0.0f;

  int const step_begin = int(int64_t(p.k_steps) * slice / p.k_slices);
  // A warp whose first group is past I (the last strip) has nothing to load.
  int const step_end = group_in[0] ? int(int64_t(p.k_steps) * (slice + 1) / p.k_slices) : step_begin;
  uint4 const zero = make_uint4(0, 0, 0, 0);
  for (int step = step_begin; step < step_end; step += kUnroll) {
    uint4 gate[kUnroll][kGroups], up[kUnroll][kGroups], tokens[kUnroll][kTiles];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      int const k0 = (step + u) * kDecodeStepK;
      // K % 8 == 0: this lane's 8 elements are all in or all out.
      bool const k_in = step + u < step_end && k0 + 8 * quad < p.k;
#pragma unroll
      for (int grp = 0; grp < kGroups; ++grp) {
        bool const load = k_in && group_in[grp];
        gate[u][grp] = load ? decode_detail::load_weights(gate_rows[grp] + k0) : zero;
        up[u][grp] = load ? decode_detail::load_weights(up_rows[grp] + k0) : zero;
      }
#pragma unroll
      for (int tile = 0; tile < kTiles; ++tile) {
        tokens[u][tile] = k_in && token_in[tile] ? decode_detail::load_tokens(token_rows[tile] + k0) : zero;
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int grp = 0; grp < kGroups; ++grp)
#pragma unroll
        for (int tile = 0; tile < kTiles; ++tile) {
          decode_detail::mma_k_step<Element>(acc[grp][tile], gate[u][grp], up[u][grp], tokens[u][tile]);
        }
  }

  if (p.k_slices > 1) {
    decode_detail::reduce_k_slices(reinterpret_cast<float(&)[Kernel::kAccum]>(acc), &partials[0][0][0],
                                   warp, lane, slice, p.k_slices);
    if (slice != 0) return;
  }
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    if (!group_in[grp]) continue;
    decode_detail::store_outputs<Element>(acc[grp], p.out, p.ld_out, p.m, col_base + 8 * grp + row,
                                          token_block * Kernel::kTokensPerCta + 2 * quad);
  }
}

// Host side: plans the grid for this device's occupancy (decode_plan.h) and launches it.
template <class Kernel>
cudaError_t launch_sm90_swiglu_decode(SwigluParams const& p, int sm_count, cudaStream_t stream) {
  using Element = typename Kernel::Element;
  auto* kernel = &sm90_swiglu_decode_kernel<Kernel>;
  // CTAs one SM holds at once: asked of the driver once per device.
  int ctas_per_sm = once_per_device([&] {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, Kernel::kThreads, 0) != cudaSuccess) {
      (void)cudaGetLastError();  // the query's own error: the fallback below decides
      n = 0;
    }
    return n;
  });
  if (ctas_per_sm <= 0) ctas_per_sm = 2;  // the launch bound's two
  DecodePlan const plan = make_decode_plan(p.m, p.k, p.i, Kernel::kTokensPerCta,
                                           Kernel::kColGroupsPerWarp, int64_t(sm_count) * ctas_per_sm);
  if (plan.ctas > INT32_MAX) return cudaErrorInvalidValue;
  typename Kernel::Params params{static_cast<Element const*>(p.x), p.ldx,
                                 static_cast<Element const*>(p.w_gate), p.ld_gate,
                                 static_cast<Element const*>(p.w_up), p.ld_up,
                                 static_cast<Element*>(p.out), p.ld_out,
                                 p.m, p.k, p.i,
                                 plan.token_blocks, plan.k_steps, plan.k_slices};
  Sm90Launch launch(dim3(unsigned(plan.ctas), 1, 1), Kernel::kThreads, 0, stream);
  return launch.launch(kernel, params);
}

// ------------------------------------------------------------------------------------------------
// Streaming variant: the same swap-AB MMAs and K split, but the loads go through a ring of
// shared-memory slots (cp.async) and the grid is persistent.
//
// Why: the kernel above holds its loads in flight in registers, 2 * kUnroll 16-byte vectors per
// lane, 64-96 KB per SM at two CTAs per SM, so 8-13 MB GPU-wide. The 17-90 MB of a small model's
// weights then take several rounds of HBM latency, and each round is a wave of short CTAs that
// must launch, load, reduce and retire (qwen2.5-0.5b M = 1: 11.7 us against cuBLAS's 9.4, H200,
// bench/NOTES.md session 3). Here every warp keeps kRingSteps k steps in flight in shared memory
// (24 KB per warp at 16 steps, 192 KB per SM, 25 MB GPU-wide) and walks its CTA's tasks in a grid
// stride with the ring running on across task boundaries, so the next task's loads are in flight
// while this one's partial sums are reduced and stored.
//
// A lane reads back only the slots it wrote, so cp.async.wait_group is the only synchronisation
// the ring needs; __syncthreads is only for the k-slice reduction at the end of each task.
// Ring slot t % kRingSteps holds step t of the warp's sequence: [gate, up, tokens...][lane].
template <class Element_, int kTokenTiles_, int kRingSteps_>
struct Sm90SwigluDecodeStream {
  using Element = Element_;
  static constexpr int kTokenTiles = kTokenTiles_;
  static constexpr int kTokensPerCta = 8 * kTokenTiles;
  static constexpr int kRingSteps = kRingSteps_;
  static constexpr int kWarps = kDecodeWarps;
  static constexpr int kThreads = 32 * kWarps;
  // 16-byte vectors per lane per k step: the gate row's, the up row's, one per token tile.
  static constexpr int kStepVectors = 2 + kTokenTiles;
  static constexpr int kRingVectorsPerWarp = kRingSteps * kStepVectors * 32;
  static constexpr int kAccum = 4 * kTokenTiles;
  static constexpr int kSmemBytes =
      kWarps * kRingVectorsPerWarp * 16 + kWarps * kAccum * 32 * int(sizeof(float));
  static_assert(kRingSteps >= 2, "a ring of at least two steps");
  static_assert(kSmemBytes <= kSm90MaxSmemPerCta, "exceeds the 227 KiB of shared memory an SM90 CTA may use");

  using Params = Sm90SwigluDecodeParams<Element>;
};

namespace decode_detail {

// 16 bytes global -> shared, asynchronously; `bytes` = 0 fills zeros (a row or k past the end).
// Weights bypass L1 (.cg: read once); tokens are cached in L1 (.ca: every task reads them).
template <bool kCacheL1>
CUTLASS_DEVICE void cp_async_16(void* smem, void const* gmem, bool valid) {
  uint32_t const dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  int const bytes = valid ? 16 : 0;
  if constexpr (kCacheL1) {
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
                 : "memory");
  }
}

CUTLASS_DEVICE void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int kPending>
CUTLASS_DEVICE void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace decode_detail

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, 1)
sm90_swiglu_decode_stream_kernel(__grid_constant__ typename Kernel::Params const p) {
  using Element = typename Kernel::Element;
  constexpr int kTiles = Kernel::kTokenTiles;
  constexpr int kRing = Kernel::kRingSteps;
  constexpr int kVectors = Kernel::kStepVectors;
  extern __shared__ uint4 stream_smem[];

  int const warp = int(threadIdx.x) / 32;
  int const lane = int(threadIdx.x) % 32;
  int const row = lane / 4;
  int const quad = lane % 4;
  int const slice = warp % p.k_slices;
  int const col_set = warp / p.k_slices;
  int const sets_per_cta = Kernel::kWarps / p.k_slices;
  uint4* const ring = stream_smem + warp * Kernel::kRingVectorsPerWarp + lane;
  // [warp][value][lane] partial sums of the k-slices other than 0, after the rings.
  float* const partials = reinterpret_cast<float*>(stream_smem + Kernel::kWarps * Kernel::kRingVectorsPerWarp);

  int const step_begin = int(int64_t(p.k_steps) * slice / p.k_slices);
  // At least 2 when K is split (decode_plan.h), at least 1 otherwise.
  int const steps_per_task = int(int64_t(p.k_steps) * (slice + 1) / p.k_slices) - step_begin;
  int64_t const cta = blockIdx.x, ctas = gridDim.x;
  int const my_tasks = cta < p.tasks ? int((p.tasks - 1 - cta) / ctas + 1) : 0;

  // Task j of this CTA: (token block, first output column of this warp's 8).
  auto task_coords = [&](int j, int& token_block, int64_t& col_base) {
    int64_t const task = cta + int64_t(j) * ctas;
    token_block = int(task % p.token_blocks);
    col_base = (task / p.token_blocks * sets_per_cta + col_set) * 8;
  };
  // The issue side walks the warp's step sequence with a cursor, so that the divisions of
  // task_coords run once per task, not once per step: this loop issues an instruction stream
  // that must keep pace with HBM.
  struct Cursor {
    int task = 0, step = 0, slot = 0;
    bool col_in = false;
    Element const* gate = nullptr;  // this lane's 8 elements at the task's first k step
    Element const* up = nullptr;
    Element const* tokens[kTiles] = {};
    bool token_in[kTiles] = {};
  } cursor;
  auto start_task = [&]() {
    if (cursor.task >= my_tasks) return;
    int token_block;
    int64_t col_base;
    task_coords(cursor.task, token_block, col_base);
    cursor.col_in = col_base < p.i;  // I % 8 == 0: the warp's 8 columns are all in or all out
    int64_t const col = cursor.col_in ? col_base + row : 0;
    int const k_first = step_begin * kDecodeStepK + 8 * quad;
    cursor.gate = p.w_gate + col * p.ld_gate + k_first;
    cursor.up = p.w_up + col * p.ld_up + k_first;
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile) {
      int const token = token_block * Kernel::kTokensPerCta + 8 * tile + row;
      cursor.token_in[tile] = token < p.m;
      cursor.tokens[tile] = p.x + (cursor.token_in[tile] ? token : 0) * p.ldx + k_first;
    }
  };
  // The cursor's step into its ring slot, then one step on. One commit group per call, an empty
  // one past the end, so that group t is always the warp's step t.
  auto issue = [&]() {
    if (cursor.task < my_tasks) {
      // K % 8 == 0: the lane's 8 elements are all in or all out; out-of-K lanes load zeros
      // from the task's first step, a valid address.
      bool const k_in = (step_begin + cursor.step) * kDecodeStepK + 8 * quad < p.k;
      int const offset = k_in ? cursor.step * kDecodeStepK : 0;
      uint4* const slot = ring + cursor.slot * kVectors * 32;
      decode_detail::cp_async_16<false>(slot, cursor.gate + offset, k_in && cursor.col_in);
      decode_detail::cp_async_16<false>(slot + 32, cursor.up + offset, k_in && cursor.col_in);
#pragma unroll
      for (int tile = 0; tile < kTiles; ++tile) {
        decode_detail::cp_async_16<true>(slot + (2 + tile) * 32, cursor.tokens[tile] + offset,
                                         k_in && cursor.token_in[tile]);
      }
      if (++cursor.step == steps_per_task) {
        cursor.step = 0;
        ++cursor.task;
        start_task();
      }
    }
    decode_detail::cp_async_commit();
    cursor.slot = cursor.slot + 1 == kRing ? 0 : cursor.slot + 1;
  };

  start_task();
#pragma unroll 1
  for (int t = 0; t < kRing; ++t) issue();

  int read_slot = 0;
  for (int j = 0; j < my_tasks; ++j) {
    float acc[kTiles][4];
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[tile][v] = 0.0f;
    for (int q = 0; q < steps_per_task; ++q) {
      decode_detail::cp_async_wait<kRing - 1>();  // this step has landed
      uint4 const* const slot = ring + read_slot * kVectors * 32;
      read_slot = read_slot + 1 == kRing ? 0 : read_slot + 1;
      uint4 const gate = slot[0];
      uint4 const up = slot[32];
#pragma unroll
      for (int tile = 0; tile < kTiles; ++tile) {
        uint4 const tokens = slot[(2 + tile) * 32];
        decode_detail::mma_k_step<Element>(acc[tile], gate, up, tokens);
      }
      // Refill the slot just read (its values are in registers and consumed above).
      issue();
    }

    int token_block;
    int64_t col_base;
    task_coords(j, token_block, col_base);
    if (p.k_slices > 1) {
      decode_detail::reduce_k_slices(reinterpret_cast<float(&)[Kernel::kAccum]>(acc), partials, warp,
                                     lane, slice, p.k_slices);
    }
    if (slice == 0 && col_base < p.i) {
      decode_detail::store_outputs<Element>(acc, p.out, p.ld_out, p.m, col_base + row,
                                            token_block * Kernel::kTokensPerCta + 2 * quad);
    }
    if (p.k_slices > 1) __syncthreads();  // the partials are written again by the next task
  }
  decode_detail::cp_async_wait<0>();  // no copy outlives the CTA's shared memory
}

template <class Kernel>
cudaError_t launch_sm90_swiglu_decode_stream(SwigluParams const& p, int sm_count, cudaStream_t stream) {
  using Element = typename Kernel::Element;
  auto* kernel = &sm90_swiglu_decode_stream_kernel<Kernel>;
  cudaError_t err = opt_in_shared_memory_once<Kernel>(kernel, Kernel::kSmemBytes);
  if (err != cudaSuccess) return err;
  // One CTA per SM (its ring takes most of the shared memory).
  DecodePlan const plan = make_decode_stream_plan(p.m, p.k, p.i, Kernel::kTokensPerCta, sm_count);
  typename Kernel::Params params{static_cast<Element const*>(p.x), p.ldx,
                                 static_cast<Element const*>(p.w_gate), p.ld_gate,
                                 static_cast<Element const*>(p.w_up), p.ld_up,
                                 static_cast<Element*>(p.out), p.ld_out,
                                 p.m, p.k, p.i,
                                 plan.token_blocks, plan.k_steps, plan.k_slices,
                                 plan.tasks};
  Sm90Launch launch(dim3(unsigned(plan.ctas), 1, 1), Kernel::kThreads, Kernel::kSmemBytes, stream);
  return launch.launch(kernel, params);
}

}  // namespace tileglu::kernels

// One line per shipped (config, dtype) in instantiations/ (sm90_launch.hpp); the trailing
// arguments are Sm90SwigluDecode's (Sm90SwigluDecodeStream's) after the element type.
#define TILEGLU_INSTANTIATE_DECODE(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_decode, Sm90SwigluDecode, name, dtype, Element, __VA_ARGS__)
#define TILEGLU_INSTANTIATE_DECODE_STREAM(name, dtype, Element, ...) \
  TILEGLU_INSTANTIATE(launch_sm90_swiglu_decode_stream, Sm90SwigluDecodeStream, name, dtype, Element, __VA_ARGS__)
