// CPU test of the swap-AB Pingpong/Cooperative kernels' accumulator layouts
// (sm90_swiglu_swapab_pingpong.hpp), computed on the host by CuTe from each kernel's own
// TiledMma: the epilogue (`store_unit`) reads, for every thread, the gate value at fragment index
// ((c, 0, j), m, 0) and the up value at ((c, 1, j), m, 0), and takes the output column from the
// gate row. That is right only if the up element is the gate element's row + 8 (the producer
// puts up rows 8 below their gate rows) at the same token, in the first half of a 16-row group,
// and if the unit's threads together hold every (row, token) exactly once; and the epilogue's
// hoisted addressing (session 25) is right only if each atom's rows and each (c, j)'s tokens are
// the thread's first plus offsets that hold in every atom. Checked for every
// schedule the kernel has, the row-split Cooperative one (kSplitRows) included (checked here
// before its first GPU run, session 23); and which warpgroup holds what (a warpgroup's rows or
// tokens, by schedule). The 2-CTA cluster configs share these TiledMmas.
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#define TILEGLU_WGMMA_EXTENDED_N  // N = 88, 112, 144: see sm90_wgmma_k_sweep.hpp
#include "kernels/sm90_swiglu_swapab_pingpong.hpp"

namespace {

using tileglu::kernels::Sm90SwigluSwapABPingpong;

template <class Kernel>
void check_unit_layout() {
  using namespace cute;
  constexpr int kRows = Kernel::kRows, kTokens = Kernel::kTokens;
  constexpr int kThreads = Kernel::kCooperative ? 256 : 128;
  typename Kernel::TiledMma tiled_mma;
  std::vector<int> held(size_t(kRows) * kTokens, 0);
  for (int t = 0; t < kThreads; ++t) {
    auto thread_mma = tiled_mma.get_slice(t);
    Tensor coord = thread_mma.partition_C(make_identity_tensor(make_shape(Int<kRows>{}, Int<kTokens>{})));
    Tensor accum = partition_fragment_C(tiled_mma, make_shape(Int<kRows>{}, Int<kTokens>{}));
    ASSERT_EQ(int(size(accum)), Kernel::kAccumValues) << "thread " << t;
    int const warp_group = t / 128;
    // What `store_unit` hoists out of its loops: the thread's first row and token, each atom's
    // row offset from the first (a multiple of 16, so that its output column is the first's +
    // offset / 2) and each (c, j)'s token offset, the same in every atom.
    int const row0 = get<0>(coord(make_coord(make_coord(0, 0, 0), 0, 0)));
    int const token_first = get<1>(coord(make_coord(make_coord(0, 0, 0), 0, 0)));
    int const col_first = 8 * (row0 / 16) + row0 % 8;
    for (int m = 0; m < int(size<1>(accum)); ++m) {
      for (int j = 0; j < int(size<0, 2>(accum)); ++j) {
        for (int c = 0; c < 2; ++c) {
          auto const gate = coord(make_coord(make_coord(c, 0, j), m, 0));
          auto const up = coord(make_coord(make_coord(c, 1, j), m, 0));
          int const row = get<0>(gate), token = get<1>(gate);
          ASSERT_LT(row % 16, 8) << "thread " << t << ": a gate row in an up half";
          ASSERT_EQ(get<0>(up), row + 8) << "thread " << t;
          ASSERT_EQ(get<1>(up), token) << "thread " << t;
          if constexpr (Kernel::kSplitRows) {
            EXPECT_EQ((row / 64) % 2, warp_group) << "thread " << t << ": m64 atom " << row / 64;
          } else if constexpr (Kernel::kCooperative) {
            EXPECT_EQ(token / Kernel::kConsumerTokens, warp_group) << "thread " << t;
          }
          int const row_step = get<0>(coord(make_coord(make_coord(0, 0, 0), m, 0))) - row0;
          int const token_step = get<1>(coord(make_coord(make_coord(c, 0, j), 0, 0))) - token_first;
          ASSERT_EQ(row_step % 16, 0) << "thread " << t << ", atom " << m;
          ASSERT_EQ(8 * (row / 16) + row % 8, col_first + row_step / 2)
              << "thread " << t << ": the hoisted output column of atom " << m;
          ASSERT_EQ(token, token_first + token_step) << "thread " << t << ": the hoisted token of (" << c << ", " << j
                                                     << ") in atom " << m;
          ++held[size_t(row) * kTokens + token];
          ++held[size_t(row + 8) * kTokens + token];
        }
      }
    }
  }
  int wrong = 0;
  for (int v : held) wrong += v != 1;
  EXPECT_EQ(wrong, 0) << "of " << held.size() << " (row, token) cells not held exactly once";
}

TEST(SwapABLayouts, PingpongC96N112) { check_unit_layout<Sm90SwigluSwapABPingpong<cutlass::bfloat16_t, 96, 112, 5>>(); }
TEST(SwapABLayouts, CooperativeC96N224) {
  check_unit_layout<Sm90SwigluSwapABPingpong<cutlass::bfloat16_t, 96, 224, 4, true>>();
}
TEST(SwapABLayouts, CooperativeC64N224) {
  check_unit_layout<Sm90SwigluSwapABPingpong<cutlass::half_t, 64, 224, 5, true>>();
}
TEST(SwapABLayouts, RowSplitCooperativeC128N144) {
  using Kernel = Sm90SwigluSwapABPingpong<cutlass::bfloat16_t, 128, 144, 4, true, true>;
  static_assert(Kernel::kConsumerTokens == 144 && Kernel::kConsumerRows == 128 && Kernel::kAccumValues == 144);
  check_unit_layout<Kernel>();
  check_unit_layout<Sm90SwigluSwapABPingpong<cutlass::half_t, 128, 144, 4, true, true>>();
}

}  // namespace
