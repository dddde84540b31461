// The split-tail Cooperative tile's plan (src/kernels/split_tail_plan.h): the grid, the split into
// whole and cut tiles on the Qwen shapes it is for, and, walking every CTA's units as the kernel
// does, that every (tile, k tile) is computed exactly once, that each cut tile's owning piece is
// its CTA's last unit (so the weight stages are free for the other pieces' slots), that every
// other piece runs before any owning piece on its CTA (so it never waits), and that the slots
// stay within the exchange; and which launches are cooperative.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/split_tail_plan.h"

namespace tileglu {
namespace kernels {
namespace {

// The plan of `tiles` tiles of `k_tiles` k tiles on `grid` CTAs is (dp_tiles, tail_tiles, pieces).
void expect_split(int tiles, int k_tiles, int grid, int dp_tiles, int tail_tiles, int pieces) {
  SCOPED_TRACE(std::to_string(tiles) + " tiles of " + std::to_string(k_tiles) + " on " + std::to_string(grid));
  const SplitTailPlan s = split_tail_plan(tiles, k_tiles, grid);
  EXPECT_EQ(s.dp_tiles, dp_tiles);
  EXPECT_EQ(s.tail_tiles, tail_tiles);
  EXPECT_EQ(s.pieces, pieces);
}

TEST(SplitTailPlan, QwenShapesAndGrid) {
  // qwen2.5-14b M = 256: 216 tiles of 80 k tiles on 132 SMs: one wave whole, 84 tiles cut in 3
  // (252 pieces, two rounds of a third of a tile: 1.67 tiles' time against 2).
  expect_split(216, 80, 132, 132, 84, 3);
  // qwen2.5-32b M = 256: 432 tiles, three waves whole, 36 tiles in 3 (one round of a third).
  expect_split(432, 80, 132, 396, 36, 3);
  // 100 tail tiles: 2 pieces take two rounds of a half (no better than whole), 3 three of a
  // third: nothing gains, so nothing is cut.
  expect_split(232, 80, 132, 132, 100, 1);
  // Whole waves: nothing cut.
  expect_split(264, 80, 132, 264, 0, 1);
  // Fewer tiles than CTAs: all in the tail; pieces no shorter than kSplitTailMinKTilesPerPiece.
  expect_split(38, 14, 132, 0, 38, 3);
  EXPECT_EQ(split_tail_plan(38, 7, 132).pieces, 1);  // 3 or 4 k tiles a piece: too short
  EXPECT_EQ(split_tail_plan(38, 8, 132).pieces, 2);
  EXPECT_EQ(split_tail_ctas(132), 132);
  EXPECT_EQ(split_tail_ctas(144), kSplitTailMaxCtas);
  EXPECT_EQ(split_tail_ctas(0), 1);
  EXPECT_EQ(parse_split_tail_grid(nullptr), 0);
  EXPECT_EQ(parse_split_tail_grid(""), 0);
  EXPECT_EQ(parse_split_tail_grid("1"), 1);
  EXPECT_EQ(parse_split_tail_grid("132"), 132);
  EXPECT_EQ(parse_split_tail_grid("133"), -1);
  EXPECT_EQ(parse_split_tail_grid("0"), -1);
  EXPECT_EQ(parse_split_tail_grid("5x"), -1);
}

// A launch of `tiles` tiles of `k_tiles` on a grid of `grid`: cooperative or not, on `launch_grid`
// CTAs, planned as (dp_tiles, tail_tiles, pieces).
void expect_launch(int tiles, int k_tiles, int grid, bool cooperative, int launch_grid, int dp_tiles, int tail_tiles,
                   int pieces) {
  SCOPED_TRACE(std::to_string(tiles) + " tiles of " + std::to_string(k_tiles) + " on " + std::to_string(grid));
  const SplitTailLaunch launch = split_tail_launch(tiles, k_tiles, grid);
  EXPECT_EQ(launch.cooperative, cooperative);
  EXPECT_EQ(launch.grid, launch_grid);
  EXPECT_EQ(launch.plan.dp_tiles, dp_tiles);
  EXPECT_EQ(launch.plan.tail_tiles, tail_tiles);
  EXPECT_EQ(launch.plan.pieces, pieces);
}

TEST(SplitTailPlan, LaunchIsCooperativeOnlyWhereTilesAreCut) {
  // 14B M = 256: tiles cut, every CTA of the grid resident.
  expect_launch(216, 80, 132, true, 132, 132, 84, 3);
  // 72B M = 512: 924 tiles, 7 whole waves: a plain launch of the same grid.
  expect_launch(924, 128, 132, false, 132, 924, 0, 1);
  // 14B M = 100: 108 tiles, none worth cutting (three pieces take three rounds of a third): a
  // plain launch of 108 CTAs, each one whole tile.
  expect_launch(108, 80, 132, false, 108, 108, 0, 1);
  // 0.5B M = 256: 76 tiles of 14 k tiles, cut in 3 over all 132 CTAs.
  expect_launch(76, 14, 132, true, 132, 0, 76, 3);
  // Every case: the plan is split_tail_plan's on the launch's grid, and only a cut is cooperative.
  for (int tiles : {1, 5, 37, 108, 131, 132, 133, 216, 924}) {
    for (int k_tiles : {1, 8, 14, 80}) {
      for (int grid : {1, 5, 37, 132}) {
        const SplitTailLaunch launch = split_tail_launch(tiles, k_tiles, grid);
        const SplitTailPlan plan = split_tail_plan(tiles, k_tiles, launch.grid);
        EXPECT_EQ(launch.plan.dp_tiles, plan.dp_tiles);
        EXPECT_EQ(launch.plan.tail_tiles, plan.tail_tiles);
        EXPECT_EQ(launch.plan.pieces, plan.pieces);
        EXPECT_EQ(launch.cooperative, plan.pieces > 1);
        EXPECT_GE(launch.grid, 1);
        EXPECT_LE(launch.grid, grid);
        EXPECT_EQ(launch.grid, launch.cooperative ? grid : (tiles < grid ? tiles : grid));
      }
    }
  }
}

TEST(SplitTailPlan, EveryKTileOnceOwnersLastHandOversNeverWait) {
  for (int tiles : {1, 2, 5, 37, 72, 99, 131, 132, 133, 216, 232, 297, 432, 1404}) {
    for (int k_tiles : {1, 2, 3, 8, 14, 18, 33, 80, 128}) {
      for (int grid : {1, 2, 5, 30, 37, 132}) {
        const SplitTailPlan split = split_tail_plan(tiles, k_tiles, grid);
        ASSERT_EQ(split.dp_tiles + split.tail_tiles, tiles);
        ASSERT_EQ(split.dp_tiles % grid, 0);
        ASSERT_LT(split.tail_tiles, grid);
        ASSERT_GE(split.pieces, 1);
        ASSERT_LE(split.pieces, kSplitTailMaxPieces);
        if (split.pieces > 1) {
          ASSERT_GE(k_tiles / split.pieces, kSplitTailMinKTilesPerPiece);
        }
        std::vector<int> covered(size_t(tiles) * k_tiles, 0);
        for (int r = 0; r < grid; ++r) {
          for (int t = r; t < split.dp_tiles; t += grid) {
            for (int kt = 0; kt < k_tiles; ++kt) ++covered[size_t(t) * k_tiles + kt];
          }
          bool owned = false;
          for (int u = r; u < split.tail_tiles * split.pieces; u += grid) {
            ASSERT_FALSE(owned) << "an owning piece is its CTA's last unit";
            const int piece = u / split.tail_tiles;
            const int t = split.dp_tiles + u % split.tail_tiles;
            const int k_begin = split_tail_piece_k_begin(k_tiles, piece, split.pieces);
            const int k_end = split_tail_piece_k_begin(k_tiles, piece + 1, split.pieces);
            ASSERT_LT(k_begin, k_end);
            for (int kt = k_begin; kt < k_end; ++kt) ++covered[size_t(t) * k_tiles + kt];
            if (piece == split.pieces - 1) {
              owned = true;
            } else {
              ASSERT_LT(u, kSplitTailExchangeSlots) << "the hand-over's slot";
            }
          }
        }
        for (int v : covered) ASSERT_EQ(v, 1) << tiles << " " << k_tiles << " " << grid;
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace tileglu
