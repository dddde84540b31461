// The wave-split configuration's launchers (plan: wave_split.h): the 128x64 TMA-store Pingpong
// tile over output columns [0, split), then the 64x64 TMA-store Pingpong tile over [split, I),
// on the same stream; one launch of the 128x64 tile where the plan does not split. Host code only:
// the two kernels are the registry's own instantiations.
#include "wave_split.h"

#include "swiglu_params.h"

namespace tileglu {
namespace kernels {

cudaError_t launch_k2_pingpong_128x64x64_s6_tma_bf16(const SwigluParams&, int, cudaStream_t);
cudaError_t launch_k2_pingpong_128x64x64_s6_tma_fp16(const SwigluParams&, int, cudaStream_t);
cudaError_t launch_k2_pingpong_64x64x64_s8_tma_bf16(const SwigluParams&, int, cudaStream_t);
cudaError_t launch_k2_pingpong_64x64x64_s8_tma_fp16(const SwigluParams&, int, cudaStream_t);

namespace {

// Columns [split, I) of a validated problem: the weight rows and output columns from `split` on.
// Both dtypes are 2 bytes; split is a multiple of 64, so every pointer keeps the 16-byte
// alignment the launchers' TMA descriptors need (the leading dimensions are multiples of 8).
SwigluParams columns_from(const SwigluParams& p, int split) {
  constexpr int64_t kElementBytes = 2;
  SwigluParams tail = p;
  tail.i = p.i - split;
  tail.w_gate = static_cast<const char*>(p.w_gate) + split * p.ld_gate * kElementBytes;
  tail.w_up = static_cast<const char*>(p.w_up) + split * p.ld_up * kElementBytes;
  tail.out = static_cast<char*>(p.out) + split * kElementBytes;
  return tail;
}

template <LaunchFn kHead, LaunchFn kTail>
cudaError_t launch_wave_split(const SwigluParams& p, int sm_count, cudaStream_t stream) {
  const WaveSplit plan = plan_wave_split(p.m, p.i, sm_count);
  if (plan.split_col == 0) return kHead(p, sm_count, stream);
  SwigluParams head = p;
  head.i = plan.split_col;
  const cudaError_t err = kHead(head, sm_count, stream);
  if (err != cudaSuccess) return err;
  return kTail(columns_from(p, plan.split_col), sm_count, stream);
}

}  // namespace

cudaError_t launch_k2_wavesplit_128x64_64x64_tma_bf16(const SwigluParams& p, int sm_count,
                                                       cudaStream_t stream) {
  return launch_wave_split<launch_k2_pingpong_128x64x64_s6_tma_bf16,
                           launch_k2_pingpong_64x64x64_s8_tma_bf16>(p, sm_count, stream);
}
cudaError_t launch_k2_wavesplit_128x64_64x64_tma_fp16(const SwigluParams& p, int sm_count,
                                                       cudaStream_t stream) {
  return launch_wave_split<launch_k2_pingpong_128x64x64_s6_tma_fp16,
                           launch_k2_pingpong_64x64x64_s8_tma_fp16>(p, sm_count, stream);
}

}  // namespace kernels
}  // namespace tileglu
