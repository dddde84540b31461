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

// The sum over CTAs 0 .. ranks-1 of the float4 at shared-memory address `local` in each, added in
// rank order (so every CTA that sums the same partials gets the same bits).
CUTLASS_DEVICE float4 sum_over_cluster_v4(uint32_t local, int ranks) {
  float4 sum = load_shared_cluster_v4(map_shared_to_rank(local, 0));
  for (int peer = 1; peer < ranks; ++peer) {  // the compiler unrolls it where `ranks` is constant
    float4 const p = load_shared_cluster_v4(map_shared_to_rank(local, uint32_t(peer)));
    sum.x += p.x;
    sum.y += p.y;
    sum.z += p.z;
    sum.w += p.w;
  }
  return sum;
}

}  // namespace tileglu::kernels
