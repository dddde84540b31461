// The list of shipped kernel configurations. One line per config; each config's launchers are
// instantiated in its own translation unit under instantiations/ so that the builds run in
// parallel. The heuristics (src/dispatch) index into this table.
#include "swiglu_params.h"

namespace tileglu {
namespace kernels {
// Defined in instantiations/k2_<config>.cu.
#define TILEGLU_DECLARE_LAUNCHERS(cfg)                                                   \
  cudaError_t launch_##cfg##_bf16(const SwigluParams&, int, cudaStream_t);            \
  cudaError_t launch_##cfg##_fp16(const SwigluParams&, int, cudaStream_t);
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x64_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x64_c2_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x64x64_s8)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x64x64_p8_s8)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x64x64_p8_s6_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x64x64_p4_s6_tma)
TILEGLU_DECLARE_LAUNCHERS(k1_pingpong_128x64x64_s6)
TILEGLU_DECLARE_LAUNCHERS(k1_pingpong_128x64x64_s6_serial)
TILEGLU_DECLARE_LAUNCHERS(k1_pingpong_128x64x64_s6_sequential)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x128x64_s5)
TILEGLU_DECLARE_LAUNCHERS(k1_pingpong_64x128x64_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x32x64_s12)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x128x64_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x64_s6_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x64x64_s8_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x128x64_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x128x64_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x128x64_s4_tma_split)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x112x64_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x112x64_s5_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x48x64_s10_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x112x64_m2_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c64_n224_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_rowcoop_c128_n144_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_rowcoop_c128_n144_x2_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c96_n224_x2_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_rowcoop_c128_n144_fs_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c96_n224_fs_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x64_c2_s6_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x128x64_c2_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x64_m2_s6_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_coop_128x128x64_m2_s4_tma)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x96x64_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x128x128_s2)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_64x64x128_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_pingpong_128x64x128_s3)
TILEGLU_DECLARE_LAUNCHERS(k2_splitk2_64x64x64_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_splitk4_64x64x64_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_splitk8_64x64x64_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_decode_n8_c8_u4)
TILEGLU_DECLARE_LAUNCHERS(k2_decode_n8_c8_u6)
TILEGLU_DECLARE_LAUNCHERS(k2_decode_n16_c8_u4)
TILEGLU_DECLARE_LAUNCHERS(k2_decode_stream_n8_p16)
TILEGLU_DECLARE_LAUNCHERS(k2_decode_stream_n16_p12)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n8_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n8_s12)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s11)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n32_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n32_s10)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n64_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n64_s9)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n128_s6)
TILEGLU_DECLARE_LAUNCHERS(k2_wavesplit_128x64_64x64_tma)  // wave_split.cpp
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n8_s12_bal)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s11_bal)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s6_bal)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n32_s10_bal)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n64_s9_bal)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n8_s12_sk)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s11_sk)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n32_s9_sk)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n8_s12_gsk)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_n16_s11_gsk)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_pp_c96_n128_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_pp_c96_n112_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_pp_c64_n176_s5)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c96_n176_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c96_n224_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c96_n256_s4)
TILEGLU_DECLARE_LAUNCHERS(k2_swapab_coop_c128_n128_s4)
#undef TILEGLU_DECLARE_LAUNCHERS
}  // namespace kernels

namespace {
// name, kernel, tile_m, tile_n (output columns), tile_k, stages, cluster_m, cluster_n,
// promote_k_tiles, split_k, cost_model_candidate, ablation[, max_m]
const KernelEntry kRegistry[] = {
    {{"k2_pingpong_128x64x64_s6", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false},
     kernels::launch_k2_pingpong_128x64x64_s6_bf16, kernels::launch_k2_pingpong_128x64x64_s6_fp16},
    {{"k2_pingpong_128x64x64_c2_s6", 2, 128, 64, 64, 6, 1, 2, 0, 1, true, false},
     kernels::launch_k2_pingpong_128x64x64_c2_s6_bf16, kernels::launch_k2_pingpong_128x64x64_c2_s6_fp16},
    {{"k2_pingpong_64x64x64_s8", 2, 64, 64, 64, 8, 1, 1, 0, 1, true, false},
     kernels::launch_k2_pingpong_64x64x64_s8_bf16, kernels::launch_k2_pingpong_64x64x64_s8_fp16},
    // Promoted accumulation. H200 smoke runs, sampled rows, vs 128x64x64_s6 at M = 4096/16384:
    // >1-ulp outputs 7 vs 47-49 of 151552 (7b, K=3584) and 2-3 vs 37-42 of 59136 (72b, K=8192);
    // throughput 14-21% lower (bench/NOTES.md; README.md, section Numerics). Never the default:
    // runs only with TILEGLU_ACCUMULATION=promoted or TILEGLU_FORCE_CONFIG.
    {{"k2_pingpong_64x64x64_p8_s8", 2, 64, 64, 64, 8, 1, 1, 8, 1, true, false},
     kernels::launch_k2_pingpong_64x64x64_p8_s8_bf16, kernels::launch_k2_pingpong_64x64x64_p8_s8_fp16},
    // Kernel-1: separate gate and up accumulators (two 64x64 WGMMA chains per warpgroup), the
    // 128x64 tile of k2_pingpong_128x64x64_s6. Not measured yet: runs only when forced.
    {{"k1_pingpong_128x64x64_s6", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, false},
     kernels::launch_k1_pingpong_128x64x64_s6_bf16, kernels::launch_k1_pingpong_128x64x64_s6_fp16},
    // The overlap ablation of Kernel-1: the tensor cores pass to the other consumer only after
    // this one's epilogue. Benchmark-only: runs only when forced.
    {{"k1_pingpong_128x64x64_s6_serial", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, true},
     kernels::launch_k1_pingpong_128x64x64_s6_serial_bf16,
     kernels::launch_k1_pingpong_128x64x64_s6_serial_fp16},
    // The design's literal "Swish on Gate while Up loads": a gate K sweep, then an up K sweep
    // (X read twice) with SiLU on the gate accumulator under the up WGMMAs. Benchmark-only:
    // runs only when forced.
    {{"k1_pingpong_128x64x64_s6_sequential", 1, 128, 64, 64, 6, 1, 1, 0, 1, false, true},
     kernels::launch_k1_pingpong_128x64x64_s6_sequential_bf16,
     kernels::launch_k1_pingpong_128x64x64_s6_sequential_fp16},
    // Kernel-2 with one m64n256k16 WGMMA per k-block: fewer shared-memory operand bytes per MAC
    // than the 128x64 tile's two m64n128k16, more L2 bytes per MAC.
    {{"k2_pingpong_64x128x64_s5", 2, 64, 128, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x128x64_s5_bf16, kernels::launch_k2_pingpong_64x128x64_s5_fp16},
    // Kernel-1 at the register budget the design names: two 64x128 fp32 accumulators.
    {{"k1_pingpong_64x128x64_s5", 1, 64, 128, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k1_pingpong_64x128x64_s5_bf16, kernels::launch_k1_pingpong_64x128x64_s5_fp16},
    // Twice the tiles of the 64x64 tile, for small M where the 64x64 tiles leave SMs idle.
    {{"k2_pingpong_64x32x64_s12", 2, 64, 32, 64, 12, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x32x64_s12_bf16, kernels::launch_k2_pingpong_64x32x64_s12_fp16},
    // Cooperative: both consumer warpgroups on one 128 x 2*128 GEMM tile, a quarter fewer
    // operand bytes per MAC than the 128 x 2*64 Pingpong tile, the epilogue not overlapped.
    {{"k2_coop_128x128x64_s4", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x128x64_s4_bf16, kernels::launch_k2_coop_128x128x64_s4_fp16},
    // The same tiles with the epilogue staged in shared memory and stored by TMA
    // (Sm90SwigluTmaStore), stage counts sized to leave room for the staging buffers.
    {{"k2_pingpong_128x64x64_s6_tma", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_128x64x64_s6_tma_bf16, kernels::launch_k2_pingpong_128x64x64_s6_tma_fp16},
    {{"k2_pingpong_64x64x64_s8_tma", 2, 64, 64, 64, 8, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x64x64_s8_tma_bf16, kernels::launch_k2_pingpong_64x64x64_s8_tma_fp16},
    {{"k2_pingpong_64x128x64_s4_tma", 2, 64, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x128x64_s4_tma_bf16, kernels::launch_k2_pingpong_64x128x64_s4_tma_fp16},
    {{"k2_coop_128x128x64_s4_tma", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x128x64_s4_tma_bf16, kernels::launch_k2_coop_128x128x64_s4_tma_fp16},
    // The TMA-store tiles in 1x2 clusters multicasting X: the L2 -> SM operand bytes per MAC of
    // the Cooperative tile fall to those of cuBLAS's 256x128 1x2-cluster kernel, which ncu shows
    // at 50 % L2 throughput and a higher clock than our unclustered tiles at 72-74 % (H200,
    // qwen2.5-0.5b M = 16384, bench/NOTES.md session 5).
    {{"k2_pingpong_128x64x64_c2_s6_tma", 2, 128, 64, 64, 6, 1, 2, 0, 1, false, false},
     kernels::launch_k2_pingpong_128x64x64_c2_s6_tma_bf16, kernels::launch_k2_pingpong_128x64x64_c2_s6_tma_fp16},
    {{"k2_coop_128x128x64_c2_s4_tma", 2, 128, 128, 64, 4, 1, 2, 0, 1, false, false},
     kernels::launch_k2_coop_128x128x64_c2_s4_tma_bf16, kernels::launch_k2_coop_128x128x64_c2_s4_tma_fp16},
    // Weight multicast: 2x1 clusters share each weight tile between two M-blocks (each CTA loads
    // half the gate and up rows): per CTA and k, L2 -> SM operand rows fall from tile_m + 2 tile_n
    // to tile_m + tile_n; the Cooperative tile then feeds the same bytes per MAC as cuBLAS's 256x128
    // 1x2 kernel. Measured (H200, two same-process tune runs, 42 shape x M rows at M >= 2048): the
    // Pingpong m2 tile takes 1.02x the unclustered one's time (geomean; two rows tie or win), so
    // L2 -> SM bytes are not what holds the large-M tiles back. The Cooperative m2 tile took
    // 0.92-1.06x the unclustered Cooperative tile (one run); 2x2 clusters (X multicast too)
    // 0.98-1.10x the Pingpong tile and are not shipped, though the kernel supports them
    // (bench/NOTES.md session 6).
    {{"k2_pingpong_128x64x64_m2_s6_tma", 2, 128, 64, 64, 6, 2, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_128x64x64_m2_s6_tma_bf16, kernels::launch_k2_pingpong_128x64x64_m2_s6_tma_fp16},
    {{"k2_coop_128x128x64_m2_s4_tma", 2, 128, 128, 64, 4, 2, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x128x64_m2_s4_tma_bf16, kernels::launch_k2_coop_128x128x64_m2_s4_tma_fp16},
    // 96 output columns (a 192-wide GEMM tile, WGMMA N = 192), for whole waves at prefill M of a
    // few hundred (7B M = 256: 4 x 198 tiles = 6.0 waves of 132 SMs, against 4.48 for 128x64).
    // Measured: wins 7B M = 100/128, 72B M = 100, 3B M = 512 by 1.5-2 %, 1.04-1.3x elsewhere (the
    // 128x96 Cooperative tile lost every row and is not shipped). No TMA-store variant: its
    // staging swizzle wants 64 | tile_n.
    {{"k2_pingpong_64x96x64_s6", 2, 64, 96, 64, 6, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x96x64_s6_bf16, kernels::launch_k2_pingpong_64x96x64_s6_fp16},
    // 128-deep k tiles: each stage reads 256 contiguous bytes of every weight row (two TMA boxes
    // per operand) instead of 128, and the consumers wait on half as many barriers.
    {{"k2_pingpong_64x128x128_s2", 2, 64, 128, 128, 2, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x128x128_s2_bf16, kernels::launch_k2_pingpong_64x128x128_s2_fp16},
    {{"k2_pingpong_64x64x128_s4", 2, 64, 64, 128, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x64x128_s4_bf16, kernels::launch_k2_pingpong_64x64x128_s4_fp16},
    {{"k2_pingpong_128x64x128_s3", 2, 128, 64, 128, 3, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_128x64x128_s3_bf16, kernels::launch_k2_pingpong_128x64x128_s3_fp16},
    // Split-K for small M: each 64x64 output tile's K sweep spread over a cluster of 2, 4 or 8
    // CTAs that reduce through DSMEM; more work units than tiles when the weights are few rows.
    {{"k2_splitk2_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 2, false, false},
     kernels::launch_k2_splitk2_64x64x64_s4_bf16, kernels::launch_k2_splitk2_64x64x64_s4_fp16},
    {{"k2_splitk4_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 4, false, false},
     kernels::launch_k2_splitk4_64x64x64_s4_bf16, kernels::launch_k2_splitk4_64x64x64_s4_fp16},
    {{"k2_splitk8_64x64x64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 8, false, false},
     kernels::launch_k2_splitk8_64x64x64_s4_bf16, kernels::launch_k2_splitk8_64x64x64_s4_fp16},
    // Decode (sm90_swiglu_decode.hpp): swap-AB mma.sync with the weights streamed into registers,
    // K split across the warps of each CTA; tile_m = tokens per CTA, tile_n = output columns per
    // warp, tile_k = k in flight per warp. Valid up to M = 64 (max_m): each block of tile_m tokens
    // re-reads the weights.
    {{"k2_decode_n8_c8_u4", 2, 8, 8, 128, 1, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_decode_n8_c8_u4_bf16, kernels::launch_k2_decode_n8_c8_u4_fp16},
    {{"k2_decode_n8_c8_u6", 2, 8, 8, 192, 1, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_decode_n8_c8_u6_bf16, kernels::launch_k2_decode_n8_c8_u6_fp16},
    {{"k2_decode_n16_c8_u4", 2, 16, 8, 128, 1, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_decode_n16_c8_u4_bf16, kernels::launch_k2_decode_n16_c8_u4_fp16},
    // The streaming variant: persistent, one CTA per SM, a ring of `stages` k steps per warp in
    // shared memory (cp.async); tile_k = 32 * stages.
    {{"k2_decode_stream_n8_p16", 2, 8, 8, 512, 16, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_decode_stream_n8_p16_bf16, kernels::launch_k2_decode_stream_n8_p16_fp16},
    {{"k2_decode_stream_n16_p12", 2, 16, 8, 384, 12, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_decode_stream_n16_p12_bf16, kernels::launch_k2_decode_stream_n16_p12_fp16},
    // Swap-AB WGMMA (sm90_swiglu_swapab.hpp): 128 weight rows (64 gate, 64 up) on the WGMMA's M
    // side, tile_m tokens on its N side, TMA stages of 64 k; K split over a cluster of 1-8 CTAs
    // chosen per launch (decode_plan.h), reported here as split_k 1. Valid up to max_m: past it
    // each further token block re-reads the weights.
    {{"k2_swapab_n8_s6", 2, 8, 64, 64, 6, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n8_s6_bf16, kernels::launch_k2_swapab_n8_s6_fp16},
    {{"k2_swapab_n8_s12", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n8_s12_bf16, kernels::launch_k2_swapab_n8_s12_fp16},
    {{"k2_swapab_n16_s6", 2, 16, 64, 64, 6, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s6_bf16, kernels::launch_k2_swapab_n16_s6_fp16},
    {{"k2_swapab_n16_s11", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s11_bf16, kernels::launch_k2_swapab_n16_s11_fp16},
    {{"k2_swapab_n32_s5", 2, 32, 64, 64, 5, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n32_s5_bf16, kernels::launch_k2_swapab_n32_s5_fp16},
    {{"k2_swapab_n32_s10", 2, 32, 64, 64, 10, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n32_s10_bf16, kernels::launch_k2_swapab_n32_s10_fp16},
    // 64 and 128 tokens per CTA: the weights stream once for M up to 64 / 128, where the Pingpong
    // tiles re-read them per 64-row tile. Measured on the Qwen2.5 shapes (H200, session 5): n64_s9
    // ties the Pingpong tiles at 72B M = 48 and wins nothing else; n128_s6 (one CTA per SM) takes
    // 1.12-1.84x the best tile at M = 100/128, so no table picks it: the tuner still times both.
    {{"k2_swapab_n64_s4", 2, 64, 64, 64, 4, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n64_s4_bf16, kernels::launch_k2_swapab_n64_s4_fp16},
    {{"k2_swapab_n64_s9", 2, 64, 64, 64, 9, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n64_s9_bf16, kernels::launch_k2_swapab_n64_s9_fp16},
    {{"k2_swapab_n128_s6", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false, 128},
     kernels::launch_k2_swapab_n128_s6_bf16, kernels::launch_k2_swapab_n128_s6_fp16},
    // Promoted accumulation at the 128x64 tile: Cooperative (each warpgroup 64 x 2*64, so the
    // promoted and the scratch accumulator fit), the warpgroups promoting half a chunk apart and
    // the next tile's first WGMMAs issued under the epilogue (the mainloop's promoted_tile_loop).
    // Every 8 or every 4 k tiles. H200, M = 2048-16384, time / the 128x64 TMA-store Pingpong
    // tile: p8 1.03-1.09 at 14B-72B, 1.09-1.24 at 0.5B-7B (the 64x64 p8 tile: 1.14-1.80), p4
    // 1.14-1.28 (bench/NOTES.md session 7). p8 is the promoted mode's cost-model candidate
    // wherever the model picks a 128-row tile; the 64x64 p8 tile where it picks 64 rows.
    {{"k2_coop_128x64x64_p8_s6_tma", 2, 128, 64, 64, 6, 1, 1, 8, 1, true, false},
     kernels::launch_k2_coop_128x64x64_p8_s6_tma_bf16, kernels::launch_k2_coop_128x64x64_p8_s6_tma_fp16},
    {{"k2_coop_128x64x64_p4_s6_tma", 2, 128, 64, 64, 6, 1, 1, 4, 1, false, false},
     kernels::launch_k2_coop_128x64x64_p4_s6_tma_bf16, kernels::launch_k2_coop_128x64x64_p4_s6_tma_fp16},
    // Wave split (wave_split.h): k2_pingpong_128x64x64_s6_tma over the output columns that fill
    // whole waves, k2_pingpong_64x64x64_s8_tma over the rest, two launches; one launch of the
    // former where the split saves no wave. The fields describe the 128x64 part.
    {{"k2_wavesplit_128x64_64x64_tma", 2, 128, 64, 64, 6, 1, 1, 0, 1, false, false},
     kernels::launch_k2_wavesplit_128x64_64x64_tma_bf16, kernels::launch_k2_wavesplit_128x64_64x64_tma_fp16},
    // Swap-AB on the balanced persistent grid (sm90_swiglu_swapab.hpp, kPersistent): every CTA
    // streams the same number of units back to back and all end together, where the configs
    // above launch one CTA per unit in waves (7B: 2.24 waves of 132 CTAs).
    {{"k2_swapab_n8_s12_bal", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n8_s12_bal_bf16, kernels::launch_k2_swapab_n8_s12_bal_fp16},
    {{"k2_swapab_n16_s11_bal", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s11_bal_bf16, kernels::launch_k2_swapab_n16_s11_bal_fp16},
    {{"k2_swapab_n16_s6_bal", 2, 16, 64, 64, 6, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s6_bal_bf16, kernels::launch_k2_swapab_n16_s6_bal_fp16},
    {{"k2_swapab_n32_s10_bal", 2, 32, 64, 64, 10, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n32_s10_bal_bf16, kernels::launch_k2_swapab_n32_s10_bal_fp16},
    {{"k2_swapab_n64_s9_bal", 2, 64, 64, 64, 9, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n64_s9_bal_bf16, kernels::launch_k2_swapab_n64_s9_bal_fp16},
    // Swap-AB on the cluster stream-K grid (kSwapABStreamK): clusters of 2-4 CTAs, each a run
    // of whole units whose k tiles its CTAs share evenly (so a cluster's CTAs end together).
    {{"k2_swapab_n8_s12_sk", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n8_s12_sk_bf16, kernels::launch_k2_swapab_n8_s12_sk_fp16},
    {{"k2_swapab_n16_s11_sk", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s11_sk_bf16, kernels::launch_k2_swapab_n16_s11_sk_fp16},
    {{"k2_swapab_n32_s9_sk", 2, 32, 64, 64, 9, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n32_s9_sk_bf16, kernels::launch_k2_swapab_n32_s9_sk_fp16},
    // Swap-AB on the grid stream-K grid (kSwapABGridStreamK): one run of all units over every
    // resident CTA, equal k tiles each, cut units met through global memory (cooperative launch).
    {{"k2_swapab_n8_s12_gsk", 2, 8, 64, 64, 12, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n8_s12_gsk_bf16, kernels::launch_k2_swapab_n8_s12_gsk_fp16},
    {{"k2_swapab_n16_s11_gsk", 2, 16, 64, 64, 11, 1, 1, 0, 1, false, false, 64},
     kernels::launch_k2_swapab_n16_s11_gsk_bf16, kernels::launch_k2_swapab_n16_s11_gsk_fp16},
    // Swap-AB Pingpong (sm90_swiglu_swapab_pingpong.hpp): tile_n output columns (2 * tile_n
    // weight rows, gate and up interleaved by 8) on the WGMMA's M side, tile_m tokens on its N
    // side, two consumer warpgroups: cuBLAS's nvjet shapes (192 x 128 at 7B M = 256, 1 x 176 at
    // 72B M = 1537), whole waves and ragged M in 8-token steps. Any M.
    {{"k2_swapab_pp_c96_n128_s5", 2, 128, 96, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_pp_c96_n128_s5_bf16, kernels::launch_k2_swapab_pp_c96_n128_s5_fp16},
    {{"k2_swapab_pp_c96_n112_s5", 2, 112, 96, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_pp_c96_n112_s5_bf16, kernels::launch_k2_swapab_pp_c96_n112_s5_fp16},
    {{"k2_swapab_pp_c64_n176_s5", 2, 176, 64, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_pp_c64_n176_s5_bf16, kernels::launch_k2_swapab_pp_c64_n176_s5_fp16},
    // The same kernel with both consumer warpgroups on every unit, each half of its tokens
    // (kCooperative): units up to 192 x 256, fewer operand bytes per FLOP.
    {{"k2_swapab_coop_c96_n176_s4", 2, 176, 96, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c96_n176_s4_bf16, kernels::launch_k2_swapab_coop_c96_n176_s4_fp16},
    {{"k2_swapab_coop_c96_n224_s4", 2, 224, 96, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c96_n224_s4_bf16, kernels::launch_k2_swapab_coop_c96_n224_s4_fp16},
    {{"k2_swapab_coop_c96_n256_s4", 2, 256, 96, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c96_n256_s4_bf16, kernels::launch_k2_swapab_coop_c96_n256_s4_fp16},
    {{"k2_swapab_coop_c128_n128_s4", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c128_n128_s4_bf16, kernels::launch_k2_swapab_coop_c128_n128_s4_fp16},
    // The Cooperative 128x128 TMA-store tile on a grid of one CTA per SM, each tile of the last,
    // partial wave cut in up to 3 pieces of K spread over every CTA, the pieces summed through
    // global memory (split_tail_plan.h): for the shapes whose tiles leave a partial last wave (14B
    // and 32B at M = 256: 1.64 and 3.27 waves). Measured on an H100 (bench/NOTES.md session 21):
    // 0.93-0.95x the whole-tile kernel's time where tiles are cut at 7B-72B, 1.005-1.013x where
    // none are, 1.06-1.09x at 14B M = 256 and up to 1.66x at short K; no faster than the tiles the
    // tables pick for those rows, so tuner-only: no table runs it.
    {{"k2_coop_128x128x64_s4_tma_split", 2, 128, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x128x64_s4_tma_split_bf16, kernels::launch_k2_coop_128x128x64_s4_tma_split_fp16},
    // 112-column tiles (GEMM N = 224), for the tile counts 128 columns quantise badly: at
    // qwen2.5-14b M = 256 (I = 13824) the 128x128 tile makes 216 tiles, 1.64 waves of 132 SMs run
    // in 2 rounds, where 128x112 makes 248 tiles, 2 rounds of 7/8 the work each; so do 14b
    // M <= 512 and 32b M = 1000-1024 and 2048 on paper (0.875-0.97 of the 128-column rounds).
    // Measured (H100, session 22): 14b M = 256 123.5 us against 134.5 for 128x128 and 136.6 for
    // the 64x64 Pingpong tile the table ran; the H100 table runs 128x112 there and at 72b M = 128,
    // 64x112 at 1.5b M = 512, 64x48 at 1.5b M = 100-256. Where whole waves of 128 columns fit
    // (large M) it is no faster: it loads more operand bytes per MAC.
    {{"k2_coop_128x112x64_s4_tma", 2, 128, 112, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x112x64_s4_tma_bf16, kernels::launch_k2_coop_128x112x64_s4_tma_fp16},
    {{"k2_pingpong_64x112x64_s5_tma", 2, 64, 112, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x112x64_s5_tma_bf16, kernels::launch_k2_pingpong_64x112x64_s5_tma_fp16},
    // 48-column tiles for short-K mid-M shapes: qwen2.5-1.5b M = 256 (I = 8960) in 64x64 tiles is
    // 560 tiles, 4.24 per SM run in 5; 64x48 makes 748, 5.67 in 6 rounds of 3/4 the work (0.9).
    {{"k2_pingpong_64x48x64_s10_tma", 2, 64, 48, 64, 10, 1, 1, 0, 1, false, false},
     kernels::launch_k2_pingpong_64x48x64_s10_tma_bf16, kernels::launch_k2_pingpong_64x48x64_s10_tma_fp16},
    // The 112-column Cooperative tile in 2x1 clusters sharing each weight tile between two
    // M-blocks: per CTA and k, 240 operand rows from L2 instead of 352 (14b M = 256 unclustered:
    // 589 TFLOP/s, ~12 TB/s of L2 -> SM operand bytes over 132 SMs). Measured (H100, session 22,
    // 7B-72B at M = 128-2048): at best within 1 % of the fastest unclustered tile (32b M = 256,
    // 72b M = 1000), 10-24 % behind it at M = 128 and 3-9 % at M = 1537; no table runs it.
    {{"k2_coop_128x112x64_m2_s4_tma", 2, 128, 112, 64, 4, 2, 1, 0, 1, false, false},
     kernels::launch_k2_coop_128x112x64_m2_s4_tma_bf16, kernels::launch_k2_coop_128x112x64_m2_s4_tma_fp16},
    // The swap-AB Cooperative unit at 64 output columns: more units for the ragged M whose
    // 96-column units leave the last round part-empty. 32B M = 1537: 432 x 7 = 3024 units, 22.9
    // rounds of 132 run in 23, against c96's 2016 units, 15.3 in 16 (more operand bytes per MAC
    // though: 128 + 224 rows per 128 x 224 MACs against 192 + 224 per 192 x 224). Measured (H100,
    // session 23, 0.5B-72B at M = 1000-2048): its tests pass, but it lost every row to the c96
    // units or the incumbent: 32B M = 1537 1418 us against c96 n224's 1390, 7B-72B at M = 1537
    // 1-5 % behind, and 27-45 % at M = 2048 (the operand bytes per MAC). No table runs it; the
    // tuner times it.
    {{"k2_swapab_coop_c64_n224_s5", 2, 224, 64, 64, 5, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c64_n224_s5_bf16, kernels::launch_k2_swapab_coop_c64_n224_s5_fp16},
    // The swap-AB Cooperative unit split by weight rows (sm90_swiglu_swapab_pingpong.hpp,
    // kSplitRows): 256 weight rows x 144 tokens, cuBLAS's tile at 32B M = 1537 (session 23's ncu:
    // `nvjet_sm90_tst_256x144_..._coopA`, 95.7 % SM throughput against 82.1 % for c96 n224).
    // M = 1537 in 11 token blocks: 32B 2376 units = 18 whole rounds of 132, 14B 1188 = 9, against
    // c96 n224's 15.3 and 7.6. Measured (H100, session 24, every model at M = 512-2048): its tests
    // pass; 32B M = 1537 1433 us against c96 n224's 1448 (1 %, under the tuner's margin), M = 1000
    // a tie with the 128x64 Pingpong tile, 1-78 % behind elsewhere. No table runs it.
    {{"k2_swapab_rowcoop_c128_n144_s4", 2, 144, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_rowcoop_c128_n144_s4_bf16, kernels::launch_k2_swapab_rowcoop_c128_n144_s4_fp16},
    // The two swap-AB Cooperative units of 32B-72B M = 1537 in 2-CTA clusters (kClusterCols = 2):
    // the CTAs take adjacent column blocks of one token block and each loads half of the tokens,
    // multicast to both, as cuBLAS's `..._256x144_..._2x1_..._coopA` does there. Per stage a CTA
    // reads 256 + 72 (c128 n144) or 192 + 112 (c96 n224) operand rows from L2 instead of 256 + 144
    // or 192 + 224. Measured (H100, session 24): their tests pass; an A/B at 14B, 32B, 72B M = 1300,
    // 1537, 1792 against c96 n224 gave 0.99-1.01, and 1.058 (slower) for rowcoop x2 at 32B M = 1300:
    // the tensor pipe waits on the epilogue, not on operand bytes. No table runs them.
    {{"k2_swapab_rowcoop_c128_n144_x2_s4", 2, 144, 128, 64, 4, 1, 2, 0, 1, false, false},
     kernels::launch_k2_swapab_rowcoop_c128_n144_x2_s4_bf16, kernels::launch_k2_swapab_rowcoop_c128_n144_x2_s4_fp16},
    {{"k2_swapab_coop_c96_n224_x2_s4", 2, 224, 96, 64, 4, 1, 2, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c96_n224_x2_s4_bf16, kernels::launch_k2_swapab_coop_c96_n224_x2_s4_fp16},
    // The same two units with the SiLU without the IEEE division (swiglu_activation.hpp): in a
    // Cooperative unit the tensor pipe waits for the epilogue, and ptxas serialises a range check
    // and slow-path call per output around the division. Measured (H100, session 24): tests pass;
    // against its twin c96 n224 fs 0.90-0.99 on 27 of 28 rows of a tune (M = 512-2048), 0.972-0.978
    // in an A/B at 14B-72B M = 1537, where the H100 table runs it; rowcoop fs 0.92-1.03, no table
    // runs it.
    {{"k2_swapab_rowcoop_c128_n144_fs_s4", 2, 144, 128, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_rowcoop_c128_n144_fs_s4_bf16, kernels::launch_k2_swapab_rowcoop_c128_n144_fs_s4_fp16},
    {{"k2_swapab_coop_c96_n224_fs_s4", 2, 224, 96, 64, 4, 1, 1, 0, 1, false, false},
     kernels::launch_k2_swapab_coop_c96_n224_fs_s4_bf16, kernels::launch_k2_swapab_coop_c96_n224_fs_s4_fp16},
};
}  // namespace

const KernelEntry* kernel_registry(int* count) {
  *count = static_cast<int>(sizeof(kRegistry) / sizeof(kRegistry[0]));
  return kRegistry;
}

}  // namespace tileglu
