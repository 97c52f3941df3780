// The sm_80 multistage pipeline: Stages shared-memory buffers filled by cp.async, all of them in
// flight. Tile t lives in stage t % Stages; one commit group per tile (empty past the last one),
// so that the wait counts stay uniform.
//
//   using Pipe = Multistage<3>;
//   Pipe::prologue(load, k_tiles);                  // tiles 0..Stages-1 requested, tile 0 landed
//   for (int kt = 0; kt < k_tiles; ++kt) {
//     ... read tile kt from stage kt % Stages ...
//     Pipe::handover(load, kt, k_tiles);            // tile kt + 1 landed, tile kt's stage refilled
//   }
//   Pipe::drain();
//
// A kernel that reads a tile's last fragments into registers before the handover (as the sm80
// GEMM does) keeps its MMAs running across it.
#pragma once

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/core/config.hpp"

namespace tessera::pipeline {

template <int Stages>
struct Multistage {
  static_assert(Stages >= 2 && Stages <= 5, "pipeline::Multistage: Stages must be 2 to 5; use Stages<3> or Stages<4>");
  static constexpr int stages = Stages;

  // load(stage, k_tile) issues the cp.async copies of one k-tile into one buffer. Requests tiles
  // 0 .. Stages - 1, one group each, and waits until tile 0 has landed for every thread.
  template <class Load>
  TESSERA_DEVICE static void prologue(Load&& load, int k_tiles) {
TESSERA_UNROLL
    for (int t = 0; t < Stages; ++t) {
      if (t < k_tiles) load(t, t);
      arch::cp_async_commit();
    }
    arch::cp_async_wait<Stages - 1>();
    arch::sync_threads();
  }

  // Tile kt + 1 has landed and every thread is done reading tile kt, whose stage (`stage`, that
  // is kt % Stages, passed in when the caller tracks it) then receives tile kt + Stages.
  template <class Load>
  TESSERA_DEVICE static void handover(Load&& load, int kt, int k_tiles, int stage) {
    arch::cp_async_wait<Stages - 2>();
    arch::sync_threads();
    if (kt + Stages < k_tiles) load(stage, kt + Stages);
    arch::cp_async_commit();
  }
  template <class Load>
  TESSERA_DEVICE static void handover(Load&& load, int kt, int k_tiles) {
    handover(load, kt, k_tiles, kt % Stages);
  }

  // Before shared memory is reused for something else (the epilogue).
  TESSERA_DEVICE static void drain() {
    arch::cp_async_wait<0>();
    arch::sync_threads();
  }
};

}  // namespace tessera::pipeline
