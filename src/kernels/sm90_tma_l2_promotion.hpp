// The L2 promotion of a weight TMA descriptor: how many bytes the L2 fetches from DRAM for a TMA
// load that misses (CuTe's make_tma_copy always asks for 128).
//
// Why: a swap-AB decode stage reads 128 bytes (one 64-element k tile) of each of 128 weight rows,
// rows K * 2 bytes apart; the next 128 bytes of each row come one stage later (about 0.5 us at
// 7B-72B, with every other SM's rows in between). With 256-byte promotion the L2 fetches both
// k tiles of a row at once, so DRAM sees 256-byte runs instead of 128-byte ones and the next
// stage hits L2. Whether that moves the decode kernels toward the read probe (which copies 16 KiB
// runs) is what TILEGLU_TMA_L2_PROMOTION measured (bench/NOTES.md, sessions 13, 16 and 17): 256
// bytes read the decode weights faster on an H100 and slower on an H200, so the default is the
// device's (tma_l2_promotion.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <cuda.h>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cuda_runtime.h>
#include <cutlass/numeric_types.h>

#include "tma_l2_promotion.h"

namespace tileglu::kernels {

// What parse_tma_l2_promotion (decode_plan.h) returned, as the driver's enum.
inline CUtensorMapL2promotion tma_l2_promotion_of(int bytes) {
  switch (bytes) {
    case 1: return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    case 64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 256: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    default: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  }
}

// cuTensorMapEncodeTiled, looked up once per process (CUTLASS's wrapper looks it up on every
// call, a string search in the driver's table: host time on each eager decode call). Null when
// the driver lacks it.
using TensorMapEncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, cuuint64_t const*,
                                            cuuint64_t const*, cuuint32_t const*, cuuint32_t const*,
                                            CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                            CUtensorMapFloatOOBfill);

inline TensorMapEncodeTiledFn tensor_map_encode_tiled() {
  static TensorMapEncodeTiledFn const fn = [] {
    void* pfn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &pfn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return TensorMapEncodeTiledFn{nullptr};
    }
    return reinterpret_cast<TensorMapEncodeTiledFn>(pfn);
  }();
  return fn;
}

// The descriptor of a row-major [rows, k] tensor of 16-bit elements at `ptr`, leading dimension
// `ld`, a 128-byte-swizzled box of box_k x box_rows, with L2 promotion `promotion`: the
// parameters make_tma_copy passes for such a tensor and a static 2-D box (this header's one
// assumption about CuTe, which tma_reproduces_cute checks).
inline bool encode_weight_tma(CUtensorMapDataType format, void const* ptr, int rows, int k, int64_t ld, int box_rows,
                              int box_k, CUtensorMapL2promotion promotion, cute::TmaDescriptor* out) {
  TensorMapEncodeTiledFn const encode = tensor_map_encode_tiled();
  if (encode == nullptr) return false;
  cuuint64_t const dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  cuuint64_t const strides[1] = {cuuint64_t(ld) * 2};
  cuuint32_t const box[2] = {cuuint32_t(box_k), cuuint32_t(box_rows)};
  cuuint32_t const element_strides[2] = {1, 1};
  return encode(reinterpret_cast<CUtensorMap*>(out), format, 2, const_cast<void*>(ptr), dims, strides, box,
                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Whether encode_weight_tma at CuTe's 128-byte promotion gives `cute_desc` (made by make_tma_copy
// for the same tensor and box) byte for byte. CuTe's encoding is opaque, so a re-encode is only
// trusted after this. What make_tma_copy passes depends on the tensor's static layout and the
// box, not on the runtime sizes, so one check per kernel type stands for all its calls.
inline bool tma_reproduces_cute(cute::TmaDescriptor const& cute_desc, CUtensorMapDataType format, void const* ptr,
                                int rows, int k, int64_t ld, int box_rows, int box_k) {
  static_assert(sizeof(cute::TmaDescriptor) == sizeof(CUtensorMap), "a TMA descriptor is a CUtensorMap");
  cute::TmaDescriptor same{};
  return encode_weight_tma(format, ptr, rows, k, ld, box_rows, box_k, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, &same) &&
         std::memcmp(&same, &cute_desc, sizeof(same)) == 0;
}

// One weight operand's CuTe descriptor (rewritten in place) and the tensor it was made for.
struct WeightTma {
  cute::TmaDescriptor const* desc;
  void const* ptr;
  int64_t ld;
};

// The gate and up descriptors of one kernel type (`KernelTag`: one check per type) re-encoded with
// weight_tma_l2_promotion(reader)'s bytes; both or neither, since gate and up read alike. [rows,
// k] tensors of `Element` (bf16 or fp16), boxes of box_k x box_rows. Our encoding is trusted once
// it has reproduced CuTe's on the type's first call (tma_reproduces_cute: the parameters do not
// depend on the sizes); from then on each call costs two host encodes. If it did not, CuTe's 128
// stays, still correct, and that is named once (the weight read is slower).
template <class KernelTag, class Element>
void promote_weight_tmas(WeightReader reader, int rows, int k, int box_rows, int box_k, WeightTma gate,
                         WeightTma up) {
  static_assert(sizeof(Element) == 2, "the encoding assumes 16-bit elements");
  CUtensorMapDataType const format = std::is_same_v<Element, cutlass::half_t> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                             : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  int const promotion = weight_tma_l2_promotion(reader);
  if (promotion == 128) return;  // CuTe's own descriptors
  // 1: reproduced, -1: not, 0: not yet checked (racing first calls both check; one stores).
  static std::atomic<int> reproduced{0};
  if (reproduced.load(std::memory_order_relaxed) == 0) {
    bool const same = tma_reproduces_cute(*gate.desc, format, gate.ptr, rows, k, gate.ld, box_rows, box_k) &&
                      tma_reproduces_cute(*up.desc, format, up.ptr, rows, k, up.ld, box_rows, box_k);
    int expected = 0;
    if (reproduced.compare_exchange_strong(expected, same ? 1 : -1) && !same) {
      std::fprintf(stderr,
                   "tileglu: warning: weight TMA descriptors (box %d x %d) could not be re-encoded with %d-byte L2 "
                   "promotion (CuTe's descriptor was not reproduced); CuTe's 128 stays\n",
                   box_rows, box_k, promotion);
    }
  }
  if (reproduced.load(std::memory_order_relaxed) != 1) return;
  cute::TmaDescriptor gate_desc{}, up_desc{};
  CUtensorMapL2promotion const l2 = tma_l2_promotion_of(promotion);
  if (encode_weight_tma(format, gate.ptr, rows, k, gate.ld, box_rows, box_k, l2, &gate_desc) &&
      encode_weight_tma(format, up.ptr, rows, k, up.ld, box_rows, box_k, l2, &up_desc)) {
    *const_cast<cute::TmaDescriptor*>(gate.desc) = gate_desc;
    *const_cast<cute::TmaDescriptor*>(up.desc) = up_desc;
  }
}

}  // namespace tileglu::kernels
