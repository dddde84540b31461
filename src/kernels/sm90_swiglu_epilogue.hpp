// Epilogue of the SwiGLU kernels: SwiGLU on the register accumulators, then half-width stores.
// (Kernel-1's separate gate and up accumulators pair element for element; Kernel-2's as below.)
//
// The GEMM tile is [gate | up]: columns [0, tile_n) of the WGMMA accumulator hold X·Wgᵀ for
// output columns n0 .. n0+tile_n and columns [tile_n, 2 tile_n) hold X·Wuᵀ for the same output
// columns. An SM90 WGMMA m64nNk16 fp32 accumulator gives each thread the value mode
// (2 columns, 2 rows, N/8 column groups): column 8j + 2(lane%4) + c of rows r and r+8. The
// thread therefore owns group j (gate) and group j + N/16 (the up value of the same output
// column) together, so the visitor pairs them with no data movement, applies the activation
// in fp32, rounds once, and writes two adjacent outputs as one 32-bit store.
//
// Why register-direct stores instead of smem + TMA store: the output is a quarter of the
// bytes an unfused GEMM would write, and in the Pingpong schedule this epilogue runs while the
// other consumer warpgroup owns the tensor cores, so it is off the critical path; it also
// needs no shared memory, leaving all of it to the mainloop pipeline.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>

namespace tileglu::kernels {

// silu(g) * u in fp32. __expf is the fast exponential (ex2.approx); its relative error
// (~2 ulp of fp32) is far below one bf16/fp16 ulp. For g -> -inf, exp(-g) = inf and the
// quotient is -0, the correct limit.
struct SiluMul {
  CUTLASS_DEVICE float operator()(float gate, float up) const {
    return gate / (1.0f + __expf(-gate)) * up;
  }
};

// Packs two fp32 values into one 32-bit word of the output type, rounding each once (RNE).
template <class Element>
CUTLASS_DEVICE uint32_t pack_rounded_pair(float lo, float hi);

template <>
CUTLASS_DEVICE uint32_t pack_rounded_pair<cutlass::bfloat16_t>(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

template <>
CUTLASS_DEVICE uint32_t pack_rounded_pair<cutlass::half_t>(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// Applies `Activation` to matching gate/up accumulator values of one consumer warpgroup's
// tile and stores the [tile_m, tile_n] result, predicated on the problem's M and I.
// With owners > 1 (split-K, sm90_swiglu_splitk.hpp) only the 8-column groups j with
// j % owners == owner are stored: the CTAs of a cluster share the tile's stores that way.
template <class Element, int kTileM, int kTileN, class Activation = SiluMul>
struct Sm90SwigluEpilogue {
  template <class Accum, class TiledMma>
  CUTLASS_DEVICE static void store(Accum const& accum, TiledMma const& tiled_mma,
                                   int consumer_thread_idx, int m0, int n0, int m, int i,
                                   Element* out, int64_t ld_out, int owner = 0, int owners = 1) {
    using namespace cute;
    // ((2 cols, 2 rows, N/8 col groups), MMA_M, MMA_N): the SM90 fp32 accumulator value mode.
    // MMA_N = 1 (Kernel-2): one accumulator, gate in column groups [0, G), up in [G, 2G).
    // MMA_N = 2 (Kernel-1): a gate accumulator (n = 0) and an up accumulator (n = 1), G groups each.
    constexpr int kMmaN = size<2>(Accum{});
    static_assert(rank(Accum{}) == 3 && (kMmaN == 1 || kMmaN == 2), "one or two accumulators");
    constexpr int kColGroups = size<0, 2>(Accum{});
    static_assert(kColGroups * 8 * kMmaN == 2 * kTileN, "accumulators must hold [gate | up] of tile_n each");
    constexpr int kGateGroups = kMmaN == 1 ? kColGroups / 2 : kColGroups;
    // Where the up value of gate element (c, r, j) of row block mm lives.
    constexpr int kUpGroupOffset = kMmaN == 1 ? kGateGroups : 0;
    constexpr int kUpN = kMmaN == 1 ? 0 : 1;

    // Coordinates of each accumulator element inside the [tile_m, 2*tile_n] GEMM tile.
    Tensor coord = make_identity_tensor(make_shape(Int<kTileM>{}, Int<2 * kTileN>{}));
    Tensor thread_coord = tiled_mma.get_slice(consumer_thread_idx).partition_C(coord);

    Activation act;
    CUTLASS_PRAGMA_UNROLL
    for (int mm = 0; mm < size<1>(accum); ++mm) {
      CUTLASS_PRAGMA_UNROLL
      for (int r = 0; r < 2; ++r) {
        int const row = m0 + get<0>(thread_coord(make_coord(0, r, 0), mm, 0));
        if (row >= m) continue;
        Element* out_row = out + int64_t(row) * ld_out;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < kGateGroups; ++j) {
          if (j % owners != owner) continue;
          int const col = n0 + get<1>(thread_coord(make_coord(0, r, j), mm, 0));
          float const h0 = act(accum(make_coord(0, r, j), mm, 0),
                               accum(make_coord(0, r, j + kUpGroupOffset), mm, kUpN));
          float const h1 = act(accum(make_coord(1, r, j), mm, 0),
                               accum(make_coord(1, r, j + kUpGroupOffset), mm, kUpN));
          // I is a multiple of 8 and col is even, so both columns are in range or neither.
          if (col < i) {
            *reinterpret_cast<uint32_t*>(out_row + col) = pack_rounded_pair<Element>(h0, h1);
          }
        }
      }
    }
  }
};

}  // namespace tileglu::kernels
