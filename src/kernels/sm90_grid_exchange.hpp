// The hand-over of fp32 partial sums between the CTAs of one grid through global memory, shared by
// the swap-AB decode kernel's grid stream-K configs (`_gsk`, sm90_swiglu_swapab.hpp) and the
// split-tail Cooperative tile (`_split`, sm90_swiglu_pingpong.hpp).
//
// Why module memory and lock words tagged per launch: the C API takes no workspace, and a launch
// must neither allocate (stream capture) nor assume it runs alone. Each kernel instantiation owns
// its slots and a lock word per slot; a contributor takes its lock word (0 -> this launch's
// epoch) before writing its slot, publishes with epoch | kGridExchangeReady, and the CTA that
// reads the slot sets the word back to 0. The launches are cooperative (every CTA resident), so
// a launch waits only on its own CTAs and on launches that hold what it needs. Per-slot words
// alone still let two launches on two streams each hold a slot the other's reader needs when a
// reader has two or more slots to read; the split tail therefore takes the whole exchange per
// launch first (sm90_swiglu_pingpong.hpp), and the swap-AB kernel does not yet
// (bench/NOTES.md, session 20).
#pragma once

#include <atomic>

#include <cutlass/cutlass.h>

namespace tileglu::kernels {

inline constexpr unsigned long long kGridExchangeReady = 1ull << 63;  // lock word: the slot is written

CUTLASS_DEVICE unsigned long long grid_exchange_load_acquire(unsigned long long const* ptr) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(ptr) : "memory");
  return v;
}
CUTLASS_DEVICE void grid_exchange_store_release(unsigned long long* ptr, unsigned long long v) {
  asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(ptr), "l"(v) : "memory");
}

// A distinct tag per launch in this process (graph replays repeat their captured launch's tag,
// and a graph's replays run one after another), skipping 0 and the ready bit.
inline unsigned long long grid_exchange_next_epoch() {
  static std::atomic<unsigned long long> counter{0};
  return (counter.fetch_add(1, std::memory_order_relaxed) % (kGridExchangeReady - 1)) + 1;
}

// accum(v) += the partial staged as float4 (v / 4) of thread t at staged[(v / 4) kThreads + t]
// (the slots' layout, coalesced for the threads of one accumulator), for v < kValues.
template <int kValues, int kThreads, class Accum>
CUTLASS_DEVICE void grid_exchange_add_staged(Accum& accum, float4 const* staged, int thread) {
  CUTLASS_PRAGMA_UNROLL
  for (int v = 0; v < kValues; v += 4) {
    float4 const q = staged[(v / 4) * kThreads + thread];
    accum(v) += q.x;
    accum(v + 1) += q.y;
    accum(v + 2) += q.z;
    accum(v + 3) += q.w;
  }
}

}  // namespace tileglu::kernels
