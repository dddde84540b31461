// The decode kernel's grid plan (src/kernels/decode_plan.h) and the decode configs' M bound: the
// split of K across a CTA's warps on the shapes the plan's comment works through, the invariants
// every plan keeps, and that no table, tuner or forced choice can run a decode config above
// max_m.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch/sm90_heuristics.h"
#include "kernels/decode_plan.h"
#include "kernels/tma_l2_promotion.h"
#include "kernels/swiglu_params.h"

namespace tileglu {
namespace kernels {
namespace {

// 132 SMs x 2 CTAs per SM (the kernel's launch bound).
constexpr int64_t kSlots = 264;

TEST(DecodePlan, Qwen72bSplitsKEightWays) {
  // I = 29568, K = 8192, 2 groups (16 columns) per warp: 1 slice -> 231 CTAs, 2 -> 462,
  // 4 -> 924, 8 -> 1848, the first at or above 4 x 264 = 1056.
  const DecodePlan plan = make_decode_plan(1, 8192, 29568, 8, 2, kSlots);
  EXPECT_EQ(plan.token_blocks, 1);
  EXPECT_EQ(plan.k_steps, 256);
  EXPECT_EQ(plan.k_slices, 8);
  EXPECT_EQ(plan.strips, 1848);
  EXPECT_EQ(plan.ctas, 1848);
}

TEST(DecodePlan, ShortKSplitsWhileEveryWarpHasTwoSteps) {
  // qwen2.5-0.5b: K = 896 is 28 steps. 16 tokens, 1 group per warp: 1 slice -> 76 CTAs,
  // 2 -> 152, 4 -> 304, 8 -> 608, all under the target of 1056, and 8 slices still leave 3-4
  // steps per warp: 8 slices, so every warp's loads go out in one batch.
  DecodePlan plan = make_decode_plan(16, 896, 4864, 16, 1, kSlots);
  EXPECT_EQ(plan.k_steps, 28);
  EXPECT_EQ(plan.k_slices, 8);
  EXPECT_EQ(plan.strips, 4864 / 8);  // one column set of 8 per CTA
  EXPECT_EQ(plan.ctas, plan.strips);
  // K = 96 is 3 steps: two slices would leave a warp one step, so no split.
  plan = make_decode_plan(1, 96, 4864, 8, 1, kSlots);
  EXPECT_EQ(plan.k_steps, 3);
  EXPECT_EQ(plan.k_slices, 1);
  // K = 128 is 4 steps: 2 slices of 2 steps, not 4 of 1.
  plan = make_decode_plan(1, 128, 4864, 8, 1, kSlots);
  EXPECT_EQ(plan.k_slices, 2);
  // K = 8 is a single step: no split at all, whatever the CTA count.
  plan = make_decode_plan(1, 8, 8, 8, 1, kSlots);
  EXPECT_EQ(plan.k_steps, 1);
  EXPECT_EQ(plan.k_slices, 1);
  EXPECT_EQ(plan.strips, 1);
  EXPECT_EQ(plan.ctas, 1);
}

TEST(DecodePlan, TokenBlocksCoverM) {
  // Token blocks of 8 and 16 (shipped) and of 32 and 64.
  for (int tokens : {8, 16, 32, 64}) {
    for (int m : {1, 7, 8, 9, 16, 17, 32, 33, 64}) {
      const DecodePlan plan = make_decode_plan(m, 4096, 1024, tokens, 1, kSlots);
      EXPECT_EQ(plan.token_blocks, (m + tokens - 1) / tokens) << tokens << " " << m;
      EXPECT_EQ(plan.ctas, plan.strips * plan.token_blocks) << tokens << " " << m;
      const DecodePlan stream = make_decode_stream_plan(m, 4096, 1024, tokens, 132);
      EXPECT_EQ(stream.token_blocks, plan.token_blocks) << tokens << " " << m;
    }
  }
}

TEST(DecodePlan, InvariantsOnEveryShape) {
  for (int m : {1, 3, 16, 64}) {
    for (int k : {8, 24, 32, 40, 896, 1096, 3584, 8192, 29568}) {
      for (int i : {8, 72, 1032, 4864, 29568}) {
        for (int groups : {1, 2}) {
          for (int64_t slots : {int64_t(1), int64_t(2), kSlots}) {
            const DecodePlan p = make_decode_plan(m, k, i, 8, groups, slots);
            SCOPED_TRACE(testing::Message() << "m=" << m << " k=" << k << " i=" << i
                                            << " groups=" << groups << " slots=" << slots);
            // A power of two dividing the 8 warps.
            EXPECT_TRUE(p.k_slices == 1 || p.k_slices == 2 || p.k_slices == 4 || p.k_slices == 8);
            // Every column is in some strip, and no strip is empty.
            const int64_t cols = int64_t(8) * groups * (kDecodeWarps / p.k_slices);
            EXPECT_GE(p.strips * cols, i);
            EXPECT_LT((p.strips - 1) * cols, i);
            EXPECT_TRUE(p.k_steps * kDecodeStepK >= k && (p.k_steps - 1) * kDecodeStepK < k);
            if (p.k_slices > 1) {
              // A split leaves every warp at least two steps.
              EXPECT_GE(p.k_steps, 2 * p.k_slices);
              // It splits only while the CTAs are below the target: with half the slices the
              // strips were twice as wide, at most half as many CTAs, and under it.
              EXPECT_LT(p.ctas / 2, kDecodeCtasPerSlot * slots);
            }
            // Same inputs, same plan.
            const DecodePlan again = make_decode_plan(m, k, i, 8, groups, slots);
            EXPECT_EQ(again.k_slices, p.k_slices);
            EXPECT_EQ(again.ctas, p.ctas);
          }
        }
      }
    }
  }
}

TEST(DecodePlan, DeepestSplitThatLeavesTwoStepsAndAPersistentGrid) {
  // qwen2.5-0.5b: 28 steps -> 8 slices, 8-column strips: 608 tasks over 132 CTAs.
  DecodePlan plan = make_decode_stream_plan(1, 896, 4864, 8, 132);
  EXPECT_EQ(plan.k_slices, 8);
  EXPECT_EQ(plan.strips, 608);
  EXPECT_EQ(plan.tasks, 608);
  EXPECT_EQ(plan.ctas, 132);
  // qwen2.5-72b at 9-16 tokens: 3696 strips, one token block.
  plan = make_decode_stream_plan(16, 8192, 29568, 16, 132);
  EXPECT_EQ(plan.k_slices, 8);
  EXPECT_EQ(plan.token_blocks, 1);
  EXPECT_EQ(plan.tasks, 3696);
  // 17 tokens at 16 per CTA: two token blocks per strip.
  plan = make_decode_stream_plan(17, 8192, 29568, 16, 132);
  EXPECT_EQ(plan.tasks, 2 * 3696);
  // Short K: 3 steps no split, 4 steps 2 slices, 8 steps 4 slices.
  EXPECT_EQ(make_decode_stream_plan(1, 96, 64, 8, 132).k_slices, 1);
  EXPECT_EQ(make_decode_stream_plan(1, 128, 64, 8, 132).k_slices, 2);
  EXPECT_EQ(make_decode_stream_plan(1, 256, 64, 8, 132).k_slices, 4);
  // Fewer tasks than SMs: one CTA per task.
  plan = make_decode_stream_plan(1, 8, 8, 8, 132);
  EXPECT_EQ(plan.k_slices, 1);
  EXPECT_EQ(plan.tasks, 1);
  EXPECT_EQ(plan.ctas, 1);
  for (int k : {8, 24, 32, 40, 64, 96, 128, 896, 1096, 8192}) {
    for (int i : {8, 72, 1032, 29568}) {
      const DecodePlan q = make_decode_stream_plan(3, k, i, 8, 132);
      SCOPED_TRACE(testing::Message() << "k=" << k << " i=" << i);
      EXPECT_TRUE(q.k_slices == 1 || q.k_slices == 2 || q.k_slices == 4 || q.k_slices == 8);
      if (q.k_slices > 1) {
        EXPECT_GE(q.k_steps, 2 * q.k_slices);  // every warp gets two steps or more
      }
      if (q.k_slices < kDecodeWarps) {
        EXPECT_LT(q.k_steps, 4 * q.k_slices);  // and the split is the deepest that allows it
      }
      const int64_t cols = int64_t(8) * (kDecodeWarps / q.k_slices);
      EXPECT_GE(q.strips * cols, i);
      EXPECT_LT((q.strips - 1) * cols, i);
      EXPECT_EQ(q.ctas, std::min<int64_t>(q.tasks, 132));
    }
  }
}

TEST(DecodeConfigs, ValidOnlyUpToMaxM) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  int decode = 0;
  for (int idx = 0; idx < count; ++idx) {
    const KernelEntry& e = registry[idx];
    if (std::strncmp(e.config.name, "k2_decode_", 10) != 0 &&
        (std::strncmp(e.config.name, "k2_swapab_", 10) != 0 ||
         std::strncmp(e.config.name, "k2_swapab_pp_", 13) == 0 ||  // the prefill ones: any M
         std::strncmp(e.config.name, "k2_swapab_coop_", 15) == 0 ||
         std::strncmp(e.config.name, "k2_swapab_rowcoop_", 18) == 0)) {
      EXPECT_EQ(e.config.max_m, 0) << e.config.name;
      continue;
    }
    ++decode;
    SCOPED_TRACE(e.config.name);
    // One token block reads the weights once: the bound is the block (64 tokens at most, 128
    // for the 128-token swap-AB config).
    const int max_m = std::strcmp(e.config.name, "k2_swapab_n128_s6") == 0 ? 128 : 64;
    EXPECT_EQ(e.config.max_m, max_m);
    EXPECT_FALSE(e.config.cost_model_candidate);  // runs from a measured table or when forced
    for (DType dtype : {DType::kBF16, DType::kFP16}) {
      dispatch::Shape s;
      s.k = 8192;
      s.i = 29568;
      s.dtype = dtype;
      for (int m : {1, 17, 64, max_m}) {
        s.m = m;
        EXPECT_TRUE(dispatch::is_valid(e, s)) << m;
      }
      for (int m : {max_m + 1, 256, 32768}) {
        s.m = m;
        EXPECT_FALSE(dispatch::is_valid(e, s)) << m;
      }
    }
  }
  EXPECT_EQ(decode, 24);  // 5 mma.sync decode configs, 9 swap-AB WGMMA, 5 balanced, 3 cluster and 2 grid stream-K
}

// The balanced persistent grid of the `_bal` swap-AB configs (decode_plan.h): every CTA gets the
// same number of units, or one fewer, and no more CTAs than fit on the GPU at once.
TEST(SwapABBalancedGrid, EqualRoundsAndResidentCtas) {
  // Qwen2.5 at M <= 16 on 132 SMs, one CTA per SM (units = 64-column tiles).
  EXPECT_EQ(swapab_balanced_grid(296, 132), 99);   // 7B: 3 units each (2.24 waves unbalanced)
  EXPECT_EQ(swapab_balanced_grid(462, 132), 116);  // 72B: 4 units each, two CTAs 3
  EXPECT_EQ(swapab_balanced_grid(216, 132), 108);  // 14B: 2 each
  EXPECT_EQ(swapab_balanced_grid(76, 132), 76);    // 0.5B: one unit per CTA, as unbalanced
  EXPECT_EQ(swapab_balanced_grid(296, 264), 148);  // two CTAs per SM
  EXPECT_EQ(swapab_balanced_grid(1, 132), 1);
  EXPECT_EQ(swapab_balanced_grid(5, 0), 5);        // no occupancy known: one round of all units
  for (int64_t units : {1, 7, 131, 132, 133, 264, 265, 1000, 3697}) {
    for (int64_t resident : {1, 2, 66, 132, 264}) {
      const int64_t grid = swapab_balanced_grid(units, resident);
      const int64_t rounds = (units + grid - 1) / grid;  // units of the busiest CTA
      EXPECT_LE(grid, std::max<int64_t>(resident, 1)) << units << " " << resident;
      EXPECT_EQ(rounds, (units + resident - 1) / resident) << units << " " << resident;  // no extra round
      EXPECT_GE(units, grid * (rounds - 1)) << units << " " << resident;  // the others get rounds - 1 or more
    }
  }
}

// The stream-K grid's cluster size (decode_plan.h): the smallest share per CTA, the smaller
// cluster on a tie, at most one cluster per unit, none where no cluster fits.
TEST(SwapABStreamKPlan, QwenShapesWhenEveryClusterSizeFillsTheGpu) {
  const int fits[kSwapABStreamKMaxSplits + 1] = {0, 0, 66, 44, 33};  // 132 SMs in whole clusters
  struct Expect {
    int64_t units;
    int splits, clusters;
  };
  for (const Expect e : {Expect{296, 4, 33},    // 7B: 9 units per cluster, 2.25 per CTA
                         Expect{216, 3, 44},    // 14B: 5 per cluster, 1.67 per CTA
                         Expect{432, 3, 44},    // 32B: 10 per cluster, 3.33 per CTA
                         Expect{462, 2, 66},    // 72B: 7 per cluster (S = 4 ties at 3.5)
                         Expect{76, 3, 44},     // 0.5B: 2 per cluster, 0.67 per CTA
                         Expect{10, 4, 10}}) {  // fewer units than clusters: one each, cut in 4
    const SwapABStreamKPlan plan = swapab_stream_k_plan(e.units, fits);
    EXPECT_EQ(plan.splits, e.splits) << e.units;
    EXPECT_EQ(plan.clusters, e.clusters) << e.units;
  }
  const int only_pairs[kSwapABStreamKMaxSplits + 1] = {0, 0, 60, 0, 0};
  EXPECT_EQ(swapab_stream_k_plan(296, only_pairs).splits, 2);
  EXPECT_EQ(swapab_stream_k_plan(296, only_pairs).clusters, 60);
  const int none[kSwapABStreamKMaxSplits + 1] = {};
  EXPECT_EQ(swapab_stream_k_plan(296, none).splits, 0);
}

// The stream-K shares cover every k tile of every unit exactly once; a segment cut at its start
// is its CTA's first, one cut at its end its CTA's last, and a cut unit's owner (k tile 0) is
// followed in rank order by exactly the CTAs that hold the rest of it: what the kernel's
// partial exchange and its two cluster-barrier phases rely on. Splits past 4 with one cluster are
// the grid stream-K grid (kSwapABGridStreamK: one run over G CTAs, up to kSwapABGridMaxCtas, some
// shares empty where G exceeds the k tiles), whose one exchange slot per CTA rests on the same
// rule: only a CTA's first segment is handed over.
TEST(SwapABStreamKShare, CoversEveryKTileOnceAndOrdersOwners) {
  for (int units : {1, 3, 10, 76, 296, 462}) {
    for (int k_tiles : {1, 2, 14, 56, 128}) {
      for (int splits : {2, 3, 4, 7, 132, kSwapABGridMaxCtas}) {
        for (int clusters : {1, 5, 33, 66}) {
          if (clusters > units || (splits > 4 && clusters > 1)) continue;
          std::vector<int> covered(size_t(units) * k_tiles, 0);
          for (int c = 0; c < clusters; ++c) {
            // For each unit of the cluster: the ranks holding part of it, in order.
            std::vector<std::vector<int>> holders(static_cast<size_t>(units));
            for (int r = 0; r < splits; ++r) {
              const SwapABStreamKShare share(units, clusters, splits, k_tiles, c, r);
              int segment = 0;
              for (int64_t pos = share.begin; pos < share.end; ++segment) {
                const SwapABSegment seg = share.segment_at(pos, k_tiles);
                ASSERT_LT(seg.k_begin, seg.k_end);
                ASSERT_LE(seg.k_end, k_tiles);
                if (seg.k_begin > 0) {
                  EXPECT_EQ(segment, 0) << units << " " << k_tiles << " " << splits;
                }
                if (seg.k_begin == 0 && seg.k_end < k_tiles) {
                  EXPECT_EQ(pos + (seg.k_end - seg.k_begin), share.end);
                }
                for (int kt = seg.k_begin; kt < seg.k_end; ++kt) ++covered[size_t(seg.unit) * k_tiles + kt];
                holders[size_t(seg.unit)].push_back(r);
                pos += seg.k_end - seg.k_begin;
              }
            }
            // The owner's walk in the kernel: peers after it while their share starts in the unit.
            for (int u = 0; u < units; ++u) {
              if (holders[size_t(u)].size() < 2) continue;
              const int owner = holders[size_t(u)][0];
              const SwapABStreamKShare share(units, clusters, splits, k_tiles, c, owner);
              const int64_t unit_last = int64_t(u - share.first_unit + 1) * k_tiles - 1;
              std::vector<int> peers = {owner};
              for (int peer = owner + 1; peer < splits && share.range_begin(peer, splits) <= unit_last; ++peer) {
                if (share.range_begin(peer, splits) == share.range_begin(peer + 1, splits)) continue;
                peers.push_back(peer);
              }
              EXPECT_EQ(peers, holders[size_t(u)]) << units << " " << k_tiles << " " << splits << " " << u;
            }
          }
          for (int v : covered) ASSERT_EQ(v, 1) << units << " " << k_tiles << " " << splits << " " << clusters;
        }
      }
    }
  }
}

// The grid stream-K grid: every resident CTA, at most kSwapABGridMaxCtas, and no more than leave
// each CTA kSwapABMinKTilesPerCta k tiles.
TEST(SwapABGridStreamK, CtasAndForcedGrid) {
  EXPECT_EQ(swapab_grid_stream_k_ctas(296, 56, 132), 132);   // qwen2.5-7b: 125.6 k tiles per CTA
  EXPECT_EQ(swapab_grid_stream_k_ctas(462, 128, 264), kSwapABGridMaxCtas);
  EXPECT_EQ(swapab_grid_stream_k_ctas(1, 8, 132), 2);        // 8 k tiles: 2 CTAs of 4
  EXPECT_EQ(swapab_grid_stream_k_ctas(1, 2, 132), 1);
  EXPECT_EQ(swapab_grid_stream_k_ctas(0, 56, 132), 1);
  EXPECT_EQ(swapab_grid_stream_k_ctas(296, 56, 0), 1);       // occupancy unknown: one CTA
  EXPECT_EQ(parse_swapab_grid(nullptr), 0);
  EXPECT_EQ(parse_swapab_grid(""), 0);
  EXPECT_EQ(parse_swapab_grid("1"), 1);
  EXPECT_EQ(parse_swapab_grid("132"), 132);
  EXPECT_EQ(parse_swapab_grid("160"), 160);
  EXPECT_EQ(parse_swapab_grid("161"), -1);
  EXPECT_EQ(parse_swapab_grid("0"), -1);
  EXPECT_EQ(parse_swapab_grid("-3"), -1);
  EXPECT_EQ(parse_swapab_grid("12x"), -1);
  EXPECT_EQ(parse_swapab_grid("99999999999999999999"), -1);
}

// The staggered sweep reads every k tile of a whole unit exactly once, starting at col_blk x S
// (mod k_tiles); cut pieces and S = 0 keep the plain order.
TEST(SwapABReadKnobs, StaggerIsAPermutation) {
  EXPECT_EQ(swapab_k_rotation(3, 1, 128, true), 3);
  EXPECT_EQ(swapab_k_rotation(131, 1, 128, true), 3);
  EXPECT_EQ(swapab_k_rotation(5, 7, 14, true), 7);       // 35 mod 14
  EXPECT_EQ(swapab_k_rotation(461, 1000, 128, true), int(461LL * 1000 % 128));
  EXPECT_EQ(swapab_k_rotation(5, 7, 14, false), 0);      // a cut piece
  EXPECT_EQ(swapab_k_rotation(5, 0, 14, true), 0);
  EXPECT_EQ(swapab_k_rotation(5, 7, 0, true), 0);
  for (int k_tiles : {1, 2, 14, 57, 128}) {
    for (int col_blk : {0, 1, 9, 131, 461}) {
      const int rotation = swapab_k_rotation(col_blk, 7, k_tiles, true);
      ASSERT_GE(rotation, 0);
      ASSERT_LT(rotation, k_tiles);
      std::vector<int> seen(k_tiles, 0);
      for (int step = 0; step < k_tiles; ++step) {
        const int kt = swapab_staggered_k_tile(step, rotation, k_tiles);
        ASSERT_GE(kt, 0);
        ASSERT_LT(kt, k_tiles);
        ++seen[kt];
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), k_tiles) << "k_tiles " << k_tiles << " col_blk " << col_blk;
      EXPECT_EQ(swapab_staggered_k_tile(0, rotation, k_tiles), rotation);
    }
  }
}

// The weight-read knobs (decode_plan.h): a stage count per producer batch, the sweep's k stagger
// and the weight descriptors' L2 promotion; anything else is -1, which the launcher names and ignores.
TEST(SwapABReadKnobs, Parse) {
  EXPECT_EQ(parse_decimal_at_most("0", 5), 0);
  EXPECT_EQ(parse_decimal_at_most("05", 5), 5);
  EXPECT_EQ(parse_decimal_at_most("6", 5), -1);
  EXPECT_EQ(parse_decimal_at_most("+1", 5), -1);
  EXPECT_EQ(parse_decimal_at_most("99999999999999999999", 1 << 30), -1);
  EXPECT_EQ(parse_swapab_issue_batch(nullptr), 0);
  EXPECT_EQ(parse_swapab_issue_batch(""), 0);
  EXPECT_EQ(parse_swapab_issue_batch("1"), 1);
  EXPECT_EQ(parse_swapab_issue_batch("4"), 4);
  EXPECT_EQ(parse_swapab_issue_batch("8"), kSwapABMaxIssueBatch);
  EXPECT_EQ(parse_swapab_issue_batch("9"), -1);
  EXPECT_EQ(parse_swapab_issue_batch("0"), -1);
  EXPECT_EQ(parse_swapab_issue_batch("12"), -1);
  EXPECT_EQ(parse_swapab_issue_batch("2x"), -1);
  EXPECT_EQ(parse_swapab_issue_batch("-2"), -1);
  EXPECT_EQ(parse_swapab_k_stagger(nullptr), 0);
  EXPECT_EQ(parse_swapab_k_stagger(""), 0);
  EXPECT_EQ(parse_swapab_k_stagger("0"), 0);
  EXPECT_EQ(parse_swapab_k_stagger("1"), 1);
  EXPECT_EQ(parse_swapab_k_stagger("37"), 37);
  EXPECT_EQ(parse_swapab_k_stagger("1024"), kSwapABMaxKStagger);
  EXPECT_EQ(parse_swapab_k_stagger("1025"), -1);
  EXPECT_EQ(parse_swapab_k_stagger("-1"), -1);
  EXPECT_EQ(parse_swapab_k_stagger("3k"), -1);
  EXPECT_EQ(parse_swapab_k_stagger("99999999999"), -1);
  EXPECT_EQ(parse_swapab_packed_weights(nullptr), 0);
  EXPECT_EQ(parse_swapab_packed_weights(""), 0);
  EXPECT_EQ(parse_swapab_packed_weights("0"), 0);
  EXPECT_EQ(parse_swapab_packed_weights("1"), kSwapABPackedTileOrder);
  EXPECT_EQ(parse_swapab_packed_weights("2"), kSwapABPackedKOrder);
  EXPECT_EQ(parse_swapab_packed_weights("3"), -1);
  EXPECT_EQ(parse_swapab_packed_weights("01"), -1);
  EXPECT_EQ(parse_swapab_packed_weights("yes"), -1);
  EXPECT_EQ(parse_tma_l2_promotion(nullptr), 0);
  EXPECT_EQ(parse_tma_l2_promotion(""), 0);
  EXPECT_EQ(parse_tma_l2_promotion("none"), 1);
  EXPECT_EQ(parse_tma_l2_promotion("64"), 64);
  EXPECT_EQ(parse_tma_l2_promotion("128"), 128);
  EXPECT_EQ(parse_tma_l2_promotion("256"), 256);
  EXPECT_EQ(parse_tma_l2_promotion("512"), -1);
  EXPECT_EQ(parse_tma_l2_promotion("256B"), -1);
  EXPECT_EQ(parse_tma_l2_promotion("NONE"), -1);
  EXPECT_EQ(parse_tma_l2_promotion("2"), -1);
}

// The weight descriptors' default L2 promotion per device (tma_l2_promotion.h): 256 bytes on the
// H100 (measured faster there), CuTe's 128 on the H200 (measured faster there) and on anything
// not measured; every kernel family alike for now.
TEST(WeightTmaL2Promotion, DefaultByDevice) {
  for (WeightReader reader : {WeightReader::kSwapABStream, WeightReader::kSwapABPingpong, WeightReader::kTiled}) {
    EXPECT_EQ(default_weight_tma_l2_promotion("NVIDIA H100 80GB HBM3", reader), 256);
    EXPECT_EQ(default_weight_tma_l2_promotion("NVIDIA H200", reader), 128);
    EXPECT_EQ(default_weight_tma_l2_promotion("NVIDIA H20", reader), 128);
    EXPECT_EQ(default_weight_tma_l2_promotion("", reader), 128);
    EXPECT_EQ(default_weight_tma_l2_promotion(nullptr, reader), 128);
  }
}

// The swap-AB kernel's split of K over a cluster (decode_plan.h): the Qwen2.5 shapes on 132 SMs
// run unsplit (the session-5 sweep), and only units that leave over half the SMs idle split.
TEST(SwapABSplits, QwenShapes) {
  EXPECT_EQ(swapab_splits(76, 14, 132), 1);    // qwen2.5-0.5b: 76 units, 9.8 us unsplit, 13.2 in 2
  EXPECT_EQ(swapab_splits(140, 24, 132), 1);   // qwen2.5-1.5b
  EXPECT_EQ(swapab_splits(296, 56, 132), 1);   // qwen2.5-7b
  EXPECT_EQ(swapab_splits(462, 128, 132), 1);  // qwen2.5-72b
}

TEST(SwapABSplits, SplitsOnlyToCoverHalfTheSms) {
  EXPECT_EQ(swapab_splits(65, 128, 132), 2);   // 130 CTAs
  EXPECT_EQ(swapab_splits(33, 128, 132), 2);   // 66 CTAs: exactly half
  EXPECT_EQ(swapab_splits(32, 128, 132), 3);   // 96
  EXPECT_EQ(swapab_splits(1, 128, 132), 8);    // a portable cluster at most
  EXPECT_EQ(swapab_splits(1, 12, 132), 3);     // every CTA keeps 4 k tiles
  EXPECT_EQ(swapab_splits(1, 7, 132), 1);
  for (int64_t units : {1, 2, 7, 33, 65, 66, 76, 264, 100000}) {
    for (int k_tiles : {1, 2, 3, 4, 8, 15, 16, 17, 128, 463}) {
      for (int sms : {1, 2, 78, 114, 132}) {
        const int s = swapab_splits(units, k_tiles, sms);
        SCOPED_TRACE(testing::Message() << units << " " << k_tiles << " " << sms);
        EXPECT_GE(s, 1);
        EXPECT_LE(s, kSwapABMaxSplits);
        const int64_t half = std::max(sms / 2, 1);
        if (units >= half) {
          EXPECT_EQ(s, 1);
        }
        if (s > 1) {
          EXPECT_GE(k_tiles, kSwapABMinKTilesPerCta * s);
          EXPECT_LT(units * (s - 1), half);  // no fewer CTAs per unit would cover half the SMs
        }
      }
    }
  }
  EXPECT_EQ(swapab_splits(0, 14, 132), 1);
  EXPECT_EQ(swapab_splits(76, 0, 132), 1);
  EXPECT_EQ(swapab_splits(1, 128, 0), swapab_splits(1, 128, 1));
}

TEST(SwapABSplits, ParsesTheOverride) {
  EXPECT_EQ(parse_swapab_splits(nullptr), 0);
  EXPECT_EQ(parse_swapab_splits(""), 0);
  for (int s = 1; s <= kSwapABMaxSplits; ++s) {
    const char value[2] = {char('0' + s), '\0'};
    EXPECT_EQ(parse_swapab_splits(value), s);
  }
  for (const char* bad : {"0", "9", "-1", "x", "3x", " 3", "12"}) {
    EXPECT_EQ(parse_swapab_splits(bad), -1) << bad;
  }
}

// What packed weights cannot serve (the rule the C API and the launcher share): a bad value, I or
// K not a multiple of 64, 2^31 packed rows or more; nothing when nothing is packed.
TEST(SwapABReadKnobs, PackedWeightsRefusal) {
  EXPECT_EQ(swapab_packed_weights_refusal(0, 200, 1000), nullptr);
  EXPECT_EQ(swapab_packed_weights_refusal(kSwapABPackedTileOrder, 29568, 8192), nullptr);
  EXPECT_EQ(swapab_packed_weights_refusal(kSwapABPackedKOrder, 64, 64), nullptr);
  EXPECT_NE(swapab_packed_weights_refusal(-1, 64, 64), nullptr);
  EXPECT_NE(swapab_packed_weights_refusal(kSwapABPackedTileOrder, 200, 1024), nullptr);
  EXPECT_NE(swapab_packed_weights_refusal(kSwapABPackedKOrder, 256, 1000), nullptr);
  // 2 I K / 64 = 2^31 exactly: one row past what an int32 box coordinate addresses.
  EXPECT_NE(swapab_packed_weights_refusal(kSwapABPackedTileOrder, int64_t(1) << 16, int64_t(1) << 20), nullptr);
  EXPECT_EQ(swapab_packed_weights_refusal(kSwapABPackedTileOrder, int64_t(1) << 16, (int64_t(1) << 20) - 64),
            nullptr);
}

// The packed weights' boxes (TILEGLU_SWAPAB_PACKED_WEIGHTS): a slot (tile, k tile) is 16 KiB, its
// gate box then its up box; tile order runs each tile's K contiguously, k order all tiles' k tile
// 0 first. In either order every box of a shape has its own 64 rows and together they cover the
// [2 I K / 64, 64] view exactly once.
TEST(SwapABReadKnobs, PackedBoxRows) {
  constexpr int kTile = kSwapABPackedTileOrder, kK = kSwapABPackedKOrder;
  EXPECT_EQ(swapab_packed_box_row(kTile, 0, 0, 7, 16, 0), 0);
  EXPECT_EQ(swapab_packed_box_row(kTile, 0, 0, 7, 16, 1), 64);
  EXPECT_EQ(swapab_packed_box_row(kTile, 0, 1, 7, 16, 0), 128);
  EXPECT_EQ(swapab_packed_box_row(kTile, 1, 0, 7, 16, 0), 16 * 128);
  EXPECT_EQ(swapab_packed_box_row(kK, 1, 0, 7, 16, 0), 128);
  EXPECT_EQ(swapab_packed_box_row(kK, 0, 1, 7, 16, 0), 7 * 128);
  // qwen2.5-72b's last box: I = 29568 (462 tiles), K = 8192 (128 k tiles); rows fit an int32.
  const int64_t rows_72b = int64_t(2) * 29568 * 8192 / 64;
  EXPECT_EQ(swapab_packed_box_row(kTile, 461, 127, 462, 128, 1) + 64, rows_72b);
  EXPECT_EQ(swapab_packed_box_row(kK, 461, 127, 462, 128, 1) + 64, rows_72b);
  const int tiles = 5, k_tiles = 3;
  for (int order : {kTile, kK}) {
    std::vector<int> seen(size_t(2 * tiles * k_tiles), 0);
    for (int t = 0; t < tiles; ++t) {
      for (int j = 0; j < k_tiles; ++j) {
        for (int h = 0; h < 2; ++h) {
          const int64_t row = swapab_packed_box_row(order, t, j, tiles, k_tiles, h);
          ASSERT_EQ(row % 64, 0);
          ASSERT_LT(row / 64, int64_t(seen.size()));
          ++seen[size_t(row / 64)];
        }
      }
    }
    for (int n : seen) EXPECT_EQ(n, 1) << "order " << order;
  }
}

}  // namespace
}  // namespace kernels
}  // namespace tileglu
