// Distributed shared memory (DSMEM) access between the CTAs of a thread-block cluster: the split-K
// kernels' partial sums are read by their owner this way (sm90_swiglu_splitk.hpp,
// sm90_swiglu_swapab.hpp).
#pragma once

#include <cstdint>

#include <cutlass/cutlass.h>

namespace tileglu::kernels {

// The address of `local` (a shared-memory address of this CTA) in CTA `rank` of the cluster.
CUTLASS_DEVICE uint32_t map_shared_to_rank(uint32_t local, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

CUTLASS_DEVICE float4 load_shared_cluster_v4(uint32_t address) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}

}  // namespace tileglu::kernels
