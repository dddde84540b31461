// Read-stream probes: how fast this GPU reads N bytes from HBM once, with nothing else to do, by
// the two ways tileglu's decode kernels read their weights. swiglu_bench times them on each
// model's weight bytes (2 * I * K * 2) the way it times decode calls (CUDA-graph replay, L2
// flushed before each call), so a decode row's time can be read against the floor the memory
// system sets for the same bytes, launch and ramp included.
//
// Why: at M <= 16 tileglu streams 72B's 969 MB at 4.3-4.4 TB/s but 7B's 272 MB at 3.9; across
// the shapes about 7 us per call is not stream time (bench/NOTES.md, session 9). Whether that is
// the memory system's (launch, ramp-up, the last bytes' latency) or the kernels' is what these
// probes answer.
//
//   ld.global  2 CTAs per SM x 512 threads, each thread 8 independent 16-byte
//              ld.global.nc.L1::no_allocate loads in flight, grid-strided over the buffer.
//   bulk       one CTA per SM, one thread keeps kBulkSlots 16 KiB cp.async.bulk copies into
//              shared memory in flight (the TMA engine, as the swap-AB kernels use it),
//              chunks grid-strided.
//   tiles      ld.global as above (2 CTAs per SM x 512 threads, 8 loads in flight each), but
//              in the order a GEMM's weight tiles are read: the buffer as [2I rows, K], each
//              CTA an equal block of rows, walked in 128-row groups along K, 128 bytes of each
//              row per step. Against `ld.global` it prices the access pattern alone.
//   bulk on G  `bulk` on G CTAs (one per SM) instead of one per SM: G is the balanced grid of the
//              swap-AB decode kernel's 64-column units (decode_plan.h swapab_balanced_grid, 99 of
//              132 SMs at 7B), so against `bulk` it says whether that many SMs can keep HBM busy.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace stream_probe {

constexpr int kLdThreads = 512;
constexpr int kLdUnroll = 8;
constexpr int kBulkChunk = 16 * 1024;
constexpr int kBulkSlots = 12;  // 192 KiB in flight per SM

// XOR of everything read, one word per CTA: the loads cannot be dropped.
__global__ void __launch_bounds__(kLdThreads) read_ld_global(const uint4* __restrict__ src, int64_t n16,
                                                             uint32_t* __restrict__ sink) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kLdUnroll - 1) * stride < n16; i += kLdUnroll * stride) {
    uint4 v[kLdUnroll];
#pragma unroll
    for (int u = 0; u < kLdUnroll; ++u) {
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                   : "l"(src + i + u * stride));
    }
#pragma unroll
    for (int u = 0; u < kLdUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n16; i += stride) {
    const uint4 v = src[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // Reduce over the warp and keep one word per CTA (lane 0 of each warp races benignly on it).
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) sink[blockIdx.x] = acc;
}

// Row-block order: CTA c reads rows [R c / G, R (c + 1) / G) of the [rows, row16 * 16 bytes]
// matrix, 128 rows at a time, each 128-row group along its whole length in 128-byte steps
// (8 threads per row, 64 rows per 512 threads, 2 row halves x 4 steps = 8 loads in flight).
__global__ void __launch_bounds__(kLdThreads) read_ld_tiles(const uint4* __restrict__ src, int64_t rows,
                                                            int64_t row16, uint32_t* __restrict__ sink) {
  const int64_t row_begin = rows * blockIdx.x / gridDim.x;
  const int64_t row_end = rows * (blockIdx.x + 1) / gridDim.x;
  const int lane_row = int(threadIdx.x) / 8;
  const int word = int(threadIdx.x) % 8;
  uint32_t acc = 0;
  for (int64_t group = row_begin; group < row_end; group += 128) {
    for (int64_t step = 0; step < row16; step += 4 * 8) {
      uint4 v[8];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = group + lane_row + 64 * h;
          const int64_t col = step + 8 * q + word;
          v[2 * q + h] = make_uint4(0, 0, 0, 0);
          if (row < row_end && col < row16) {
            asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v[2 * q + h].x), "=r"(v[2 * q + h].y), "=r"(v[2 * q + h].z), "=r"(v[2 * q + h].w)
                         : "l"(src + row * row16 + col));
          }
        }
      }
#pragma unroll
      for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) sink[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(32) read_bulk(const char* __restrict__ src, int64_t bytes,
                                                uint32_t* __restrict__ sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t bar[kBulkSlots];
  if (threadIdx.x != 0) return;
  const uint32_t smem_base = uint32_t(__cvta_generic_to_shared(smem));
  const uint32_t bar_base = uint32_t(__cvta_generic_to_shared(bar));
  for (int s = 0; s < kBulkSlots; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_base + 8 * s));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const int64_t chunks = (bytes + kBulkChunk - 1) / kBulkChunk;
  uint32_t phase_bits = 0;  // parity of each slot's next completion
  int issued = 0;
  auto wait_slot = [&](int s) {
    const uint32_t parity = (phase_bits >> s) & 1u;
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(bar_base + 8 * s), "r"(parity)
          : "memory");
    }
    phase_bits ^= 1u << s;
  };
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x, ++issued) {
    const int s = issued % kBulkSlots;
    if (issued >= kBulkSlots) wait_slot(s);  // the copy that last used this slot has landed
    const int64_t offset = c * kBulkChunk;
    const uint32_t n = uint32_t(bytes - offset < kBulkChunk ? bytes - offset : kBulkChunk);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_base + 8 * s), "r"(n)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            smem_base + s * kBulkChunk),
        "l"(src + offset), "r"(n), "r"(bar_base + 8 * s)
        : "memory");
  }
  for (int k = 0; k < kBulkSlots && k < issued; ++k) wait_slot((issued - 1 - k) % kBulkSlots);
  sink[blockIdx.x] = uint32_t(reinterpret_cast<volatile uint32_t*>(smem)[0]);
#endif
}

// Enqueue one read of `bytes` (a multiple of 16) from `src`; `sink` holds a word per CTA.
inline cudaError_t launch_ld_global(const void* src, int64_t bytes, uint32_t* sink, int sm_count, cudaStream_t s) {
  read_ld_global<<<2 * sm_count, kLdThreads, 0, s>>>(static_cast<const uint4*>(src), bytes / 16, sink);
  return cudaPeekAtLastError();
}

// `rows` rows of `row_bytes` (a multiple of 16) each, densely packed.
inline cudaError_t launch_ld_tiles(const void* src, int64_t rows, int64_t row_bytes, uint32_t* sink, int sm_count,
                                   cudaStream_t s) {
  read_ld_tiles<<<2 * sm_count, kLdThreads, 0, s>>>(static_cast<const uint4*>(src), rows, row_bytes / 16, sink);
  return cudaPeekAtLastError();
}

// `ctas` CTAs, one per SM (ctas <= the SM count).
// cooperative: launched as the grid stream-K kernels are (cudaLaunchAttributeCooperative), to
// price that launch mode on a kernel that only streams (session 12).
inline cudaError_t launch_bulk(const void* src, int64_t bytes, uint32_t* sink, int ctas, cudaStream_t s,
                               bool cooperative = false) {
  const int smem = kBulkSlots * kBulkChunk;
  static bool opted_in = false;
  if (!opted_in) {
    cudaError_t err = cudaFuncSetAttribute(read_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
    opted_in = true;
  }
  if (!cooperative) {
    read_bulk<<<ctas, 32, smem, s>>>(static_cast<const char*>(src), bytes, sink);
    return cudaPeekAtLastError();
  }
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(ctas), 1, 1);
  config.blockDim = dim3(32, 1, 1);
  config.dynamicSmemBytes = size_t(smem);
  config.stream = s;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, read_bulk, static_cast<const char*>(src), bytes, sink);
}

}  // namespace stream_probe
