// The hand-over of fp32 partial sums between the CTAs of one grid through global memory, shared by
// the swap-AB decode kernel's grid stream-K configs (`_gsk`, sm90_swiglu_swapab.hpp) and the
// split-tail Cooperative tile (`_split`, sm90_swiglu_pingpong.hpp).
//
// Why module memory and lock words tagged per launch: the C API takes no workspace, and a launch
// must neither allocate (stream capture) nor assume it runs alone. Each kernel instantiation owns
// its slots and a lock word per slot; a writer publishes its slot with epoch | kGridExchangeReady
// and the CTA that reads it sets the word back to 0. Launches on two streams must not wait on
// each other in a cycle. Swap-AB: a contributor takes its word (0 -> epoch) first, and its slot
// is its rank; a CTA contributes before it reads, and reads higher ranks in rank order, so a slot
// another launch holds waits only on lower slots: every chain of waits ends. The split tail's
// hand-over comes between a CTA's own units, so that order fails there; it takes the whole
// exchange per launch (a holder word, sm90_swiglu_pingpong.hpp) and its writers need no per-slot
// take. The launches that wait are cooperative (every CTA resident; bench/NOTES.md session 21).
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
