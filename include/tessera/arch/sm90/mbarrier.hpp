// mbarrier on sm_90: the sm_80 operations (arch/sm80/mbarrier.hpp) plus the transaction count
// that TMA copies complete, try_wait (the thread may be suspended instead of spinning) and
// arrivals on a barrier of another block of the cluster.
//
//   mbarrier_init(full, 1);                          // one thread, then fence_mbarrier_init()
//   mbarrier_arrive_expect_tx(full, bytes);          // the producer: one arrival + bytes to come
//   tma_load_2d(..., full);                          // the copies complete `bytes` on `full`
//   mbarrier_wait(full, phase);                      // consumers: the phase completed, data landed
//
// A phase completes when its arrivals are counted and its expected bytes have landed.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm80/mbarrier.hpp"

// The fallback bodies (targets without the instructions) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define TESSERA_MBARRIER90_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_MBARRIER90_BODY(...) TESSERA_UNREACHABLE("this mbarrier operation needs sm_90: build for sm_90a")
#endif

// Makes barrier initialisations visible to the async proxy (TMA) and to the other blocks of the
// cluster; call after the init, before the block (or cluster) barrier.
TESSERA_DEVICE inline void fence_mbarrier_init() {
  TESSERA_MBARRIER90_BODY("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival, and `bytes` more transaction bytes expected in the current phase.
TESSERA_DEVICE inline void mbarrier_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  TESSERA_MBARRIER90_BODY("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// Whether the phase with this parity has completed; the thread may wait a while inside (acquire
// semantics when it has).
TESSERA_DEVICE inline bool mbarrier_try_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  TESSERA_MBARRIER90_BODY(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

TESSERA_DEVICE inline void mbarrier_wait(std::uint32_t bar, std::uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

// One arrival on the barrier at the same shared address in block `cta` of the cluster, with the
// default (CTA-scope release) semantics: enough to say "done reading" after wgmma_wait_group. A
// .release.cluster arrival would order this thread's memory accesses at cluster scope first, which
// the H100 does with MEMBAR.ALL.GPU before every arrival: in the GEMM's mainloop that halved the speed.
TESSERA_DEVICE inline void mbarrier_arrive_cluster(std::uint32_t bar, std::uint32_t cta) {
  TESSERA_MBARRIER90_BODY(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

#undef TESSERA_MBARRIER90_BODY

}  // namespace tessera::arch

#pragma GCC diagnostic pop
