// mbarrier on sm_80: a 64-bit shared-memory barrier object that completes a phase when a set number
// of arrivals has been counted, then starts the next phase with the count restored. Threads wait
// on a phase by its parity (0, 1, 0, ...), so a pipeline stage that is reused every few tiles
// needs only one bit of state per waiter. cp.async can arrive on one when a thread's copies land,
// which lets consumers wait for data without a block-wide barrier.
//
//   mbarrier_init(bar, count);               // one thread; make it visible with a block barrier
//   mbarrier_arrive(bar);                     // one of `count` arrivals
//   cp_async_mbarrier_arrive_noinc(bar);      // one arrival, counted when this thread's copies land
//   mbarrier_wait_parity(bar, phase & 1);     // until the phase with that parity has completed
//
// `bar` is the 32-bit shared-window address of an 8-byte-aligned std::uint64_t (smem_address()).
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instructions) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(TESSERA_ARCH_MMA_SM80)
#  define TESSERA_MBARRIER_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_MBARRIER_BODY(...) TESSERA_UNREACHABLE("mbarrier needs sm_80 or later: build for sm_80/sm_90a")
#endif

TESSERA_DEVICE inline void mbarrier_init(std::uint32_t bar, int count) {
  TESSERA_MBARRIER_BODY("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// One arrival (release semantics: this thread's earlier shared-memory writes are visible to a
// thread that then sees the phase complete).
TESSERA_DEVICE inline void mbarrier_arrive(std::uint32_t bar) {
  TESSERA_MBARRIER_BODY("{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}

// One arrival that happens when every cp.async this thread issued before it has completed. The
// arrival is part of the barrier's count (.noinc): initialise the count to include it.
TESSERA_DEVICE inline void cp_async_mbarrier_arrive_noinc(std::uint32_t bar) {
  TESSERA_MBARRIER_BODY("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
}

// Whether the phase with this parity has completed (acquire semantics when it has).
TESSERA_DEVICE inline bool mbarrier_test_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  TESSERA_MBARRIER_BODY(
      "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

TESSERA_DEVICE inline void mbarrier_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  while (!mbarrier_test_wait_parity(bar, parity)) {
  }
}

#undef TESSERA_MBARRIER_BODY

}  // namespace tessera::arch

#pragma GCC diagnostic pop
