// The roles of a warp-specialized sm_90a block: warpgroup 0 is the producer (one of its threads
// issues the TMA loads), warpgroups 1.. are the consumers; the producer gives registers away
// (setmaxnreg.dec) and the consumers take them (setmaxnreg.inc). And the one list of the named
// barriers such a block uses, so that no two pieces pick the same id.
//
//   pipeline::run_roles<40, 232>(threadIdx.x / 128, [&] { ...produce... }, [&](int c) { ...consume as consumer c... });
//   pipeline::consumer_barrier(c);   // the 128 threads of consumer c
//
// setmaxnreg takes effect only in a kernel with a register cap at entry (__launch_bounds__ with a
// minimum of one block); the split must fit the block's registers at launch (see gemm/sm90).
// tessera-header: cuda-only
#pragma once

#include "tessera/arch/sm90/warpgroup.hpp"

namespace tessera::pipeline {

// Named barrier ids (bar.sync): 0 is __syncthreads', the producer warpgroup's 128 threads sync on
// kProducer where they all work (attention's fp8 V^T), consumer c its 128 threads on
// kFirstConsumer + c.
enum class NamedBarrier : int { kBlock = 0, kProducer = 1, kFirstConsumer = 2 };

TESSERA_DEVICE inline void consumer_barrier(int consumer) {
  arch::sm90::named_barrier_sync(int(NamedBarrier::kFirstConsumer) + consumer, 128);
}
TESSERA_DEVICE inline void producer_barrier() { arch::sm90::named_barrier_sync(int(NamedBarrier::kProducer), 128); }

// Warpgroup 0 runs produce() with ProducerRegisters, the others consume(warpgroup - 1) with
// ConsumerRegisters. Each role is one branch, as setmaxnreg requires.
template <int ProducerRegisters, int ConsumerRegisters, class Produce, class Consume>
TESSERA_DEVICE void run_roles(int warpgroup, Produce&& produce, Consume&& consume) {
  if (warpgroup == 0) {
    arch::sm90::setmaxnreg_dec<ProducerRegisters>();
    produce();
  } else {
    arch::sm90::setmaxnreg_inc<ConsumerRegisters>();
    consume(warpgroup - 1);
  }
}

}  // namespace tessera::pipeline
