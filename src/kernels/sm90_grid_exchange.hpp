// The hand-over of fp32 partial sums between the CTAs of one grid through global memory, shared by
// the grid stream-K kernels (the swap-AB decode kernel's `_gsk` configs, sm90_swiglu_swapab.hpp,
// and the split-tail Cooperative tile, sm90_swiglu_pingpong.hpp).
//
// Why module memory and lock words tagged per launch: the C API takes no workspace, and a launch
// must neither allocate (stream capture) nor assume it runs alone. Each kernel instantiation owns
// a slot and a lock word per CTA rank; a contributor takes its lock word (0 -> this launch's
// epoch) before writing its slot, publishes with epoch | kGridExchangeReady, and the CTA that
// reads the slot sets the word back to 0. A launch on another stream (or a graph replay) that
// finds the word taken waits for the holder's reader, which waits only on its own launch: no
// cycle, as long as every CTA of a launch is resident (the launches are cooperative).
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

}  // namespace tileglu::kernels
