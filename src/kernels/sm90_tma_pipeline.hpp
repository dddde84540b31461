// A TMA -> WGMMA shared-memory pipeline whose full barriers are CTA-local and whose stage
// releases reach exactly the CTAs that write the stage: this CTA alone (kPeers = 1: the split-K
// kernel, whose cluster CTAs read different K ranges and meet only to reduce; the swap-AB kernels
// outside clusters), or every CTA of a cluster of kPeers CTAs that each load part of a stage and
// multicast it to all of them (the swap-AB units in 2-CTA clusters,
// sm90_swiglu_swapab_pingpong.hpp: each CTA loads half of the token tile into both).
//
// Why not cutlass::PipelineTmaAsync: it ties consumer arrivals to the cluster shape it is given.
// Given the real cluster it sends releases to every CTA of the row/column (multicast semantics),
// coupling pipelines that share nothing and deadlocking when the CTAs' K ranges differ in length;
// given a 1x1 shape inside a real cluster it sends every release to CTA rank 0. This one keeps
// CUTLASS's interface (producer_acquire / producer_get_barrier / consumer_wait /
// consumer_release, cutlass::PipelineState) so that the mainloop is shared with the Pingpong
// kernel unchanged.
//
// Why the releases cross CTAs when kPeers > 1: a CTA's stage s is written by its own loads and by
// every peer's multicast, so a producer may refill stage s only once the consumers of every CTA
// it writes into have released it. Each CTA's empty barrier therefore counts the consumer leaders
// of all kPeers CTAs, and every leader's release arrives on the empty barrier of each CTA (its
// own included), as cutlass::PipelineTmaAsync does for a multicast row of the cluster. The full
// barrier stays local: each CTA expects the whole stage's bytes, its own loads' and the peers'.
// A kernel with kPeers > 1 must sync the cluster after construction (a peer's barriers must be
// initialised before anything arrives on them) and before exit (a peer's last releases arrive
// remotely); the peers are cluster ranks 0 .. kPeers - 1.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

namespace tileglu::kernels {

template <int kStages, int kPeers = 1>
class Sm90TmaPipeline {
  static_assert(kPeers >= 1, "a stage is released to at least this CTA");

 public:
  using FullBarrier = cutlass::arch::ClusterTransactionBarrier;
  using EmptyBarrier = cutlass::arch::ClusterBarrier;
  using PipelineState = cutlass::PipelineState<kStages>;

  struct SharedStorage {
    FullBarrier full[kStages];
    EmptyBarrier empty[kStages];
  };

  // `thread_idx`: the CTA thread index (thread 0 initialises the barriers; the caller syncs the
  // CTA, or with kPeers > 1 the cluster, before first use). `consumer_leader`: the one consumer
  // thread that releases stages (one consumer warpgroup: its wait<> on the WGMMAs covers the
  // whole warpgroup, as in CUTLASS). `consumer_leaders`: how many such threads of one CTA release
  // each stage before the producer may refill it (2 where two warpgroups read every stage, each
  // its own half of the tile); the empty barrier counts those of all kPeers CTAs.
  CUTLASS_DEVICE Sm90TmaPipeline(SharedStorage& storage, int thread_idx, uint32_t transaction_bytes,
                                 bool consumer_leader, uint32_t consumer_leaders = 1)
      : storage_(storage), transaction_bytes_(transaction_bytes), consumer_leader_(consumer_leader) {
    if (thread_idx == 0) {
      CUTLASS_PRAGMA_UNROLL
      for (int s = 0; s < kStages; ++s) {
        storage_.full[s].init(1);   // the producer's arrive_and_expect_tx; TMA completes the bytes
        storage_.empty[s].init(consumer_leaders * kPeers);  // each consumer leader's release
      }
      cutlass::arch::fence_barrier_init();
    }
  }

  // Producer (one elected thread): waits until the stage is free, then announces its bytes.
  CUTLASS_DEVICE void producer_acquire(PipelineState const& state) {
    storage_.empty[state.index()].wait(state.phase());
    storage_.full[state.index()].arrive_and_expect_tx(transaction_bytes_);
  }

  CUTLASS_DEVICE uint64_t* producer_get_barrier(PipelineState const& state) {
    return reinterpret_cast<uint64_t*>(&storage_.full[state.index()]);
  }

  // Consumers: the token form of PipelineTmaAsync, with no early test.
  CUTLASS_DEVICE bool consumer_try_wait(PipelineState const& state) {
    return storage_.full[state.index()].try_wait(state.phase());
  }

  CUTLASS_DEVICE void consumer_wait(PipelineState const& state, bool ready) {
    if (!ready) storage_.full[state.index()].wait(state.phase());
  }

  // Releases the stage in this CTA, or in every CTA of the cluster (this one included).
  CUTLASS_DEVICE void consumer_release(PipelineState const& state) {
    if constexpr (kPeers == 1) {
      if (consumer_leader_) storage_.empty[state.index()].arrive();
    } else {
      CUTLASS_PRAGMA_UNROLL
      for (int rank = 0; rank < kPeers; ++rank) {
        storage_.empty[state.index()].arrive(uint32_t(rank), uint32_t(consumer_leader_));
      }
    }
  }

 private:
  SharedStorage& storage_;
  uint32_t transaction_bytes_;
  bool consumer_leader_;
};

}  // namespace tileglu::kernels
