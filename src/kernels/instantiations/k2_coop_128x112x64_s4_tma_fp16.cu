// Kernel-2 Cooperative, 128x112 output tile (GEMM tile 128x224x64: each warpgroup one m64n224k16
// WGMMA per k-block, 112 accumulator registers), 4 stages, cluster 1x1, epilogue through a
// row-major shared-memory buffer and a TMA store, fp16. 112 divides qwen2.5-72b's I = 29568 into
// 264 column tiles: whole waves of 132 SMs at every M.
// N = 224 is one of CUTLASS's extended WGMMA shapes, which ss_op_selector offers only under
// CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED; defined here, for this translation unit only (the
// selector's choice for the N of every other tile is the same with or without it).
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#include "../sm90_swiglu_pingpong.hpp"

TILEGLU_INSTANTIATE_PINGPONG(k2_coop_128x112x64_s4_tma, fp16, cutlass::half_t, 128, 112, 64, 4, 1, 0, false, true, true, true)
static_assert(cute::tile_size<1>(typename tileglu::kernels::Sm90SwigluPingpong<
                  cutlass::half_t, 128, 112, 64, 4, 1, 0, false, true, true, true>::TiledMma{}) == 224 &&
                  cute::size<1>(typename tileglu::kernels::Sm90SwigluPingpong<
                  cutlass::half_t, 128, 112, 64, 4, 1, 0, false, true, true, true>::TiledMma::AtomShape_MNK{}) == 224,
              "one N = 224 WGMMA per k-block");
