// How the grid stream-K Cooperative tile (the `_gsk` tiled config, sm90_swiglu_pingpong.hpp)
// lays its output tiles over a grid of one CTA per SM. Pure host code, so the CPU tests check it
// (tests/cpu/test_stream_k_plan.cpp); the kernel computes the same share on the device.
//
// Why: a persistent grid of whole tiles pays for its last, partial wave. The 128 x 2*128
// Cooperative tile, the H100's best large tile (479-511 TFLOP/s per GHz against the Pingpong
// 128 x 2*64 tile's 369-389, bench/NOTES.md session 19), leaves the most of a wave idle where
// tiles are few: qwen2.5-14b at M = 256 is 2 x 108 = 216 tiles, 1.64 waves of 132 (two waves'
// time), 32B at M = 256 3.27 waves, 72B at M = 100 1.75. cuBLAS picks tiles that fill whole
// waves (bench/NOTES.md session 8); this fills them by splitting K instead, whatever the shape.
//
// The split (CUTLASS's data-parallel + stream-K hybrid): with T tiles on G CTAs, T = W G + R,
// 0 < R < G, the first (W - 1) G tiles run whole (CTA r takes tiles r, r + G, ... : the
// persistent grid's raster, so concurrent tiles still share operands in L2), and the last G + R
// tiles (all T where W = 0) are one stream-K run over all G CTAs: each CTA an equal share of
// their k tiles, contiguous in tile-major, k-minor order (SwapABStreamKShare, the swap-AB grid
// stream-K kernel's share). A share of G + R tiles is 1-2 tiles per CTA, so a tile is cut in at
// most three pieces and a CTA has at most one cut tile at each end of its share. Where R = 0 the
// tiles are whole waves and nothing is cut.
#pragma once

#include <cstdint>

#include "decode_plan.h"

namespace tileglu::kernels {

// CTAs of the grid at most: the exchange has a 128 KiB partial slot per CTA in module memory
// (sm90_swiglu_pingpong.hpp), 16.5 MiB per instantiation at this count. 132 = the SMs of an H100
// or H200 SXM; a device with more runs a 132-CTA grid.
inline constexpr int kTiledStreamKMaxCtas = 132;
// No more CTAs than leave each this many k tiles (a share shorter than that is mostly its
// partial's round trip): only grids of fewer tiles than SMs with short K are shrunk.
inline constexpr int kTiledStreamKMinKTilesPerCta = 4;

// The grid: every CTA that fits (one per SM, `resident`), at most kTiledStreamKMaxCtas, and no
// more than tiles x k_tiles / kTiledStreamKMinKTilesPerCta.
inline int tiled_stream_k_ctas(int64_t tiles, int k_tiles, int64_t resident) {
  if (tiles <= 0 || k_tiles <= 0) return 1;
  int64_t g = resident > 0 ? resident : 1;
  if (g > kTiledStreamKMaxCtas) g = kTiledStreamKMaxCtas;
  const int64_t by_work = tiles * k_tiles / kTiledStreamKMinKTilesPerCta;
  if (g > by_work) g = by_work > 0 ? by_work : 1;
  return int(g);
}

struct TiledStreamKSplit {
  int dp_tiles;  // tiles [0, dp_tiles) run whole, CTA r taking r, r + grid, ...
  int sk_tiles;  // tiles [dp_tiles, dp_tiles + sk_tiles): one stream-K run over every CTA
};

// The split of `tiles` over a grid of `grid` CTAs (header comment).
TILEGLU_HOST_DEVICE inline TiledStreamKSplit tiled_stream_k_split(int tiles, int grid) {
  if (tiles <= 0 || grid <= 0) return TiledStreamKSplit{0, 0};
  if (tiles % grid == 0) return TiledStreamKSplit{tiles, 0};
  const int waves = tiles / grid;
  const int dp = waves >= 1 ? (waves - 1) * grid : 0;
  return TiledStreamKSplit{dp, tiles - dp};
}

// TILEGLU_STREAM_K_GRID: a fixed CTA count for the tiled grid stream-K config (clamped to what
// fits), to test cut tiles shared by many CTAs or none. The count for a decimal
// 1..kTiledStreamKMaxCtas, 0 for unset or empty, -1 for anything else (the caller warns).
inline int parse_stream_k_grid(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  const int n = parse_decimal_at_most(value, kTiledStreamKMaxCtas);
  return n >= 1 ? n : -1;
}

}  // namespace tileglu::kernels
