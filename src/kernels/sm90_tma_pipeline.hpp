// A TMA -> WGMMA shared-memory pipeline whose barriers are all CTA-local, for kernels launched as
// a thread-block cluster whose CTAs share no loads (the split-K kernel: the CTAs of a cluster
// read different K ranges and meet only to reduce).
//
// Why not cutlass::PipelineTmaAsync: it ties consumer arrivals to the cluster shape it is given.
// Given the real cluster it sends releases to every CTA of the row/column (multicast semantics),
// coupling pipelines that share nothing and deadlocking when the CTAs' K ranges differ in length;
// given a 1x1 shape inside a real cluster it sends every release to CTA rank 0. This one keeps
// CutLASS's interface (producer_acquire / producer_get_barrier / consumer_wait /
// consumer_release, cutlass::PipelineState) so that the mainloop is shared with the Pingpong
// kernel unchanged.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

namespace tileglu::kernels {

template <int kStages>
class Sm90LocalTmaPipeline {
 public:
  using FullBarrier = cutlass::arch::ClusterTransactionBarrier;
  using EmptyBarrier = cutlass::arch::ClusterBarrier;
  using PipelineState = cutlass::PipelineState<kStages>;

  struct SharedStorage {
    FullBarrier full[kStages];
    EmptyBarrier empty[kStages];
  };

  // `thread_idx`: the CTA thread index (thread 0 initialises the barriers; the caller syncs the
  // CTA before first use). `consumer_leader`: the one consumer thread that releases stages (one
  // consumer warpgroup: its wait<> on the WGMMAs covers the whole warpgroup, as in CUTLASS).
  // `consumer_leaders`: how many such threads release each stage before the producer may refill
  // it (2 where two warpgroups read every stage, each its own half of the tile).
  CUTLASS_DEVICE Sm90LocalTmaPipeline(SharedStorage& storage, int thread_idx, uint32_t transaction_bytes,
                                      bool consumer_leader, uint32_t consumer_leaders = 1)
      : storage_(storage), transaction_bytes_(transaction_bytes), consumer_leader_(consumer_leader) {
    if (thread_idx == 0) {
      CUTLASS_PRAGMA_UNROLL
      for (int s = 0; s < kStages; ++s) {
        storage_.full[s].init(1);   // the producer's arrive_and_expect_tx; TMA completes the bytes
        storage_.empty[s].init(consumer_leaders);  // each consumer leader's release
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

  CUTLASS_DEVICE void consumer_release(PipelineState const& state) {
    if (consumer_leader_) storage_.empty[state.index()].arrive();
  }

 private:
  SharedStorage& storage_;
  uint32_t transaction_bytes_;
  bool consumer_leader_;
};

}  // namespace tileglu::kernels
