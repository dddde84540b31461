// The TMA -> WGMMA pipeline of Sm90LocalTmaPipeline for a cluster of kPeers CTAs that each load
// part of a stage and multicast it to all of them (the swap-AB units in 2-CTA clusters,
// sm90_swiglu_swapab_pingpong.hpp: each CTA loads half of the token tile into both).
//
// Why the releases cross CTAs: a CTA's stage s is written by its own loads and by every peer's
// multicast, so a producer may refill stage s only once the consumers of every CTA it writes
// into have released it. Each CTA's empty barrier therefore counts the consumer leaders of all
// kPeers CTAs, and every leader's release arrives on the empty barrier of each CTA (its own
// included), as cutlass::PipelineTmaAsync does for a multicast row of the cluster. The full
// barrier stays local: each CTA expects the whole stage's bytes, its own loads' and the peers'.
// The kernel must sync the cluster after construction (a peer's barriers must be initialised
// before anything arrives on them) and before exit (a peer's last releases arrive remotely).
#pragma once

#include <cstdint>

#include <cutlass/cutlass.h>

#include "sm90_local_tma_pipeline.hpp"

namespace tileglu::kernels {

template <int kStages, int kPeers>
class Sm90MulticastTmaPipeline : public Sm90LocalTmaPipeline<kStages> {
  using Base = Sm90LocalTmaPipeline<kStages>;

 public:
  using SharedStorage = typename Base::SharedStorage;
  using PipelineState = typename Base::PipelineState;

  // As Sm90LocalTmaPipeline's; `consumer_leaders` counts one CTA's leaders.
  CUTLASS_DEVICE Sm90MulticastTmaPipeline(SharedStorage& storage, int thread_idx, uint32_t transaction_bytes,
                                          bool consumer_leader, uint32_t consumer_leaders)
      : Base(storage, thread_idx, transaction_bytes, consumer_leader, consumer_leaders * kPeers),
        storage_(storage),
        consumer_leader_(consumer_leader) {}

  // Releases the stage in every CTA of the cluster (ranks 0 .. kPeers - 1, this one included).
  CUTLASS_DEVICE void consumer_release(PipelineState const& state) {
    CUTLASS_PRAGMA_UNROLL
    for (int rank = 0; rank < kPeers; ++rank) {
      storage_.empty[state.index()].arrive(uint32_t(rank), uint32_t(consumer_leader_));
    }
  }

 private:
  SharedStorage& storage_;
  bool consumer_leader_;
};

}  // namespace tileglu::kernels
