// The wave-split launch plan: the output columns in two parts, each its own launch, so that the
// 128x64 Pingpong tile (the fastest per MAC) runs only whole waves of the persistent grid and the
// 64x64 tile, half its work per tile, takes the columns left over.
//
// Why: at a few hundred tokens the tile count of the 128x64 tile leaves the last wave part full,
// and the kernel's time is that of whole waves (qwen2.5-7b M = 256: 2 x 296 = 592 tiles = 4.48
// waves of 132 SMs, timed as 5). cuBLAS avoids this by sizing its tile per shape (PyTorch runs
// nvjet's 192x128 tile there: 3.0 waves; bench/NOTES.md session 8); tiles of other widths did not
// pay for tileglu (72 columns: WGMMA N = 144). Splitting the columns instead keeps the 128x64
// tile for whole waves (7B M = 256: 264 column tiles x 2 = 4 waves) and gives the remaining
// 2048 columns to the 64x64 tile (4 x 32 = 128 tiles: one wave of half-size tiles), 4.5 wave
// times against 5 in the model below. The two launches write disjoint columns and read the same X.
// Measured (H200, session 8): at 7B M = 256 1 % faster than the 128x64 tile alone, not the ~7 %
// the model expects (the tail launch is more than its half wave); the tuner's runs put it ahead
// at 7B M = 512/1000, 14B M = 1000/1537 and 32B M = 512, and a table runs it only there.
#pragma once

#include <cstdint>

namespace tileglu {
namespace kernels {

struct WaveSplit {
  int split_col = 0;         // first output column of the second launch; 0: one launch, no split
  double waves_single = 0;   // the 128x64 tile alone, in its wave times
  double waves_split = 0;    // head waves + the tail's, the 64x64 tile counted as half a wave time
};

// Row and column tiles of the two launches' tiles.
inline constexpr int kWaveSplitHeadTileM = 128;
inline constexpr int kWaveSplitTailTileM = 64;
inline constexpr int kWaveSplitTileN = 64;
// A split costs a second launch (a few microseconds between the kernels on a stream) and the
// 64x64 tile is ~10 % less efficient per MAC than the 128x64 one (H200, 7B M = 256: 14.1 us per
// wave against 12.7 for half a 128x64 wave): the split must save more than this share of a
// head wave time.
inline constexpr double kWaveSplitMinSavedWaves = 0.25;

// The plan for an m x i output on `sm_count` SMs (one CTA per SM, as the launchers size the grid).
inline WaveSplit plan_wave_split(int64_t m, int64_t i, int sm_count) {
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  WaveSplit plan;
  if (m <= 0 || i <= 0 || sm_count <= 0) return plan;
  const int64_t tiles_m = ceil_div(m, kWaveSplitHeadTileM);
  const int64_t tiles_n = ceil_div(i, kWaveSplitTileN);
  plan.waves_single = static_cast<double>(ceil_div(tiles_m * tiles_n, sm_count));
  const int64_t full_waves = tiles_m * tiles_n / sm_count;
  // Column tiles whose tiles fit in the whole waves (every CTA gets full_waves tiles or fewer).
  const int64_t head_cols = full_waves * sm_count / tiles_m;
  const int64_t split = head_cols * kWaveSplitTileN;
  if (full_waves == 0 || split <= 0 || split >= i) return plan;
  const int64_t tail_tiles = ceil_div(m, kWaveSplitTailTileM) * ceil_div(i - split, kWaveSplitTileN);
  const double head_waves = static_cast<double>(ceil_div(tiles_m * head_cols, sm_count));
  // A 64x64 tile is half a 128x64 one, run at ~90 % of its efficiency per MAC (see above).
  plan.waves_split = head_waves + 0.5 / 0.9 * static_cast<double>(ceil_div(tail_tiles, sm_count));
  if (plan.waves_split + kWaveSplitMinSavedWaves <= plan.waves_single) {
    plan.split_col = static_cast<int>(split);
  }
  return plan;
}

}  // namespace kernels
}  // namespace tileglu
