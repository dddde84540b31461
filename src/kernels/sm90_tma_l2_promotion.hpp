// The L2 promotion of a weight TMA descriptor: how many bytes the L2 fetches from DRAM for a TMA
// load that misses (CuTe's make_tma_copy always asks for 128).
//
// Why: a swap-AB decode stage reads 128 bytes (one 64-element k tile) of each of 128 weight rows,
// rows K * 2 bytes apart; the next 128 bytes of each row come one stage later (about 0.5 us at
// 7B-72B, with every other SM's rows in between). With 256-byte promotion the L2 fetches both
// k tiles of a row at once, so DRAM sees 256-byte runs instead of 128-byte ones and the next
// stage hits L2. Whether that moves the decode kernels toward the read probe (which copies 16 KiB
// runs) is what TILEGLU_TMA_L2_PROMOTION measures (bench/NOTES.md, session 13).
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda.h>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cutlass/cuda_host_adapter.hpp>

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

// `cute_desc` (made by make_tma_copy for a row-major [rows, k] tensor of 16-bit elements, leading
// dimension `ld`, a 128-byte-swizzled box of box_k x box_rows) re-encoded with `promotion` into
// `out`. CuTe's encoding is opaque, so the parameters are checked first: encoded with CuTe's
// 128-byte promotion they must give `cute_desc` byte for byte, else false (and `out` unused).
inline bool tma_with_l2_promotion(cute::TmaDescriptor const& cute_desc, CUtensorMapDataType format,
                                  void const* ptr, int rows, int k, int64_t ld, int box_rows, int box_k,
                                  CUtensorMapL2promotion promotion, cute::TmaDescriptor* out) {
  cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  cuuint64_t strides[1] = {cuuint64_t(ld) * 2};
  cuuint32_t box[2] = {cuuint32_t(box_k), cuuint32_t(box_rows)};
  cuuint32_t element_strides[2] = {1, 1};
  auto encode = [&](cute::TmaDescriptor* desc, CUtensorMapL2promotion l2) {
    return CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
        desc, format, 2, const_cast<void*>(ptr), dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  cute::TmaDescriptor same{};
  if (encode(&same, CU_TENSOR_MAP_L2_PROMOTION_L2_128B) != CUDA_SUCCESS) return false;
  if (std::memcmp(&same, &cute_desc, sizeof(same)) != 0) return false;
  return encode(out, promotion) == CUDA_SUCCESS;
}

}  // namespace tileglu::kernels
