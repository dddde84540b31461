// The wave-split plan (src/kernels/wave_split.h): where it splits the output columns, where it
// keeps one launch, and the invariants of every split (a multiple of the tile width inside I, the
// head's tiles in whole waves, fewer modelled wave times than one launch).
#include <gtest/gtest.h>

#include "kernels/wave_split.h"

namespace tileglu {
namespace kernels {
namespace {

constexpr int kSms = 132;  // H100 SXM / H200

TEST(WaveSplit, Qwen7bAt256TokensSplitsAfterFourWaves) {
  // 2 x 296 = 592 tiles = 4.48 waves (timed as 5); 264 column tiles x 2 = 528 = 4 whole waves,
  // the last 18944 - 16896 = 2048 columns as 4 x 32 = 128 tiles of 64x64: one half-size wave.
  const WaveSplit plan = plan_wave_split(256, 18944, kSms);
  EXPECT_EQ(plan.split_col, 16896);
  EXPECT_DOUBLE_EQ(plan.waves_single, 5.0);
  EXPECT_NEAR(plan.waves_split, 4.0 + 0.5 / 0.9, 1e-12);
}

TEST(WaveSplit, Qwen14bAt256TokensSplitsAfterThreeWaves) {
  // 2 x 216 = 432 tiles = 3.27 waves; 198 column tiles = 3 waves, then 4 x 18 = 72 small tiles.
  const WaveSplit plan = plan_wave_split(256, 13824, kSms);
  EXPECT_EQ(plan.split_col, 198 * 64);
  EXPECT_DOUBLE_EQ(plan.waves_single, 4.0);
}

TEST(WaveSplit, WholeWavesAndLargeMKeepOneLaunch) {
  // 72B M = 256: 2 x 462 = 924 tiles = 7.0 waves exactly.
  EXPECT_EQ(plan_wave_split(256, 29568, kSms).split_col, 0);
  // 7B M = 16384: 128 x 296 = 37888 tiles = 287.03 waves; the split would save under a quarter
  // of a wave.
  EXPECT_EQ(plan_wave_split(16384, 18944, kSms).split_col, 0);
  // Fewer tiles than SMs: no whole wave to keep.
  EXPECT_EQ(plan_wave_split(128, 4096, kSms).split_col, 0);
}

TEST(WaveSplit, BadArgumentsKeepOneLaunch) {
  EXPECT_EQ(plan_wave_split(0, 18944, kSms).split_col, 0);
  EXPECT_EQ(plan_wave_split(256, 0, kSms).split_col, 0);
  EXPECT_EQ(plan_wave_split(256, 18944, 0).split_col, 0);
}

TEST(WaveSplit, EverySplitKeepsItsInvariants) {
  int splits = 0;
  for (int sms : {78, 114, 132}) {
    for (int64_t m : {1, 17, 100, 128, 256, 300, 512, 1000, 1537, 2048, 5000}) {
      for (int64_t i = 8; i <= 32768; i += i < 1024 ? 8 : 136) {
        const WaveSplit plan = plan_wave_split(m, i, sms);
        if (plan.split_col == 0) continue;
        ++splits;
        SCOPED_TRACE("m=" + std::to_string(m) + " i=" + std::to_string(i) + " sms=" + std::to_string(sms));
        EXPECT_EQ(plan.split_col % kWaveSplitTileN, 0);
        EXPECT_GT(plan.split_col, 0);
        EXPECT_LT(plan.split_col, i);
        const int64_t tiles_m = (m + kWaveSplitHeadTileM - 1) / kWaveSplitHeadTileM;
        const int64_t head_tiles = tiles_m * (plan.split_col / kWaveSplitTileN);
        const int64_t all_tiles = tiles_m * ((i + kWaveSplitTileN - 1) / kWaveSplitTileN);
        EXPECT_LE(head_tiles, all_tiles / sms * sms);  // the head fills whole waves only
        EXPECT_LE(plan.waves_split + kWaveSplitMinSavedWaves, plan.waves_single);
      }
    }
  }
  EXPECT_GT(splits, 100);  // the loop above did test splits
}

}  // namespace
}  // namespace kernels
}  // namespace tileglu
