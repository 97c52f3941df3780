// The sm_90 producer/consumer pipeline: a ring of Stages shared-memory stages that one producer
// thread fills with TMA and consumer warpgroups read (wgmma), synchronised by two mbarriers per
// stage. Ring position `pos` (counted over all of a block's k-tiles, across its tiles) lives in
// stage pos % Stages, in pass pos / Stages.
//
//   full[s]:  completes when the producer has arrived (announcing the stage's bytes) and every
//             byte has landed -- from this block's copies and, in a cluster, its partners'
//             multicast copies into this block.
//   empty[s]: completes when every consumer that reads the stage, in every block the stage's
//             copies write (ClusterSize blocks), has released it.
//
//   using Pipe = TmaPipeline<4, 1>;
//   Pipe pipe(barriers);                      // 2 x Stages x 8 bytes of shared memory
//   if (tid == 0) pipe.init(consumers);       // then the block (cluster) barrier
//   // producer thread:
//   std::uint32_t full = pipe.producer_acquire(pos, bytes);    // then TMA copies completing on `full`
//   // consumers:
//   pipe.consumer_wait(pos);  ... wgmma on stage pos % Stages ...  pipe.consumer_release(pos);
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/mbarrier.hpp"

namespace tessera::pipeline {

template <int Stages, int ClusterSize = 1>
class TmaPipeline {
  static_assert(Stages >= 2 && Stages <= 16, "pipeline::TmaPipeline: Stages must be 2 to 16; use 4");
  static_assert(ClusterSize >= 1 && ClusterSize <= 16, "pipeline::TmaPipeline: a cluster has 1 to 16 blocks");

 public:
  static constexpr int stages = Stages;
  static constexpr int barrier_bytes = 2 * Stages * 8;

  // `barriers`: barrier_bytes of shared memory, 8-byte aligned.
  TESSERA_DEVICE explicit TmaPipeline(std::uint64_t* barriers) : bars_(barriers) {}

  // One thread, before the barrier that publishes the pipeline to the block (cluster):
  // `consumers` releases per block free a stage.
  TESSERA_DEVICE void init(int consumers) const {
    for (int s = 0; s < Stages; ++s) {
      arch::mbarrier_init(full(s), 1);
      arch::mbarrier_init(empty(s), consumers * ClusterSize);
    }
    arch::fence_mbarrier_init();
  }

  // The producer: waits until position pos's stage is free (its previous pass released) and
  // announces `bytes` on its full barrier, which it returns for the copies to complete on.
  TESSERA_DEVICE std::uint32_t producer_acquire(int pos, int bytes) const {
    int const s = pos % Stages;
    if (pos >= Stages) arch::mbarrier_wait(empty(s), ((pos / Stages) - 1) & 1);
    arch::mbarrier_arrive_expect_tx(full(s), std::uint32_t(bytes));
    return full(s);
  }

  // A producer that writes the stage with its own threads instead of TMA (every writing thread
  // waits): the stage is free.
  TESSERA_DEVICE void producer_wait(int pos) const {
    if (pos >= Stages) arch::mbarrier_wait(empty(pos % Stages), ((pos / Stages) - 1) & 1);
  }
  // ... and, once every thread's writes are done and made visible to the async proxy
  // (arch::sm90::fence_proxy_async_shared, then a barrier of the writers), one thread announces it.
  TESSERA_DEVICE void producer_commit(int pos) const { arch::mbarrier_arrive(full(pos % Stages)); }
  // A consumer: waits until position pos's stage is full.
  TESSERA_DEVICE void consumer_wait(int pos) const { arch::mbarrier_wait(full(pos % Stages), (pos / Stages) & 1); }

  // A consumer (one thread of it): releases position pos's stage in every block of the cluster
  // (all of them write it). Call once its reads are complete (after wgmma_wait_group).
  TESSERA_DEVICE void consumer_release(int pos) const {
    int const s = pos % Stages;
    if constexpr (ClusterSize == 1) {
      arch::mbarrier_arrive(empty(s));
    } else {
      TESSERA_UNROLL
      for (int r = 0; r < ClusterSize; ++r) arch::mbarrier_arrive_cluster(empty(s), std::uint32_t(r));
    }
  }

 private:
  TESSERA_DEVICE std::uint32_t full(int s) const { return arch::smem_address(bars_ + s); }
  TESSERA_DEVICE std::uint32_t empty(int s) const { return arch::smem_address(bars_ + Stages + s); }

  std::uint64_t* bars_;
};

}  // namespace tessera::pipeline
