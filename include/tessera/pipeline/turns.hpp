// Ping-pong turns between two consumer warpgroups: they take turns on the tensor cores, one issuing
// a tile's whole mainloop while the other runs its epilogue. Each has a `turn` mbarrier (count 1)
// that the other arrives on once its mainloop is issued; a consumer waits for its turn before
// every tile but its first.
//
//   pipeline::Turns turns(bars);                 // barrier_bytes of shared memory, 8-byte aligned
//   if (tid == 0) turns.init();                  // before the barrier that publishes it
//   if (i > 0) turns.wait(c, waited);            // consumer c, before issuing
//   if (thread == 0) turns.pass(c);              // its mainloop is issued: the other's turn
//
// Attention's consumers take turns at a finer grain, every block of keys (attention/sm90/
// mainloop.hpp): there every warp passes (init(4)), so that the other consumer starts only once
// all four warps have issued, and take() counts the turns, consumer 0 going first:
//   turns.take(c, taken);  ...issue...;  if (lane == 0) turns.pass(c);
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/mbarrier.hpp"

namespace tessera::pipeline {

class Turns {
 public:
  static constexpr int barrier_bytes = 2 * 8;

  TESSERA_DEVICE explicit Turns(std::uint64_t* barriers) : bars_(barriers) {}

  // `passers`: the threads of a consumer that pass each turn.
  TESSERA_DEVICE void init(int passers = 1) const {
    arch::mbarrier_init(turn(0), passers);
    arch::mbarrier_init(turn(1), passers);
  }
  // Consumer c waits for its turn; `waited` counts its waits (the phase).
  TESSERA_DEVICE void wait(int c, int& waited) const { arch::mbarrier_wait(turn(c), waited++ & 1); }
  // Consumer c's turn number `taken` (counted from 0 by each consumer): consumer 0's first turn is
  // its own, every later one waits for the other's pass, as does every turn of consumer 1.
  TESSERA_DEVICE void take(int c, int& taken) const {
    if (c > 0 || taken > 0) arch::mbarrier_wait(turn(c), std::uint32_t((c > 0 ? taken : taken - 1) & 1));
    ++taken;
  }
  // Consumer c (one thread) hands the turn to the other.
  TESSERA_DEVICE void pass(int c) const { arch::mbarrier_arrive(turn(1 - c)); }

 private:
  TESSERA_DEVICE std::uint32_t turn(int c) const { return arch::smem_address(bars_ + c); }
  std::uint64_t* bars_;
};

}  // namespace tessera::pipeline
