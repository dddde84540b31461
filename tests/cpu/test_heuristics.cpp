// The dispatch heuristics: the cost model on the worked examples of sm90_heuristics.cpp (no
// multicast discount, no-cluster tie-break), the registry's entries, TILEGLU_ACCUMULATION,
// TILEGLU_FORCE_CONFIG, TILEGLU_LOG_DISPATCH, and Kernel-1 (valid, never a cost-model candidate).
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "dispatch/sm90_heuristics.h"
#include "test_dispatch_helpers.h"
#include "kernels/swiglu_params.h"
#include "tileglu/tileglu.h"

namespace tileglu {
namespace dispatch {
namespace {

using tileglu_test::fake_launch;
using tileglu_test::ScopedEnv;

// The shipped configurations (as in src/kernels/registry.cpp), with launchers never called.
const KernelEntry kEntries[] = {
    {{"k2_pingpong_128x64x64_s6", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
    {{"k2_pingpong_128x64x64_c2_s6", 2, 128, 64, 64, 6, 1, 2, 0, 1, true, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x64x64_s8", 2, 64, 64, 64, 8, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x64x64_p8_s8", 2, 64, 64, 64, 8, 1, 1, 8, 1, true, false}, fake_launch, fake_launch},
    {{"k1_pingpong_128x64x64_s6", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k1_pingpong_128x64x64_s6_serial", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, true}, fake_launch, fake_launch},
    {{"k1_pingpong_128x64x64_s6_sequential", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, true}, fake_launch, fake_launch},
    {{"k2_pingpong_64x128x64_s5", 2, 64, 128, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k1_pingpong_64x128x64_s5", 1, 64, 128, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x32x64_s12", 2, 64, 32, 64, 12, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x128x64_s4", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_128x64x64_s6_tma", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x64x64_s8_tma", 2, 64, 64, 64, 8, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x128x64_s4_tma", 2, 64, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x128x64_s4_tma", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_128x64x64_c2_s6_tma", 2, 128, 64, 64, 6, 1, 2, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x128x64_c2_s4_tma", 2, 128, 128, 64, 4, 1, 2, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_128x64x64_m2_s6_tma", 2, 128, 64, 64, 6, 2, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x128x64_m2_s4_tma", 2, 128, 128, 64, 4, 2, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x96x64_s6", 2, 64, 96, 64, 6, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x128x128_s2", 2, 64, 128, 128, 2, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x64x128_s4", 2, 64, 64, 128, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_128x64x128_s3", 2, 128, 64, 128, 3, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_splitk2_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 2, false, false}, fake_launch, fake_launch},
    {{"k2_splitk4_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 4, false, false}, fake_launch, fake_launch},
    {{"k2_splitk8_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 8, false, false}, fake_launch, fake_launch},
    {{"k2_decode_n8_c8_u4", 2, 8, 8, 128, 1, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_decode_n8_c8_u6", 2, 8, 8, 192, 1, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_decode_n16_c8_u4", 2, 16, 8, 128, 1, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_decode_stream_n8_p16", 2, 8, 8, 512, 16, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_decode_stream_n16_p12", 2, 16, 8, 384, 12, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n8_s6", 2, 8, 64, 64, 6, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n8_s12", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s6", 2, 16, 64, 64, 6, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s11", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n32_s5", 2, 32, 64, 64, 5, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n32_s10", 2, 32, 64, 64, 10, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n64_s9", 2, 64, 64, 64, 9, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n128_s6", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false, 128}, fake_launch, fake_launch},
    {{"k2_coop_128x64x64_p8_s6_tma", 2, 128, 64, 64, 6, 1, 1, 8, 1, true, false}, fake_launch, fake_launch},
    {{"k2_coop_128x64x64_p4_s6_tma", 2, 128, 64, 64, 6, 1, 1, 4, 1, false, false}, fake_launch, fake_launch},
    {{"k2_wavesplit_128x64_64x64_tma", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_n8_s12_bal", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s11_bal", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s6_bal", 2, 16, 64, 64, 6, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n32_s10_bal", 2, 32, 64, 64, 10, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n64_s9_bal", 2, 64, 64, 64, 9, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n8_s12_sk", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s11_sk", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n32_s9_sk", 2, 32, 64, 64, 9, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n8_s12_gsk", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_n16_s11_gsk", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64}, fake_launch, fake_launch},
    {{"k2_swapab_pp_c96_n128_s5", 2, 128, 96, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_pp_c96_n112_s5", 2, 112, 96, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_pp_c64_n176_s5", 2, 176, 64, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c96_n176_s4", 2, 176, 96, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c96_n224_s4", 2, 224, 96, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c96_n256_s4", 2, 256, 96, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c128_n128_s4", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x128x64_s4_tma_split", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x112x64_s4_tma", 2, 128, 112, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x112x64_s5_tma", 2, 64, 112, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_pingpong_64x48x64_s10_tma", 2, 64, 48, 64, 10, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_coop_128x112x64_m2_s4_tma", 2, 128, 112, 64, 4, 2, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c64_n224_s5", 2, 224, 64, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_rowcoop_c128_n144_s4", 2, 144, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_rowcoop_c128_n144_x2_s4", 2, 144, 128, 64, 4, 1, 2, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c96_n224_x2_s4", 2, 224, 96, 64, 4, 1, 2, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_rowcoop_c128_n144_fs_s4", 2, 144, 128, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"k2_swapab_coop_c96_n224_fs_s4", 2, 224, 96, 64, 4, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
};
constexpr int kEntryCount = 71;
constexpr int kS6 = 0;        // 128x64
constexpr int kC2 = 1;        // 128x64, cluster 1x2 multicasting X
constexpr int kS8 = 2;        // 64x64
constexpr int kP8 = 3;        // 64x64, FADD-promoted accumulation every 8 k tiles
constexpr int kK1 = 4;        // Kernel-1 128x64: separate gate and up accumulators (forced only)
constexpr int kK1Serial = 5;  // the same with the epilogue serialized: the overlap ablation
constexpr int kK1Sequential = 6;  // gate K sweep, then up K sweep with SiLU meanwhile: an ablation
constexpr int kKernel2Count = 4;  // kEntries[0, 4): the Kernel-2 configs
constexpr int kCoopP8 = 40;   // Cooperative 128x64, promoted every 8 k tiles (chunked)

Shape shape(int m, int k, int i, DType dtype = DType::kBF16) {
  Shape s;
  s.m = m;
  s.k = k;
  s.i = i;
  s.dtype = dtype;
  return s;
}

int choose(int m, int i, int sm_count = 132) {
  return choose_from(kEntries, kEntryCount, shape(m, 4096, i), sm_count);
}

// Only the two unclustered configs: the 128-row vs 64-row trade-off on its own.
const KernelEntry kUnclustered[] = {kEntries[kS6], kEntries[kS8]};

int choose_unclustered(int m, int i, int sm_count = 132) {
  return choose_from(kUnclustered, 2, shape(m, 4096, i), sm_count) == 0 ? kS6 : kS8;
}

// Sets an environment variable for one test and restores the old value afterwards.

// choose_kernel() without the tuning tables: what the cost model (and TILEGLU_FORCE_CONFIG,
// TILEGLU_ACCUMULATION, TILEGLU_LOG_DISPATCH) make of the real registry. The tables' part of the
// dispatch is tested in test_tuning_table.cpp.
int cost_model_choice(int m, int k, int i, DType dtype, int sm_count) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  return choose_kernel_from(registry, count, m, k, i, dtype, sm_count);
}

int registry_index(const char* name) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  for (int idx = 0; idx < count; ++idx) {
    if (std::strcmp(registry[idx].config.name, name) == 0) return idx;
  }
  return -1;
}

TEST(Heuristics, EstimateArithmetic) {
  // m = 192, i = 4864 on 132 SMs with the 128x64 tile: 2 x 76 tiles, the 2nd wave 20 tiles.
  Estimate e = estimate(kEntries[kS6].config, shape(192, 896, 4864), 132);
  EXPECT_EQ(e.units, 152);
  EXPECT_EQ(e.tiles, 152);
  EXPECT_EQ(e.slots, 132);
  EXPECT_EQ(e.waves, 2);
  EXPECT_DOUBLE_EQ(e.last_wave_fill, 20.0 / 132.0);
  EXPECT_DOUBLE_EQ(e.useful, 192.0 * 4864 / (152.0 * 128 * 64));
  EXPECT_EQ(e.cost, 2 * (128 + 2 * 64));
  e = estimate(kEntries[kS8].config, shape(192, 896, 4864), 132);
  EXPECT_EQ(e.tiles, 228);
  EXPECT_EQ(e.waves, 2);
  EXPECT_DOUBLE_EQ(e.last_wave_fill, 96.0 / 132.0);
  EXPECT_DOUBLE_EQ(e.useful, 1.0);
  EXPECT_EQ(e.cost, 2 * (64 + 2 * 64));
  // The cluster config: 2 x 38 cluster tiles over 66 slots; X multicast earns no discount.
  e = estimate(kEntries[kC2].config, shape(192, 896, 4864), 132);
  EXPECT_EQ(e.units, 76);
  EXPECT_EQ(e.tiles, 152);
  EXPECT_EQ(e.slots, 66);
  EXPECT_EQ(e.waves, 2);
  EXPECT_DOUBLE_EQ(e.last_wave_fill, 10.0 / 66.0);
  EXPECT_EQ(e.cost, 2 * (128 + 2 * 64));
  // An odd number of N-blocks: the cluster's second CTA runs a padding tile.
  e = estimate(kEntries[kC2].config, shape(128, 896, 3 * 64), 132);
  EXPECT_EQ(e.units, 2);
  EXPECT_EQ(e.tiles, 4);
  EXPECT_DOUBLE_EQ(e.useful, 0.75);
  // Exactly one full wave.
  e = estimate(kEntries[kS6].config, shape(128, 896, 132 * 64), 132);
  EXPECT_EQ(e.tiles, 132);
  EXPECT_EQ(e.waves, 1);
  EXPECT_DOUBLE_EQ(e.last_wave_fill, 1.0);
  // i not a multiple of tile_n rounds up.
  e = estimate(kEntries[kS6].config, shape(1, 8, 72), 132);
  EXPECT_EQ(e.tiles, 2);
  // A device smaller than a cluster still gets one slot.
  e = estimate(kEntries[kC2].config, shape(1, 8, 72), 1);
  EXPECT_EQ(e.slots, 1);
}

TEST(Heuristics, WorkedExamples) {
  // The examples in the comment of sm90_heuristics.cpp.
  EXPECT_EQ(choose(1, 4864), kS8);
  EXPECT_EQ(choose(64, 29568), kS8);
  EXPECT_EQ(choose(128, 4864), kS6);
  EXPECT_EQ(choose(192, 4864), kS8);
  EXPECT_EQ(choose(100, 18944), kS6);
  EXPECT_EQ(choose(4096, 18944), kS6);
  // In each s6 example c2 costs the same as s6 and loses on the no-cluster tie-break.
  for (int m : {128, 100, 4096}) {
    const int i = m == 128 ? 4864 : 18944;
    SCOPED_TRACE("m=" + std::to_string(m));
    EXPECT_EQ(estimate(kEntries[kC2].config, shape(m, 4096, i), 132).cost,
              estimate(kEntries[kS6].config, shape(m, 4096, i), 132).cost);
  }
}

TEST(Heuristics, WorkedExamplesWithoutTheClusterConfig) {
  EXPECT_EQ(choose_unclustered(1, 4864), kS8);
  EXPECT_EQ(choose_unclustered(64, 29568), kS8);
  EXPECT_EQ(choose_unclustered(128, 4864), kS6);
  EXPECT_EQ(choose_unclustered(192, 4864), kS8);
  EXPECT_EQ(choose_unclustered(100, 18944), kS6);
  EXPECT_EQ(choose_unclustered(4096, 18944), kS6);
}

TEST(Heuristics, DecodeShapesTakeThe64RowTile) {
  for (int m : {1, 2, 4, 8, 16, 17, 32, 63, 64}) {
    for (int i : {8, 4864, 8960, 11008, 18944, 13824, 27648, 29568}) {
      for (int sms : {78, 114, 132, 133}) {
        EXPECT_EQ(choose(m, i, sms), kS8) << "m=" << m << " i=" << i << " sms=" << sms;
        EXPECT_EQ(choose_unclustered(m, i, sms), kS8) << "m=" << m << " i=" << i << " sms=" << sms;
      }
    }
  }
}

TEST(Heuristics, PrefillShapesTakeA128RowTile) {
  for (int m : {1024, 2048, 4096, 8192, 16384, 32768}) {
    for (int i : {4864, 8960, 11008, 18944, 13824, 27648, 29568}) {
      for (int sms : {78, 114, 132, 133}) {
        EXPECT_EQ(choose(m, i, sms), kS6) << "m=" << m << " i=" << i << " sms=" << sms;
        EXPECT_EQ(choose_unclustered(m, i, sms), kS6) << "m=" << m << " i=" << i << " sms=" << sms;
      }
    }
  }
}

TEST(Heuristics, UnderfilledGpuTakesThe64RowTileWhenItFitsTheSameWaves) {
  // 128 rows x 32 column tiles = 32 tiles on 132 SMs: under-filled; 64-row tiles give 64, one wave.
  EXPECT_EQ(choose_unclustered(128, 32 * 64), kS8);
  // Same m, 76 column tiles: 64-row tiles would need 152 > 132, a second wave.
  EXPECT_EQ(choose_unclustered(128, 76 * 64), kS6);
  // A smaller GPU changes the answer for the same shape.
  EXPECT_EQ(choose_unclustered(128, 40 * 64, 132), kS8);
  EXPECT_EQ(choose_unclustered(128, 40 * 64, 78), kS6);
}

TEST(Heuristics, InvalidEntriesAreSkipped) {
  const KernelEntry entries[] = {
      {{"bf16_only_128", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, nullptr},
      {{"kernel3_64", 3, 64, 64, 64, 8, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
  };
  EXPECT_TRUE(is_valid(entries[0], shape(1, 64, 64, DType::kBF16)));
  EXPECT_FALSE(is_valid(entries[0], shape(1, 64, 64, DType::kFP16)));
  EXPECT_FALSE(is_valid(entries[1], shape(1, 64, 64, DType::kBF16)));
  EXPECT_FALSE(is_valid(entries[0], shape(0, 64, 64, DType::kBF16)));
  EXPECT_EQ(choose_from(entries, 2, shape(1, 64, 64, DType::kBF16), 132), 0);
  EXPECT_EQ(choose_from(entries, 2, shape(1, 64, 64, DType::kFP16), 132), -1);
  EXPECT_EQ(choose_from(entries, 0, shape(1, 64, 64, DType::kFP16), 132), -1);
}

TEST(Heuristics, TieBreaks) {
  // Two configs of equal cost per tile: 128x32 (128 + 64) and 64x64 (64 + 128).
  const KernelEntry entries[] = {
      {{"tall", 2, 128, 32, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"wide", 2, 64, 64, 64, 8, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
  };
  // m = 64, i = 64: same cost; tall pads half of its tiles, wide nothing -> wide.
  EXPECT_EQ(choose_from(entries, 2, shape(64, 64, 64), 132), 1);
  // m = 128, i = 64: 2 tiles each, no padding, same fill -> the taller tile.
  EXPECT_EQ(choose_from(entries, 2, shape(128, 64, 64), 132), 0);
  // m = 128, i = 6400: 200 tiles each (68 in the 2nd wave) -> the taller tile.
  EXPECT_EQ(choose_from(entries, 2, shape(128, 64, 6400), 132), 0);
}

TEST(Heuristics, MulticastEarnsNoDiscount) {
  // Neither X multicast (cluster_n) nor weight multicast (cluster_m) lowers a CTA's feed term.
  const KernelEntry entries[] = {
      {{"one", 2, 64, 64, 64, 8, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"pair_m", 2, 64, 64, 64, 8, 2, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"pair_n", 2, 64, 64, 64, 8, 1, 2, 0, 1, true, false}, fake_launch, fake_launch},
  };
  for (const KernelEntry& e : entries) {
    SCOPED_TRACE(e.config.name);
    EXPECT_EQ(estimate(e.config, shape(128, 64, 128), 132).cost, 64 + 2 * 64);
  }
}

TEST(Heuristics, AtEqualCostNoClusterBeatsACluster) {
  // Same tile, one wave each, same cost, same padding, same last-wave fill: the tie-break on the
  // cluster decides, whichever comes first in the list.
  const KernelEntry plain_first[] = {
      {{"one", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"pair", 2, 128, 64, 64, 6, 1, 2, 0, 1, true, false}, fake_launch, fake_launch},
  };
  const KernelEntry cluster_first[] = {plain_first[1], plain_first[0]};
  const Shape s = shape(128, 64, 4864);
  const Estimate plain = estimate(plain_first[0].config, s, 132);
  const Estimate cluster = estimate(plain_first[1].config, s, 132);
  ASSERT_EQ(plain.cost, cluster.cost);
  ASSERT_EQ(plain.useful, cluster.useful);
  ASSERT_EQ(plain.last_wave_fill, cluster.last_wave_fill);
  EXPECT_EQ(choose_from(plain_first, 2, s, 132), 0);
  EXPECT_EQ(choose_from(cluster_first, 2, s, 132), 1);
  // The cluster tie-break comes before padding: a cluster config with less padding still loses.
  const KernelEntry pad[] = {
      {{"plain_tall", 2, 128, 32, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"cluster_wide", 2, 64, 64, 64, 8, 1, 2, 0, 1, true, false}, fake_launch, fake_launch},
  };
  // m = 64, i = 128: plain_tall 4 tiles of 128x32 (half padding), cost 192; cluster_wide 1 unit
  // of 2 64x64 CTAs (no padding), cost 192. The plain config wins despite its padding.
  const Shape p = shape(64, 64, 128);
  ASSERT_EQ(estimate(pad[0].config, p, 132).cost, estimate(pad[1].config, p, 132).cost);
  ASSERT_LT(estimate(pad[0].config, p, 132).useful, estimate(pad[1].config, p, 132).useful);
  EXPECT_EQ(choose_from(pad, 2, p, 132), 0);
}

TEST(Heuristics, TheClusterConfigIsNeverTheDefault) {
  for (int m : {1, 7, 16, 64, 65, 100, 128, 129, 192, 256, 500, 1000, 1024, 2048, 4096, 8191,
                16384, 32768}) {
    for (int i : {8, 64, 192, 2048, 4864, 8960, 11008, 13824, 18944, 27648, 29568}) {
      // From 2 SMs up: on 1 SM the clamp to one slot gives c2 as many slots as s6 (see the
      // comment of sm90_heuristics.cpp).
      for (int sms : {2, 3, 78, 114, 132, 133}) {
        EXPECT_NE(choose(m, i, sms), kC2) << "m=" << m << " i=" << i << " sms=" << sms;
      }
    }
  }
}

TEST(Heuristics, Deterministic) {
  for (int m = 1; m <= 4096; m = m * 3 + 1) {
    for (int i : {8, 512, 4864, 29568}) {
      const int first = choose(m, i);
      ASSERT_GE(first, 0);
      for (int repeat = 0; repeat < 3; ++repeat) EXPECT_EQ(choose(m, i), first);
    }
  }
}

TEST(Registry, EveryEntryIsWellFormedAndValid) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  ASSERT_GE(count, 2);
  std::set<std::string> names;
  for (int idx = 0; idx < count; ++idx) {
    const KernelEntry& e = registry[idx];
    SCOPED_TRACE(e.config.name);
    EXPECT_TRUE(names.insert(e.config.name).second) << "duplicate name";
    EXPECT_LT(std::strlen(e.config.name), sizeof(tileglu_config_t{}.name));
    EXPECT_TRUE(e.config.kernel == 1 || e.config.kernel == 2) << e.config.kernel;
    // The name says the kernel: k1_... is Kernel-1, k2_... Kernel-2.
    EXPECT_EQ(std::string(e.config.name).substr(0, 3), "k" + std::to_string(e.config.kernel) + "_");
    EXPECT_GT(e.config.tile_m, 0);
    EXPECT_GT(e.config.tile_n, 0);
    EXPECT_GT(e.config.tile_k, 0);
    EXPECT_GT(e.config.stages, 0);
    EXPECT_GE(e.config.cluster_m, 1);
    EXPECT_GE(e.config.cluster_n, 1);
    EXPECT_GE(e.config.promote_k_tiles, 0);
    EXPECT_NE(e.launch_bf16, nullptr);
    EXPECT_NE(e.launch_fp16, nullptr);
    EXPECT_TRUE(is_valid(e, shape(1, 8, 8, DType::kBF16)));
    // Every config serves the largest Qwen2.5 shape up to its M bound (max_m: the decode kernels;
    // tests/cpu/test_decode_plan.cpp checks the bound itself).
    const int largest_m = e.config.max_m > 0 ? e.config.max_m : 16384;
    EXPECT_TRUE(is_valid(e, shape(largest_m, 8192, 29568, DType::kFP16)));
  }
  EXPECT_GE(registry_index("k2_pingpong_128x64x64_s6"), 0);
  EXPECT_GE(registry_index("k2_pingpong_64x64x64_s8"), 0);
  EXPECT_GE(registry_index("k2_pingpong_64x64x64_p8_s8"), 0);
  EXPECT_GE(registry_index("k1_pingpong_128x64x64_s6"), 0);
  EXPECT_GE(registry_index("k1_pingpong_128x64x64_s6_serial"), 0);
  EXPECT_GE(registry_index("k1_pingpong_128x64x64_s6_sequential"), 0);
}

TEST(Registry, TheTestTableIsTheRegistry) {
  // kEntries above stands in for the registry in the cost-model tests: same configs, same order.
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  ASSERT_EQ(count, kEntryCount);
  for (int idx = 0; idx < count; ++idx) {
    const KernelConfig& r = registry[idx].config;
    const KernelConfig& t = kEntries[idx].config;
    SCOPED_TRACE(r.name);
    EXPECT_STREQ(r.name, t.name);
    EXPECT_EQ(r.kernel, t.kernel);
    EXPECT_EQ(r.tile_m, t.tile_m);
    EXPECT_EQ(r.tile_n, t.tile_n);
    EXPECT_EQ(r.tile_k, t.tile_k);
    EXPECT_EQ(r.stages, t.stages);
    EXPECT_EQ(r.cluster_m, t.cluster_m);
    EXPECT_EQ(r.cluster_n, t.cluster_n);
    EXPECT_EQ(r.promote_k_tiles, t.promote_k_tiles);
    EXPECT_EQ(r.split_k, t.split_k);
    EXPECT_EQ(r.max_m, t.max_m);
    EXPECT_EQ(r.cost_model_candidate, t.cost_model_candidate);
    EXPECT_EQ(r.ablation, t.ablation);
  }
}

TEST(Registry, TwoPromotedCostModelCandidates) {
  // The cost model's promoted-mode candidates are the 64x64 Pingpong tile and the 128x64
  // Cooperative one, both every 8 k tiles; the every-4 tile runs when forced.
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  int candidates = 0;
  int promoted = 0;
  for (int idx = 0; idx < count; ++idx) {
    const KernelConfig& c = registry[idx].config;
    if (c.promote_k_tiles == 0) continue;
    ++promoted;
    SCOPED_TRACE(c.name);
    const std::string name = c.name;
    EXPECT_NE(name.find("_p" + std::to_string(c.promote_k_tiles) + "_"), std::string::npos);
    if (c.cost_model_candidate) {
      ++candidates;
      EXPECT_EQ(c.promote_k_tiles, 8);
    }
  }
  EXPECT_EQ(candidates, 2);
  EXPECT_EQ(promoted, 3);
}

TEST(Registry, ChooseKernelOnRealShapes) {
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  const int big = registry_index("k2_pingpong_128x64x64_s6");
  const int small = registry_index("k2_pingpong_64x64x64_s8");
  ASSERT_GE(big, 0);
  ASSERT_GE(small, 0);
  EXPECT_EQ(cost_model_choice(1, 896, 4864, DType::kBF16, 132), small);
  EXPECT_EQ(cost_model_choice(16, 8192, 29568, DType::kFP16, 132), small);
  EXPECT_EQ(cost_model_choice(64, 3584, 18944, DType::kBF16, 132), small);
  EXPECT_EQ(cost_model_choice(192, 896, 4864, DType::kBF16, 132), small);
  EXPECT_EQ(cost_model_choice(128, 896, 4864, DType::kBF16, 132), big);
  EXPECT_EQ(cost_model_choice(2048, 3584, 18944, DType::kBF16, 132), big);
  EXPECT_EQ(cost_model_choice(16384, 8192, 29568, DType::kFP16, 132), big);
  // The shapes measured on the H200 (sm_count 132), where s6 beat c2, in both dtypes.
  for (DType dtype : {DType::kBF16, DType::kFP16}) {
    EXPECT_EQ(cost_model_choice(4096, 896, 4864, dtype, 132), big);
    EXPECT_EQ(cost_model_choice(16384, 896, 4864, dtype, 132), big);
    EXPECT_EQ(cost_model_choice(4096, 3584, 18944, dtype, 132), big);
    EXPECT_EQ(cost_model_choice(16384, 3584, 18944, dtype, 132), big);
    EXPECT_EQ(cost_model_choice(4096, 8192, 29568, dtype, 132), big);
  }
}

TEST(Registry, ClusterConfigRunsOnlyWhenForced) {
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  const int cluster = registry_index("k2_pingpong_128x64x64_c2_s6");
  ASSERT_GE(cluster, 0);
  const int shapes[][3] = {{1, 896, 4864},     {64, 8192, 29568},   {128, 896, 4864},
                           {4096, 896, 4864},  {16384, 896, 4864},  {4096, 3584, 18944},
                           {16384, 3584, 18944}, {4096, 8192, 29568}, {32768, 8192, 29568}};
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
    for (const auto& s : shapes) {
      for (int sms : {78, 132}) {
        EXPECT_NE(cost_model_choice(s[0], s[1], s[2], DType::kBF16, sms), cluster)
            << "m=" << s[0] << " k=" << s[1] << " i=" << s[2] << " sms=" << sms;
      }
    }
  }
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_128x64x64_c2_s6");
    testing::internal::CaptureStderr();
    for (const auto& s : shapes) {
      for (DType dtype : {DType::kBF16, DType::kFP16}) {
        EXPECT_EQ(cost_model_choice(s[0], s[1], s[2], dtype, 132), cluster)
            << "m=" << s[0] << " k=" << s[1] << " i=" << s[2];
      }
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

TEST(Registry, ForceConfigByName) {
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  const int small = registry_index("k2_pingpong_64x64x64_s8");
  const int big = registry_index("k2_pingpong_128x64x64_s6");
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_64x64x64_s8");
    testing::internal::CaptureStderr();
    EXPECT_EQ(cost_model_choice(8192, 3584, 18944, DType::kBF16, 132), small);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_128x64x64_s6");
    EXPECT_EQ(cost_model_choice(1, 3584, 18944, DType::kFP16, 132), big);
  }
}

TEST(Registry, UnknownForcedConfigIsIgnoredWithAWarning) {
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", "k9_does_not_exist");
  testing::internal::CaptureStderr();
  const int chosen = cost_model_choice(8192, 3584, 18944, DType::kBF16, 132);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(chosen, registry_index("k2_pingpong_128x64x64_s6"));
  EXPECT_NE(err.find("warning: TILEGLU_FORCE_CONFIG=k9_does_not_exist names no kernel"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("k2_pingpong_64x64x64_s8"), std::string::npos) << "lists known names: " << err;
}

TEST(Registry, EmptyForcedConfigIsIgnoredSilently) {
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(cost_model_choice(1, 896, 4864, DType::kBF16, 132),
            registry_index("k2_pingpong_64x64x64_s8"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Registry, LogDispatchPrintsTheChoice) {
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv accumulation("TILEGLU_ACCUMULATION", nullptr);
  {
    ScopedEnv log("TILEGLU_LOG_DISPATCH", "1");
    testing::internal::CaptureStderr();
    cost_model_choice(192, 896, 4864, DType::kFP16, 132);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("tileglu: dispatch m=192 k=896 i=4864 dtype=fp16 sm_count=132 "
                       "accumulation=tensorcore -> k2_pingpong_64x64x64_s8"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("  k2_pingpong_64x64x64_p8_s8: tiles=228 waves=2 last_wave_fill=73% "
                       "useful=100% cost=384 (not a candidate: promoted accumulation)"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("* k2_pingpong_64x64x64_s8: tiles=228 waves=2"), std::string::npos) << err;
    EXPECT_NE(err.find("  k2_pingpong_128x64x64_s6: tiles=152 waves=2"), std::string::npos) << err;
    EXPECT_NE(err.find("  k2_pingpong_128x64x64_c2_s6: tiles=152 waves=2 last_wave_fill=15% "
                       "useful=75% cost=512"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("  k1_pingpong_128x64x64_s6: tiles=152 waves=2 last_wave_fill=15% "
                       "useful=75% cost=512 (not a candidate: not in the cost model)"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("  k1_pingpong_128x64x64_s6_serial: tiles=152 waves=2 last_wave_fill=15% "
                       "useful=75% cost=512 (not a candidate: not in the cost model)"),
              std::string::npos)
        << err;
  }
  {
    ScopedEnv log("TILEGLU_LOG_DISPATCH", "0");
    testing::internal::CaptureStderr();
    cost_model_choice(192, 896, 4864, DType::kFP16, 132);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    ScopedEnv log("TILEGLU_LOG_DISPATCH", "1");
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_128x64x64_s6");
    testing::internal::CaptureStderr();
    cost_model_choice(1, 896, 4864, DType::kBF16, 132);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("-> k2_pingpong_128x64x64_s6 (forced by TILEGLU_FORCE_CONFIG)"),
              std::string::npos)
        << err;
  }
}

// --- TILEGLU_ACCUMULATION -------------------------------------------------------------------

// A spread of shapes: decode, under-filled, prefill; the three Qwen2.5 MLPs and odd sizes.
const int kSpreadM[] = {1, 7, 16, 64, 65, 100, 128, 192, 500, 1024, 4096, 8191, 16384, 32768};
const int kSpreadKI[][2] = {{8, 8},       {896, 4864},   {3584, 18944}, {8192, 29568},
                            {4096, 11008}, {5120, 13824}, {1024, 200},   {64, 2048}};

TEST(Accumulation, ParsesTheEnvironment) {
  {
    ScopedEnv a("TILEGLU_ACCUMULATION", nullptr);
    testing::internal::CaptureStderr();
    EXPECT_EQ(accumulation_from_env(), Accumulation::kTensorCore);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  for (const char* quiet_default : {"", "tensorcore"}) {
    ScopedEnv a("TILEGLU_ACCUMULATION", quiet_default);
    testing::internal::CaptureStderr();
    EXPECT_EQ(accumulation_from_env(), Accumulation::kTensorCore) << quiet_default;
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << quiet_default;
  }
  {
    ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
    testing::internal::CaptureStderr();
    EXPECT_EQ(accumulation_from_env(), Accumulation::kPromoted);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  for (const char* unknown : {"Promoted", "fp32", "1", "tensorcore "}) {
    ScopedEnv a("TILEGLU_ACCUMULATION", unknown);
    testing::internal::CaptureStderr();
    EXPECT_EQ(accumulation_from_env(), Accumulation::kTensorCore) << unknown;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(std::string("tileglu: warning: TILEGLU_ACCUMULATION=") + unknown +
                       " is not 'tensorcore' or 'promoted'; using tensorcore"),
              std::string::npos)
        << err;
  }
  EXPECT_STREQ(accumulation_name(Accumulation::kTensorCore), "tensorcore");
  EXPECT_STREQ(accumulation_name(Accumulation::kPromoted), "promoted");
}

TEST(Accumulation, CandidatesFollowTheMode) {
  for (int idx = 0; idx < kEntryCount; ++idx) {
    const KernelConfig& c = kEntries[idx].config;
    SCOPED_TRACE(c.name);
    EXPECT_EQ(is_candidate(c, Accumulation::kTensorCore),
              idx != kP8 && idx != kCoopP8 && c.cost_model_candidate);
    EXPECT_EQ(is_candidate(c, Accumulation::kPromoted), idx == kP8 || idx == kCoopP8);
  }
}

TEST(Accumulation, TheCostModelNeverPicksThePromotedConfigByDefault) {
  for (int m : kSpreadM) {
    for (const auto& ki : kSpreadKI) {
      for (int sms : {2, 78, 114, 132, 133}) {
        const Shape s = shape(m, ki[0], ki[1]);
        const int chosen = choose_from(kEntries, kEntryCount, s, sms);
        EXPECT_NE(chosen, kP8) << "m=" << m << " k=" << ki[0] << " i=" << ki[1] << " sms=" << sms;
        EXPECT_NE(chosen, kCoopP8) << "m=" << m << " k=" << ki[0] << " i=" << ki[1] << " sms=" << sms;
        // Dropping the promoted configs changes nothing: they are not candidates at all.
        EXPECT_EQ(chosen, choose_from(kEntries, 3, s, sms));
        // Promoted: the promoted tile of the height the tensor-core choice has (same estimates).
        EXPECT_EQ(choose_from(kEntries, kEntryCount, s, sms, Accumulation::kPromoted),
                  kEntries[chosen].config.tile_m == 128 ? kCoopP8 : kP8)
            << "m=" << m << " k=" << ki[0] << " i=" << ki[1] << " sms=" << sms;
      }
    }
  }
}

TEST(Accumulation, DefaultNeverRunsThePromotedConfig) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  const int promoted = registry_index("k2_pingpong_64x64x64_p8_s8");
  const int promoted_coop = registry_index("k2_coop_128x64x64_p8_s6_tma");
  ASSERT_GE(promoted, 0);
  ASSERT_GE(promoted_coop, 0);
  for (const char* mode : {static_cast<const char*>(nullptr), "", "tensorcore"}) {
    ScopedEnv a("TILEGLU_ACCUMULATION", mode);
    testing::internal::CaptureStderr();
    for (int m : kSpreadM) {
      for (const auto& ki : kSpreadKI) {
        for (DType dtype : {DType::kBF16, DType::kFP16}) {
          for (int sms : {78, 132}) {
            const int chosen = cost_model_choice(m, ki[0], ki[1], dtype, sms);
            EXPECT_GE(chosen, 0);
            EXPECT_NE(chosen, promoted)
                << "mode=" << (mode ? mode : "(unset)") << " m=" << m << " k=" << ki[0]
                << " i=" << ki[1] << " sms=" << sms;
            EXPECT_NE(chosen, promoted_coop);
          }
        }
      }
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

TEST(Accumulation, PromotedAlwaysRunsThePromotedConfig) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  const int promoted = registry_index("k2_pingpong_64x64x64_p8_s8");
  const int promoted_coop = registry_index("k2_coop_128x64x64_p8_s6_tma");
  ASSERT_GE(promoted, 0);
  ASSERT_GE(promoted_coop, 0);
  testing::internal::CaptureStderr();
  for (int m : kSpreadM) {
    for (const auto& ki : kSpreadKI) {
      for (DType dtype : {DType::kBF16, DType::kFP16}) {
        for (int sms : {78, 132}) {
          const int chosen = cost_model_choice(m, ki[0], ki[1], dtype, sms);
          ASSERT_TRUE(chosen == promoted || chosen == promoted_coop)
              << "m=" << m << " k=" << ki[0] << " i=" << ki[1] << " sms=" << sms;
          // What tileglu_query_config reports for it (src/api/tileglu_api.cpp copies the entry).
          EXPECT_EQ(registry[chosen].config.promote_k_tiles, 8);
        }
      }
    }
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Accumulation, UnknownValueWarnsAndUsesTheDefault) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv a("TILEGLU_ACCUMULATION", "exact");
  const int promoted = registry_index("k2_pingpong_64x64x64_p8_s8");
  for (const auto& s : {std::array<int, 3>{1, 896, 4864}, std::array<int, 3>{192, 896, 4864},
                        std::array<int, 3>{4096, 8192, 29568}}) {
    int expected = -1;
    {
      ScopedEnv unset("TILEGLU_ACCUMULATION", nullptr);
      expected = cost_model_choice(s[0], s[1], s[2], DType::kBF16, 132);
    }
    testing::internal::CaptureStderr();
    const int chosen = cost_model_choice(s[0], s[1], s[2], DType::kBF16, 132);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(chosen, expected) << "m=" << s[0];
    EXPECT_NE(chosen, promoted);
    EXPECT_NE(err.find("tileglu: warning: TILEGLU_ACCUMULATION=exact is not 'tensorcore' or "
                       "'promoted'; using tensorcore"),
              std::string::npos)
        << err;
  }
}

TEST(Accumulation, PromotedWithNoValidPromotedConfigFallsBackWithAWarning) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
  // The promoted config has no fp16 launcher here.
  const KernelEntry entries[] = {
      {{"plain", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"promoted_bf16_only", 2, 64, 64, 64, 8, 1, 1, 8, 1, true, false}, fake_launch, nullptr},
  };
  testing::internal::CaptureStderr();
  EXPECT_EQ(choose_kernel_from(entries, 2, 4096, 4096, 4096, DType::kBF16, 132), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(choose_kernel_from(entries, 2, 4096, 4096, 4096, DType::kFP16, 132), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tileglu: warning: TILEGLU_ACCUMULATION=promoted: no promoted-accumulation "
                     "config can run m=4096 k=4096 i=4096 dtype=fp16; using tensorcore "
                     "accumulation"),
            std::string::npos)
      << err;
  // The log says so too.
  ScopedEnv log_on("TILEGLU_LOG_DISPATCH", "1");
  testing::internal::CaptureStderr();
  EXPECT_EQ(choose_kernel_from(entries, 2, 4096, 4096, 4096, DType::kFP16, 132), 0);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("accumulation=promoted -> plain (no promoted config serves the shape: "
                     "tensorcore used)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("  promoted_bf16_only: not valid"), std::string::npos) << err;
  // No config at all: -1, as before.
  EXPECT_EQ(choose_kernel_from(entries, 0, 1, 8, 8, DType::kBF16, 132), -1);
}

TEST(Accumulation, ForceConfigOverridesTheMode) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  const int promoted = registry_index("k2_pingpong_64x64x64_p8_s8");
  const int big = registry_index("k2_pingpong_128x64x64_s6");
  {
    // Default mode, the promoted config forced.
    ScopedEnv a("TILEGLU_ACCUMULATION", nullptr);
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_64x64x64_p8_s8");
    testing::internal::CaptureStderr();
    EXPECT_EQ(cost_model_choice(4096, 3584, 18944, DType::kBF16, 132), promoted);
    EXPECT_EQ(cost_model_choice(1, 896, 4864, DType::kFP16, 132), promoted);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    ScopedEnv a("TILEGLU_ACCUMULATION", "tensorcore");
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_64x64x64_p8_s8");
    EXPECT_EQ(cost_model_choice(4096, 8192, 29568, DType::kBF16, 132), promoted);
  }
  {
    // Promoted mode, a tensor-core config forced.
    ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k2_pingpong_128x64x64_s6");
    testing::internal::CaptureStderr();
    EXPECT_EQ(cost_model_choice(1, 896, 4864, DType::kBF16, 132), big);
    EXPECT_EQ(cost_model_choice(4096, 8192, 29568, DType::kFP16, 132), big);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    // An unknown forced name leaves the mode in charge.
    ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k9_does_not_exist");
    testing::internal::CaptureStderr();
    EXPECT_EQ(cost_model_choice(4096, 8192, 29568, DType::kBF16, 132),
              registry_index("k2_coop_128x64x64_p8_s6_tma"));
    EXPECT_EQ(cost_model_choice(1, 896, 4864, DType::kBF16, 132), promoted);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("TILEGLU_FORCE_CONFIG=k9_does_not_exist names no kernel"),
              std::string::npos)
        << err;
  }
}

TEST(Accumulation, LogDispatchNamesTheMode) {
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv log("TILEGLU_LOG_DISPATCH", "1");
  {
    ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
    testing::internal::CaptureStderr();
    cost_model_choice(4096, 3584, 18944, DType::kBF16, 132);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("tileglu: dispatch m=4096 k=3584 i=18944 dtype=bf16 sm_count=132 "
                       "accumulation=promoted -> k2_coop_128x64x64_p8_s6_tma (cost model)\n"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("* k2_coop_128x64x64_p8_s6_tma: tiles=9472"), std::string::npos) << err;
    EXPECT_NE(err.find("  k2_pingpong_64x64x64_p8_s8: tiles=18944"), std::string::npos) << err;
    EXPECT_NE(err.find("  k2_pingpong_128x64x64_s6: tiles=9472 waves=72 last_wave_fill=76% "
                       "useful=100% cost=18432 (not a candidate: tensorcore accumulation)"),
              std::string::npos)
        << err;
  }
  {
    ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
    ScopedEnv forced("TILEGLU_FORCE_CONFIG", "k2_pingpong_128x64x64_s6");
    testing::internal::CaptureStderr();
    cost_model_choice(4096, 3584, 18944, DType::kBF16, 132);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("accumulation=promoted -> k2_pingpong_128x64x64_s6 (forced by "
                       "TILEGLU_FORCE_CONFIG)"),
              std::string::npos)
        << err;
  }
}

// --- Kernel-1: valid, never a cost-model candidate (a table or TILEGLU_FORCE_CONFIG runs it) -----

const char* const kKernel1Names[] = {"k1_pingpong_128x64x64_s6", "k1_pingpong_128x64x64_s6_serial",
                                     "k1_pingpong_128x64x64_s6_sequential"};

TEST(Kernel1, ValidButNeverACandidate) {
  for (int idx : {kK1, kK1Serial, kK1Sequential}) {
    const KernelEntry& e = kEntries[idx];
    SCOPED_TRACE(e.config.name);
    EXPECT_EQ(e.config.kernel, 1);
    for (DType dtype : {DType::kBF16, DType::kFP16}) {
      EXPECT_TRUE(is_valid(e, shape(1, 8, 8, dtype)));
      EXPECT_TRUE(is_valid(e, shape(16384, 8192, 29568, dtype)));
    }
    EXPECT_FALSE(is_candidate(e.config, Accumulation::kTensorCore));
    EXPECT_FALSE(is_candidate(e.config, Accumulation::kPromoted));
  }
  // A list of Kernel-1 configs alone has no default choice, in either mode.
  const KernelEntry only_k1[] = {kEntries[kK1], kEntries[kK1Serial], kEntries[kK1Sequential]};
  for (Accumulation mode : {Accumulation::kTensorCore, Accumulation::kPromoted}) {
    EXPECT_EQ(choose_from(only_k1, 3, shape(4096, 3584, 18944), 132, mode), -1);
    EXPECT_EQ(choose_from(only_k1, 3, shape(1, 896, 4864), 132, mode), -1);
  }
  // Listed first, at the same cost as k2_pingpong_128x64x64_s6, Kernel-1 still loses.
  const KernelEntry k1_first[] = {kEntries[kK1], kEntries[kK1Serial], kEntries[kS6]};
  const Shape s = shape(4096, 3584, 18944);
  ASSERT_EQ(estimate(k1_first[0].config, s, 132).cost, estimate(k1_first[2].config, s, 132).cost);
  EXPECT_EQ(choose_from(k1_first, 3, s, 132), 2);
}

TEST(Kernel1, TheCostModelNeverPicksAKernel1Config) {
  // Also with the Kernel-1 configs listed first, so that registry order cannot hide a tie with
  // k2_pingpong_128x64x64_s6 (same tile, same cost).
  const KernelEntry k1_first[] = {kEntries[kK1], kEntries[kK1Serial], kEntries[kK1Sequential],
                                  kEntries[kS6], kEntries[kC2],       kEntries[kS8],
                                  kEntries[kP8], kEntries[kCoopP8]};
  const int k1_first_count = int(sizeof(k1_first) / sizeof(k1_first[0]));
  for (int m : kSpreadM) {
    for (const auto& ki : kSpreadKI) {
      for (DType dtype : {DType::kBF16, DType::kFP16}) {
        for (Accumulation mode : {Accumulation::kTensorCore, Accumulation::kPromoted}) {
          for (int sms : {2, 78, 114, 132, 133}) {
            const Shape s = shape(m, ki[0], ki[1], dtype);
            const int chosen = choose_from(kEntries, kEntryCount, s, sms, mode);
            SCOPED_TRACE("m=" + std::to_string(m) + " k=" + std::to_string(ki[0]) +
                         " i=" + std::to_string(ki[1]) + " sms=" + std::to_string(sms) +
                         (dtype == DType::kFP16 ? " fp16 " : " bf16 ") + accumulation_name(mode));
            EXPECT_GE(chosen, 0);
            EXPECT_NE(chosen, kK1);
            EXPECT_NE(chosen, kK1Serial);
            EXPECT_NE(chosen, kK1Sequential);
            // Dropping the Kernel-1 configs changes nothing: they are not candidates at all.
            const KernelEntry kernel2[] = {kEntries[kS6], kEntries[kC2], kEntries[kS8], kEntries[kP8],
                                           kEntries[kCoopP8]};
            const int kernel2_choice = choose_from(kernel2, 5, s, sms, mode);
            ASSERT_GE(kernel2_choice, 0);
            EXPECT_STREQ(kernel2[kernel2_choice].config.name, kEntries[chosen].config.name);
            const int reordered = choose_from(k1_first, k1_first_count, s, sms, mode);
            ASSERT_GE(reordered, 3);
            EXPECT_STREQ(k1_first[reordered].config.name, kEntries[chosen].config.name);
          }
        }
      }
    }
  }
}

TEST(Kernel1, DefaultDispatchNeverRunsAKernel1Config) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  const int k1 = registry_index("k1_pingpong_128x64x64_s6");
  const int k1_serial = registry_index("k1_pingpong_128x64x64_s6_serial");
  const int k1_sequential = registry_index("k1_pingpong_128x64x64_s6_sequential");
  ASSERT_GE(k1, 0);
  ASSERT_GE(k1_serial, 0);
  ASSERT_GE(k1_sequential, 0);
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  for (const char* mode :
       {static_cast<const char*>(nullptr), "", "tensorcore", "promoted"}) {
    ScopedEnv a("TILEGLU_ACCUMULATION", mode);
    testing::internal::CaptureStderr();
    for (int m : kSpreadM) {
      for (const auto& ki : kSpreadKI) {
        for (DType dtype : {DType::kBF16, DType::kFP16}) {
          for (int sms : {78, 132}) {
            const int chosen = cost_model_choice(m, ki[0], ki[1], dtype, sms);
            ASSERT_GE(chosen, 0);
            EXPECT_EQ(registry[chosen].config.kernel, 2)
                << registry[chosen].config.name << " mode=" << (mode ? mode : "(unset)")
                << " m=" << m << " k=" << ki[0] << " i=" << ki[1] << " sms=" << sms;
            EXPECT_NE(chosen, k1);
            EXPECT_NE(chosen, k1_serial);
            EXPECT_NE(chosen, k1_sequential);
          }
        }
      }
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

TEST(Kernel1, PromotedFallbackSkipsKernel1) {
  // `promoted` with no promoted config for fp16 falls back to the tensor-core set, which still
  // leaves Kernel-1 out (listed first, at the same cost as `plain`).
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
  ScopedEnv a("TILEGLU_ACCUMULATION", "promoted");
  const KernelEntry entries[] = {
      kEntries[kK1],
      {{"promoted_bf16_only", 2, 64, 64, 64, 8, 1, 1, 8, 1, true, false}, fake_launch, nullptr},
      {{"plain", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
  };
  testing::internal::CaptureStderr();
  EXPECT_EQ(choose_kernel_from(entries, 3, 4096, 4096, 4096, DType::kFP16, 132), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("no promoted-accumulation config can run"), std::string::npos) << err;
}

TEST(Kernel1, ForcingEachKernel1ConfigSelectsIt) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  for (const char* name : kKernel1Names) {
    const int index = registry_index(name);
    ASSERT_GE(index, 0) << name;
    EXPECT_EQ(registry[index].config.kernel, 1) << name;
    ScopedEnv force("TILEGLU_FORCE_CONFIG", name);
    for (const char* mode : {static_cast<const char*>(nullptr), "promoted"}) {
      ScopedEnv a("TILEGLU_ACCUMULATION", mode);
      testing::internal::CaptureStderr();
      for (int m : kSpreadM) {
        for (const auto& ki : kSpreadKI) {
          for (DType dtype : {DType::kBF16, DType::kFP16}) {
            EXPECT_EQ(cost_model_choice(m, ki[0], ki[1], dtype, 132), index)
                << name << " mode=" << (mode ? mode : "(unset)") << " m=" << m
                << " k=" << ki[0] << " i=" << ki[1];
          }
        }
      }
      EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << name;
    }
    {
      ScopedEnv a("TILEGLU_ACCUMULATION", nullptr);
      ScopedEnv log_on("TILEGLU_LOG_DISPATCH", "1");
      testing::internal::CaptureStderr();
      EXPECT_EQ(cost_model_choice(4096, 3584, 18944, DType::kBF16, 132), index);
      const std::string err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find(std::string("accumulation=tensorcore -> ") + name +
                         " (forced by TILEGLU_FORCE_CONFIG)\n"),
                std::string::npos)
          << err;
      EXPECT_NE(err.find(std::string("* ") + name + ": tiles=9472 waves=72"), std::string::npos)
          << err;
    }
  }
}

TEST(Kernel1, AnyOtherKernelIsInvalid) {
  ScopedEnv log("TILEGLU_LOG_DISPATCH", nullptr);
  ScopedEnv a("TILEGLU_ACCUMULATION", nullptr);
  const KernelEntry entries[] = {
      {{"k3_fake_128x64x64_s6", 3, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"k0_fake_128x64x64_s6", 0, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
      {{"plain", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
  };
  for (int idx : {0, 1}) {
    SCOPED_TRACE(entries[idx].config.name);
    for (DType dtype : {DType::kBF16, DType::kFP16}) {
      EXPECT_FALSE(is_valid(entries[idx], shape(1, 8, 8, dtype)));
      EXPECT_FALSE(is_valid(entries[idx], shape(4096, 3584, 18944, dtype)));
    }
  }
  EXPECT_EQ(choose_from(entries, 2, shape(4096, 3584, 18944), 132), -1);
  EXPECT_EQ(choose_from(entries, 3, shape(4096, 3584, 18944), 132), 2);
  {
    // Forcing it is refused with a warning; the heuristic's choice runs.
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "k3_fake_128x64x64_s6");
    testing::internal::CaptureStderr();
    EXPECT_EQ(choose_kernel_from(entries, 3, 4096, 3584, 18944, DType::kBF16, 132), 2);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("tileglu: warning: TILEGLU_FORCE_CONFIG=k3_fake_128x64x64_s6 cannot run "
                       "m=4096 k=3584 i=18944 dtype=bf16; ignoring it"),
              std::string::npos)
        << err;
  }
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", nullptr);
    ScopedEnv log_on("TILEGLU_LOG_DISPATCH", "1");
    testing::internal::CaptureStderr();
    EXPECT_EQ(choose_kernel_from(entries, 3, 4096, 3584, 18944, DType::kBF16, 132), 2);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("  k3_fake_128x64x64_s6: not valid"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace dispatch
}  // namespace tileglu
