// How the split-tail Cooperative tile (the `_split` config, sm90_swiglu_pingpong.hpp) lays
// its output tiles over a grid of one CTA per SM. Pure host code, so the CPU tests check it
// (tests/cpu/test_split_tail_plan.cpp); the kernel walks the same units on the device.
//
// Why: a persistent grid of whole tiles pays for its last, partial wave. The 128 x 2*128
// Cooperative tile, the H100's best large tile (479-511 TFLOP/s per GHz against the Pingpong
// 128 x 2*64 tile's 369-389, bench/NOTES.md session 19), leaves the most of a wave idle where
// tiles are few: qwen2.5-14b at M = 256 is 2 x 108 = 216 tiles, 1.64 waves of 132 (two waves'
// time), 32B at M = 256 3.27 waves. cuBLAS picks tiles that fill whole waves (bench/NOTES.md
// session 8); this fills the last wave by splitting its tiles along K instead.
//
// The split: with T tiles on G CTAs, T = W G + R, the first W G tiles run whole (CTA r takes
// tiles r, r + G, ...: the persistent grid's raster), and each of the last R tiles is cut into
// P pieces of K (P in 1..kSplitTailMaxPieces, the count that fills the rounds best). Unit
// u = j R + t is piece j of tail tile t, and CTA r takes units r, r + G, ... after its whole
// tiles, so the units that run at once are one piece index over neighbouring tiles: the same
// k range of the tiles that share a weight block, read once from DRAM for all of them.
// (The first version, stream-K proper, gave each CTA a contiguous run of k tiles: neighbouring
// CTAs then sat at different k offsets of tiles sharing weights, the weights were read from DRAM
// once per tile, 2.3x the bytes at 14B M = 256, and the kernel took 1.1-2.6x the whole-tile
// kernel's time on an H100; bench/NOTES.md session 20.)
// Piece P - 1 (the unit with the highest index, so the last its CTA runs: the next would be
// u + G >= P R) owns the tile: it waits for pieces 0..P-2, which hand their fp32 partials over
// through exchange slot j R + t as soon as they are swept, adds them in piece order and stores
// the tile.
#pragma once

#include <cstdint>

#include "decode_plan.h"

namespace tileglu::kernels {

// CTAs of the grid at most (132 = the SMs of an H100 or H200 SXM; a device with more runs 132).
inline constexpr int kSplitTailMaxCtas = 132;
// Pieces per tail tile at most: the exchange's slots, (P - 1) R < (P - 1) G of them at 128 KiB
// each in module memory (sm90_swiglu_pingpong.hpp), 33 MiB per instantiation at 3.
inline constexpr int kSplitTailMaxPieces = 3;
inline constexpr int kSplitTailExchangeSlots = (kSplitTailMaxPieces - 1) * kSplitTailMaxCtas;
// A piece sweeps at least this many k tiles (shorter pieces are mostly their partial's round trip).
inline constexpr int kSplitTailMinKTilesPerPiece = 4;

// The grid: every CTA that fits (one per SM, `resident`), at most kSplitTailMaxCtas.
inline int split_tail_ctas(int64_t resident) {
  if (resident < 1) return 1;
  return resident < kSplitTailMaxCtas ? int(resident) : kSplitTailMaxCtas;
}

struct SplitTailPlan {
  int dp_tiles;    // tiles [0, dp_tiles) run whole, CTA r taking r, r + grid, ...
  int tail_tiles;  // tiles [dp_tiles, dp_tiles + tail_tiles), each cut in `pieces`
  int pieces;      // 1: nothing cut (the tail runs whole)
};

// The split of `tiles` of `k_tiles` each over a grid of `grid` CTAs (header comment): the piece
// count whose rounds of tail units take the least time, ceil(R P / G) / P tiles, fewest pieces on
// a tie.
inline SplitTailPlan split_tail_plan(int tiles, int k_tiles, int grid) {
  if (tiles <= 0 || grid <= 0) return SplitTailPlan{0, 0, 1};
  const int tail = tiles % grid;
  SplitTailPlan split{tiles - tail, tail, 1};
  if (tail == 0) return split;
  int64_t best_rounds = 1;  // time of P pieces: rounds / P tiles; compare rounds_p * best_p < best_rounds * p
  for (int p = 2; p <= kSplitTailMaxPieces && k_tiles / p >= kSplitTailMinKTilesPerPiece; ++p) {
    const int64_t rounds = (int64_t(tail) * p + grid - 1) / grid;
    if (rounds * split.pieces < best_rounds * p) {
      best_rounds = rounds;
      split.pieces = p;
    }
  }
  return split;
}

// How a launch of `tiles` tiles runs on a grid of `grid` CTAs: the plan, the grid, and whether it
// must be cooperative. Only a plan that cuts tiles needs every CTA resident (owners wait on other
// CTAs' pieces); one that cuts none is the persistent grid's plain launch, of no more CTAs than
// tiles. (A cooperative launch the context refuses is planned again on a smaller grid by the
// launcher.)
struct SplitTailLaunch {
  int grid;
  SplitTailPlan plan;
  bool cooperative;
};

inline SplitTailLaunch split_tail_launch(int tiles, int k_tiles, int grid) {
  SplitTailLaunch launch{grid, split_tail_plan(tiles, k_tiles, grid), false};
  if (launch.plan.pieces > 1) {
    launch.cooperative = true;
  } else if (tiles >= 1 && tiles < grid) {
    launch.grid = tiles;
    launch.plan = split_tail_plan(tiles, k_tiles, tiles);
  }
  return launch;
}

// Piece j's k tiles of a tail tile: [k_tiles j / P, k_tiles (j + 1) / P).
TILEGLU_HOST_DEVICE inline int split_tail_piece_k_begin(int k_tiles, int piece, int pieces) {
  return int(int64_t(k_tiles) * piece / pieces);
}

// TILEGLU_SPLIT_TAIL_GRID: a fixed CTA count for the split-tail config (clamped to what fits), to
// test other splits. The count for a decimal 1..kSplitTailMaxCtas, 0 for unset or empty, -1
// for anything else (the caller warns).
inline int parse_split_tail_grid(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  const int n = parse_decimal_at_most(value, kSplitTailMaxCtas);
  return n >= 1 ? n : -1;
}

}  // namespace tileglu::kernels
