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
//   tma tiles  one CTA per SM, one thread keeps kTmaSlots 16 KiB slots of 2D TMA tiles in flight
//              in the swap-AB kernels' order: the buffer as [gate I rows | up I rows] x K, unit u
//              = gate rows [64 u, 64 u + 64) and the same up rows, CTA c taking units c, c + G, ...,
//              each along K; a slot = one gate box and the matching up box (8 KiB each). Variants
//              (TmaTilesVariant): the kernels' 64 x 64-element 128-byte-swizzled boxes at 128-byte
//              L2 promotion (CuTe's), at 256-byte promotion, issued 4 slots at a time, with unit
//              u's sweep starting at k box u (so a wave's CTAs stand at different k), and boxes
//              of 16 rows x 256 elements (512 bytes of each row at once). Against `bulk` it prices
//              the kernels' access pattern through the TMA unit itself (session 13).
//   packed     the same slots in the same order, but from a buffer laid out slot by slot (unit u,
//              k box j: its gate box then its up box, 16 KiB contiguous), as a pre-packed weight
//              format would store them: read by two 2D TMA boxes per slot (`tma_packed_*`, the
//              buffer viewed as [2 I K / 64 rows, 64]) or one 16 KiB 1D bulk copy
//              (`bulk_packed_units`). Why (session 19): on the H200 `tma_64x64_l2_128` reads
//              72B's weights in 235 us where `bulk` takes 215, and the decode kernels run at the
//              former; if the packed reads run at `bulk`'s speed, it is the row-strided order
//              that costs the 10 %, and a packed weight layout would recover it. On an H100
//              (72B) tile order read in 318.5 us either way against `bulk`'s 309.4: each CTA
//              streams its own region. `*_korder`: the slots in k order (all units' k box 0,
//              then k box 1, ...), so a wave's CTAs read neighbouring slots and the GPU sweeps
//              memory linearly, as `bulk` does.
#pragma once

#include <cstdint>

#include <cuda.h>
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

// Spins until the mbarrier at shared address `bar` completes the phase of parity `parity`.
__device__ __forceinline__ void wait_barrier_parity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  }
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
    wait_barrier_parity(bar_base + 8 * s, parity);
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

constexpr int kTmaSlots = 12;
constexpr int kTmaSlotBytes = 16 * 1024;  // a gate box and an up box of 8 KiB
constexpr int kTmaUnitRows = 64;

struct TmaTilesVariant {
  const char* name;
  int box_k;      // elements of K per box (64: 128 bytes, swizzled as the kernels' boxes)
  int box_rows;   // rows per box: box_k * box_rows * 2 bytes = 8 KiB
  int promotion;  // L2 promotion, bytes
  int batch;      // slots issued together once that many are free (divides kTmaSlots)
  int stagger;    // unit u's sweep starts at box column u x stagger (mod the row's boxes) and wraps
  int packed;     // 0: the [2I, K] row-major buffer; 1: the slot-by-slot packed buffer, 2D TMA
                  // boxes; 2: the packed buffer, one 1D bulk copy per slot (box 64 x 64 only);
                  // 3, 4: as 1, 2 with the slots in k order
};
constexpr TmaTilesVariant kTmaTilesVariants[] = {
    {"tma_64x64_l2_128", 64, 64, 128, 1, 0, 0},
    {"tma_64x64_l2_256", 64, 64, 256, 1, 0, 0},
    {"tma_64x64_l2_128_batch4", 64, 64, 128, 4, 0, 0},
    {"tma_64x64_l2_128_stagger1", 64, 64, 128, 1, 1, 0},
    {"tma_256x16_l2_256", 256, 16, 256, 1, 0, 0},
    {"tma_packed_64x64_l2_128", 64, 64, 128, 1, 0, 1},
    {"tma_packed_64x64_l2_256", 64, 64, 256, 1, 0, 1},
    {"bulk_packed_units", 64, 64, 0, 1, 0, 2},
    {"tma_packed_korder_l2_256", 64, 64, 256, 1, 0, 3},
    {"bulk_packed_korder", 64, 64, 0, 1, 0, 4},
};
constexpr int kTmaTilesVariantCount = int(sizeof(kTmaTilesVariants) / sizeof(kTmaTilesVariants[0]));

__global__ void __launch_bounds__(32) read_tma_tiles(const __grid_constant__ CUtensorMap map,
                                                     const char* __restrict__ src, int units, int i_rows,
                                                     int k, int box_k, int box_rows, int batch, int stagger,
                                                     int packed, uint32_t* __restrict__ sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) char smem_raw[];
  __shared__ __align__(8) uint64_t bar[kTmaSlots];
  if (threadIdx.x != 0) return;
  // 1024-byte aligned: the swizzled boxes need it.
  const uint32_t smem_base = (uint32_t(__cvta_generic_to_shared(smem_raw)) + 1023u) & ~1023u;
  const uint32_t bar_base = uint32_t(__cvta_generic_to_shared(bar));
  for (int s = 0; s < kTmaSlots; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_base + 8 * s));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const uint64_t map_addr = reinterpret_cast<uint64_t>(&map);
  const uint32_t box_bytes = uint32_t(box_k * box_rows * 2);
  uint32_t phase_bits = 0;  // parity of each slot's next completion
  uint32_t pending = 0;     // slots with a copy in flight
  auto wait_slot = [&](int s) {
    if (!((pending >> s) & 1u)) return;
    const uint32_t parity = (phase_bits >> s) & 1u;
    wait_barrier_parity(bar_base + 8 * s, parity);
    phase_bits ^= 1u << s;
    pending &= ~(1u << s);
  };
  int issued = 0;
  const int k_boxes = (k + box_k - 1) / box_k;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const int first = int(int64_t(u) * stagger % k_boxes);
    for (int step = 0; step < k_boxes; ++step) {
      const int k0 = (first + step < k_boxes ? first + step : first + step - k_boxes) * box_k;
      for (int r0 = 0; r0 < kTmaUnitRows; r0 += box_rows, ++issued) {
        const int s = issued % kTmaSlots;
        if (issued % batch == 0) {
          for (int j = 0; j < batch; ++j) wait_slot((s + j) % kTmaSlots);
        }
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_base + 8 * s),
                     "r"(2 * box_bytes)
                     : "memory");
        const uint32_t dst = smem_base + uint32_t(s) * kTmaSlotBytes;
        const int row = kTmaUnitRows * u + r0;
        // The packed buffer's slot, 16 KiB (box 64 x 64): unit u's k boxes contiguous (tile order)
        // or every unit's k box j together (k order).
        const int64_t slot = packed >= 3 ? int64_t(k0 / box_k) * units + u : int64_t(u) * k_boxes + k0 / box_k;
        if (packed == 2 || packed == 4) {
          asm volatile(
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
              "l"(src + slot * kTmaSlotBytes), "r"(uint32_t(kTmaSlotBytes)), "r"(bar_base + 8 * s)
              : "memory");
        } else {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int box_row = packed ? int((2 * slot + h) * box_rows) : row + h * i_rows;
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                "[%4];" ::"r"(dst + uint32_t(h) * box_bytes),
                "l"(map_addr), "r"(packed ? 0 : k0), "r"(box_row), "r"(bar_base + 8 * s)
                : "memory");
          }
        }
        pending |= 1u << s;
      }
    }
  }
  for (int s = 0; s < kTmaSlots; ++s) wait_slot(s);
  sink[blockIdx.x] = uint32_t(reinterpret_cast<volatile uint32_t*>(smem_raw)[0]);
#endif
}

// The [2 i_rows, k] bf16 buffer `src` read once in the order of `v` on one CTA per SM.
inline cudaError_t launch_tma_tiles(const void* src, int i_rows, int k, const TmaTilesVariant& v, uint32_t* sink,
                                    int ctas, cudaStream_t s) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      fn = nullptr;
    }
    return reinterpret_cast<Encode>(fn);
  }();
  if (encode == nullptr) return cudaErrorNotSupported;
  const int smem = kTmaSlots * kTmaSlotBytes + 1024;
  static bool opted_in = false;
  if (!opted_in) {
    cudaError_t err = cudaFuncSetAttribute(read_tma_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
    opted_in = true;
  }
  // The packed variants read slots of one 64 x 64 gate box and one up box, whole k boxes only.
  if (v.packed != 0 && (v.box_k != 64 || v.box_rows != kTmaUnitRows || k % 64 != 0)) return cudaErrorInvalidValue;
  CUtensorMap map{};
  // Packed: the buffer as rows of 64 elements, a box 8 KiB of contiguous bytes.
  const cuuint64_t total_elements = cuuint64_t(2) * cuuint64_t(i_rows) * cuuint64_t(k);
  const cuuint64_t dims[2] = {v.packed ? cuuint64_t(64) : cuuint64_t(k),
                              v.packed ? total_elements / 64 : cuuint64_t(2) * cuuint64_t(i_rows)};
  const cuuint64_t strides[1] = {v.packed ? cuuint64_t(128) : cuuint64_t(k) * 2};
  const cuuint32_t box[2] = {cuuint32_t(v.box_k), cuuint32_t(v.box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapL2promotion promotion = v.promotion == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                           : v.promotion == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                           : v.promotion == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                                : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  const CUtensorMapSwizzle swizzle = v.box_k * 2 == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(src), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    return cudaErrorInvalidValue;
  }
  const int units = i_rows / kTmaUnitRows;  // the Qwen2.5 I are multiples of 64
  read_tma_tiles<<<ctas, 32, smem, s>>>(map, static_cast<const char*>(src), units, i_rows, k, v.box_k, v.box_rows,
                                        v.batch, v.stagger, v.packed, sink);
  return cudaPeekAtLastError();
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
