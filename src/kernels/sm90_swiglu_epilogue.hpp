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
// Two ways out: register-direct 32-bit stores (Sm90SwigluEpilogue::store), which need no shared
// memory and, in the Pingpong schedule, run while the other consumer warpgroup owns the tensor
// cores; and a shared-memory staging buffer with one TMA store per tile (Sm90SwigluTmaStore), which
// costs a buffer per tile in flight but turns ~tile_m * tile_n / 256 scattered store instructions
// per thread into smem writes and one asynchronous bulk copy. Which wins is measured per config
// (the `*_tma` configs; the tuner decides).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>

#include "swiglu_activation.hpp"

namespace tileglu::kernels {

// Applies `Activation` to matching gate/up accumulator values of one tile and hands each pair of
// adjacent output columns, rounded once and packed, to a sink: store() writes them to global
// memory directly (predicated on the problem's M and I), Sm90SwigluTmaStore stages them in shared
// memory for one TMA store. With owners > 1 (split-K, sm90_swiglu_splitk.hpp) only the 8-column
// groups j with j % owners == owner are produced: the CTAs of a cluster share the tile that way.
template <class Element, int kTileM, int kTileN, class Activation = SiluMul>
struct Sm90SwigluEpilogue {
  // sink(row, col, packed) for each output pair (row, col), (row, col + 1) of this thread, with
  // row and col inside the [tile_m, tile_n] output tile; rows for which keep_row(row) is false
  // are skipped before any math.
  template <class Accum, class TiledMma, class KeepRow, class Sink>
  CUTLASS_DEVICE static void for_each_pair(Accum const& accum, TiledMma const& tiled_mma,
                                           int consumer_thread_idx, KeepRow const& keep_row,
                                           Sink&& sink, int owner = 0, int owners = 1) {
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
        int const row = get<0>(thread_coord(make_coord(0, r, 0), mm, 0));
        if (!keep_row(row)) continue;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < kGateGroups; ++j) {
          if (j % owners != owner) continue;
          int const col = get<1>(thread_coord(make_coord(0, r, j), mm, 0));
          float const h0 = act(accum(make_coord(0, r, j), mm, 0),
                               accum(make_coord(0, r, j + kUpGroupOffset), mm, kUpN));
          float const h1 = act(accum(make_coord(1, r, j), mm, 0),
                               accum(make_coord(1, r, j + kUpGroupOffset), mm, kUpN));
          sink(row, col, pack_rounded_pair<Element>(h0, h1));
        }
      }
    }
  }

  // Register-direct stores of the tile at (m0, n0): two adjacent outputs per 32-bit store. Tile
  // rows below `rows_done` are skipped (a ragged M's last tile row, moved back to end at M,
  // overlaps the previous tile row there: the mainloop's tile_row0).
  template <class Accum, class TiledMma>
  CUTLASS_DEVICE static void store(Accum const& accum, TiledMma const& tiled_mma,
                                   int consumer_thread_idx, int m0, int rows_done, int n0, int m, int i,
                                   Element* out, int64_t ld_out, int owner = 0, int owners = 1) {
    for_each_pair(
        accum, tiled_mma, consumer_thread_idx,
        [&](int row) { return row >= rows_done && m0 + row < m; },
        [&](int row, int col, uint32_t packed) {
          // I is a multiple of 8 and col is even, so both columns are in range or neither.
          if (n0 + col < i) {
            *reinterpret_cast<uint32_t*>(out + int64_t(m0 + row) * ld_out + n0 + col) = packed;
          }
        },
        owner, owners);
  }
};

// The epilogue through shared memory and a TMA store: SwiGLU results go to a [tile_m, tile_n]
// staging buffer and one thread stores the tile with TMA, which clips rows and columns past M
// and I and runs asynchronously while the consumer goes on to its next tile.
//
// Why: the register-direct stores of Sm90SwigluEpilogue::store are 32-bit stores spread over 8
// rows per warp instruction; in the Cooperative schedule the tensor cores wait for them, and ncu
// (H200, qwen2.5-72b, M = 16384) showed that kernel at 94% tensor throughput against 98% for the
// Pingpong one. Staging costs shared memory (tile_m x tile_n elements per buffer), so the configs
// that use it have their stage count sized for it.
//
// The buffer is 128-byte swizzled in rows of 64 elements (the GMMA K-major atom): a warp's 32-bit
// writes (8 rows x 4 column pairs of one 8-column group) land in 8 different 16-byte chunks,
// which covers the 32 banks without conflict, and TMA reads the same swizzle. A tile_n that is
// not a multiple of 64 (the 112-column tiles, WGMMA N = 224) takes the widest atom that divides
// it: 64-byte (32 elements) or 32-byte (16 elements) swizzle. The 32-byte atom is 8 rows of 32
// bytes whose 16-byte halves swap every 4 rows, so the warp's 8 rows x 16 bytes still cover 128
// distinct bytes of banks; TMA's boxes are then at most 16 columns (the swizzle span) wide.
template <class Element, int kTileN>
using Sm90StagingAtomFor = cute::conditional_t<
    kTileN % 64 == 0, cute::GMMA::Layout_K_SW128_Atom<Element>,
    cute::conditional_t<kTileN % 32 == 0, cute::GMMA::Layout_K_SW64_Atom<Element>,
                        cute::GMMA::Layout_K_SW32_Atom<Element>>>;

template <class Element, int kTileM, int kTileN>
struct Sm90SwigluTmaStore {
  static_assert(kTileN % 16 == 0, "the staging atom is at least 16 columns wide");
  using SmemLayout = decltype(cute::tile_to_shape(Sm90StagingAtomFor<Element, kTileN>{},
                                                  cute::make_shape(cute::Int<kTileM>{}, cute::Int<kTileN>{})));
  static constexpr int kBufferElems = kTileM * kTileN;
  static_assert(cute::cosize_v<SmemLayout> == kBufferElems, "staging buffer must be dense");
  using GmemLayout = cute::Layout<cute::Shape<int, int>, cute::Stride<int64_t, cute::_1>>;
  using Tma = decltype(cute::make_tma_copy(
      cute::SM90_TMA_STORE{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<Element*>(nullptr)), GmemLayout{}),
      SmemLayout{}));

  static Tma make(Element* out, int m, int i, int64_t ld_out) {
    using namespace cute;
    return make_tma_copy(SM90_TMA_STORE{},
                         make_tensor(make_gmem_ptr(out), make_layout(make_shape(m, i), make_stride(ld_out, _1{}))),
                         SmemLayout{});
  }

  // All `num_threads` consumer threads of the tile call this; `is_issuer` is one of them.
  // `barrier_id`: a CUTLASS user named barrier, 0-7 (NamedBarrier adds the 8 ids CUTLASS
  // reserves; the hardware has 16).
  // `buffer`: this tile's staging buffer (kBufferElems, 1024-byte aligned); the issuer's previous
  // store from it must have been committed by this same function.
  template <class Epilogue, class Accum, class TiledMma>
  CUTLASS_DEVICE static void store(Accum const& accum, TiledMma const& tiled_mma,
                                   int consumer_thread_idx, int num_threads, int barrier_id,
                                   bool is_issuer, Element* buffer, Tma const& tma, int m_blk,
                                   int n_blk, int m, int i) {
    using namespace cute;
    // The previous TMA store from this buffer has read it.
    if (is_issuer) tma_store_wait<0>();
    cutlass::arch::NamedBarrier::sync(num_threads, barrier_id);
    Tensor staged = make_tensor(make_smem_ptr(buffer), SmemLayout{});
    Epilogue::for_each_pair(accum, tiled_mma, consumer_thread_idx, [](int) { return true; },
                            [&](int row, int col, uint32_t packed) {
                              *reinterpret_cast<uint32_t*>(&staged(row, col)) = packed;
                            });
    tma_store_fence();  // the generic-proxy writes, visible to the TMA (async proxy)
    cutlass::arch::NamedBarrier::sync(num_threads, barrier_id);
    if (is_issuer) {
      Tensor out = tma.get_tma_tensor(make_shape(m, i));
      Tensor tile = local_tile(out, make_shape(Int<kTileM>{}, Int<kTileN>{}), make_coord(m_blk, n_blk));
      auto slice = tma.get_slice(Int<0>{});
      copy(tma, slice.partition_S(staged), slice.partition_D(tile));
      tma_store_arrive();
    }
  }

  // Before the CTA exits: the issuer's stores have read their buffers.
  CUTLASS_DEVICE static void drain(bool is_issuer) {
    if (is_issuer) cute::tma_store_wait<0>();
  }
};

}  // namespace tileglu::kernels
