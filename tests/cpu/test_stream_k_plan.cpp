// The grid stream-K Cooperative tile's plan (src/kernels/stream_k_plan.h): the grid, the split of
// the tiles into whole and stream-K ones, and, walking every CTA's units as the kernel does, that
// every (tile, k tile) is computed exactly once, that each cut tile has one owner that reaches it
// last and whose peer walk finds exactly the CTAs holding the rest of it, and that those hand
// their part over first.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/stream_k_plan.h"

namespace tileglu {
namespace kernels {
namespace {

TEST(TiledStreamKPlan, QwenShapesAndGrid) {
  // qwen2.5-14b M = 256: 2 x 108 tiles of 80 k tiles on 132 SMs: one wave and 84 tiles, so no
  // tile runs whole and all 216 are one run of 130.9 k tiles per CTA.
  EXPECT_EQ(tiled_stream_k_ctas(216, 80, 132), 132);
  TiledStreamKSplit s = tiled_stream_k_split(216, 132);
  EXPECT_EQ(s.dp_tiles, 0);
  EXPECT_EQ(s.sk_tiles, 216);
  // qwen2.5-32b M = 256: 432 tiles, 3.27 waves: two waves whole, the last 168 tiles streamed.
  s = tiled_stream_k_split(432, 132);
  EXPECT_EQ(s.dp_tiles, 264);
  EXPECT_EQ(s.sk_tiles, 168);
  // Whole waves: nothing cut.
  s = tiled_stream_k_split(264, 132);
  EXPECT_EQ(s.dp_tiles, 264);
  EXPECT_EQ(s.sk_tiles, 0);
  // Fewer tiles than CTAs: all streamed.
  s = tiled_stream_k_split(38, 132);
  EXPECT_EQ(s.dp_tiles, 0);
  EXPECT_EQ(s.sk_tiles, 38);
  EXPECT_EQ(tiled_stream_k_ctas(38, 14, 132), 132);
  EXPECT_EQ(tiled_stream_k_ctas(2, 16, 132), 8);  // 32 k tiles: 8 CTAs of 4
  EXPECT_EQ(tiled_stream_k_ctas(1, 2, 132), 1);
  EXPECT_EQ(tiled_stream_k_ctas(5000, 80, 144), kTiledStreamKMaxCtas);  // the exchange's slots
  EXPECT_EQ(tiled_stream_k_ctas(216, 80, 0), 1);                       // occupancy unknown
  EXPECT_EQ(tiled_stream_k_ctas(0, 80, 132), 1);
  EXPECT_EQ(parse_stream_k_grid(nullptr), 0);
  EXPECT_EQ(parse_stream_k_grid(""), 0);
  EXPECT_EQ(parse_stream_k_grid("1"), 1);
  EXPECT_EQ(parse_stream_k_grid("132"), 132);
  EXPECT_EQ(parse_stream_k_grid("133"), -1);
  EXPECT_EQ(parse_stream_k_grid("0"), -1);
  EXPECT_EQ(parse_stream_k_grid("5x"), -1);
}

TEST(TiledStreamKPlan, EveryKTileOnceOneOwnerReachedLast) {
  for (int tiles : {1, 2, 5, 37, 72, 131, 132, 133, 216, 297, 432, 1404}) {
    for (int k_tiles : {1, 2, 3, 14, 18, 80, 128}) {
      for (int grid : {1, 2, 5, 37, 132}) {
        const TiledStreamKSplit split = tiled_stream_k_split(tiles, grid);
        ASSERT_EQ(split.dp_tiles + split.sk_tiles, tiles);
        ASSERT_EQ(split.dp_tiles % grid, 0);  // whole tiles fill whole waves
        // At most two waves' worth streamed where a wave fits, so a CTA's share is under two tiles.
        if (tiles >= grid) ASSERT_LT(split.sk_tiles, 2 * grid);
        std::vector<int> covered(size_t(tiles) * k_tiles, 0);
        std::vector<std::vector<int>> holders(static_cast<size_t>(tiles));  // ranks holding part of a cut tile
        std::vector<int> hand_over_index(size_t(grid), -1), own_index(size_t(grid), -1);
        std::vector<int> units_of(size_t(grid), 0);
        for (int r = 0; r < grid; ++r) {
          int unit = 0;
          for (int t = r; t < split.dp_tiles; t += grid, ++unit) {
            for (int kt = 0; kt < k_tiles; ++kt) ++covered[size_t(t) * k_tiles + kt];
          }
          const SwapABStreamKShare share(split.sk_tiles, 1, grid, k_tiles, 0, r);
          for (int64_t pos = share.begin; pos < share.end; ++unit) {
            const SwapABSegment seg = share.segment_at(pos, k_tiles);
            ASSERT_LT(seg.k_begin, seg.k_end);
            ASSERT_LE(seg.k_end, k_tiles);
            const int tile = split.dp_tiles + seg.unit;
            for (int kt = seg.k_begin; kt < seg.k_end; ++kt) ++covered[size_t(tile) * k_tiles + kt];
            if (seg.k_begin > 0) {
              ASSERT_EQ(hand_over_index[size_t(r)], -1) << "one hand-over per CTA";
              hand_over_index[size_t(r)] = unit;
            }
            if (seg.k_begin == 0 && seg.k_end < k_tiles) {
              ASSERT_EQ(own_index[size_t(r)], -1) << "one owned cut tile per CTA";
              own_index[size_t(r)] = unit;
            }
            if (seg.k_end - seg.k_begin < k_tiles) holders[size_t(tile)].push_back(r);
            pos += seg.k_end - seg.k_begin;
          }
          units_of[size_t(r)] = unit;
        }
        for (int v : covered) ASSERT_EQ(v, 1) << tiles << " " << k_tiles << " " << grid;
        for (int r = 0; r < grid; ++r) {
          // The hand-over is the CTA's first stream-K unit (right after its whole tiles), the
          // owned tile its last unit: an owner waits only on parts swept before its own.
          const int whole = (split.dp_tiles - r + grid - 1) / grid;
          if (hand_over_index[size_t(r)] >= 0) {
            EXPECT_EQ(hand_over_index[size_t(r)], whole);
          }
          if (own_index[size_t(r)] >= 0) {
            EXPECT_EQ(own_index[size_t(r)], units_of[size_t(r)] - 1);
          }
        }
        // The owner's walk in the kernel finds exactly the holders, in rank order.
        for (int t = split.dp_tiles; t < tiles; ++t) {
          const std::vector<int>& h = holders[size_t(t)];
          if (h.empty()) continue;
          ASSERT_GE(h.size(), 2u);
          const int owner = h[0];
          const SwapABStreamKShare share(split.sk_tiles, 1, grid, k_tiles, 0, owner);
          const int64_t owned_last = int64_t(t - split.dp_tiles + 1) * k_tiles - 1;
          std::vector<int> walk = {owner};
          for (int peer = owner + 1; peer < grid && share.range_begin(peer, grid) <= owned_last; ++peer) {
            if (share.range_begin(peer, grid) == share.range_begin(peer + 1, grid)) continue;
            walk.push_back(peer);
          }
          EXPECT_EQ(walk, h) << tiles << " " << k_tiles << " " << grid << " tile " << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace tileglu
