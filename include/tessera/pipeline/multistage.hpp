// The sm_80 multistage pipeline: Stages shared-memory buffers filled by cp.async, Stages - 1 tiles
// in flight ahead of the one being computed.
//
//   using Pipe = Multistage<4>;
//   Pipe::prologue(load, k_tiles);               // tiles 0..Stages-2 requested
//   for (int kt = 0; kt < k_tiles; ++kt) {
//     Pipe::wait_for_oldest();                  // tile kt has landed, every thread is past kt - 1
//     Pipe::issue(load, kt + Stages - 1, k_tiles);   // refill the buffer tile kt - 1 used
//     compute(kt % Stages);
//   }
//   Pipe::drain();
#pragma once

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/core/config.hpp"

namespace tessera::pipeline {

template <int Stages>
struct Multistage {
  static_assert(Stages >= 2 && Stages <= 5, "pipeline::Multistage: Stages must be 2 to 5; use Stages<3> or Stages<4>");
  static constexpr int stages = Stages;

  // load(stage, k_tile) issues the cp.async copies of one k-tile into one buffer.
  template <class Load>
  TESSERA_DEVICE static void prologue(Load&& load, int k_tiles) {
TESSERA_UNROLL
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < k_tiles) load(s, s);
      arch::cp_async_commit();  // an empty group keeps the group count uniform
    }
  }

  TESSERA_DEVICE static void wait_for_oldest() {
    arch::cp_async_wait<Stages - 2>();
    arch::sync_threads();
  }

  template <class Load>
  TESSERA_DEVICE static void issue(Load&& load, int k_tile, int k_tiles) {
    if (k_tile < k_tiles) load(k_tile % Stages, k_tile);
    arch::cp_async_commit();
  }

  // Before shared memory is reused for something else (the epilogue).
  TESSERA_DEVICE static void drain() {
    arch::cp_async_wait<0>();
    arch::sync_threads();
  }
};

}  // namespace tessera::pipeline
