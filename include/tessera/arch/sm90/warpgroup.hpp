// Warpgroup helpers (sm_90a): register reallocation between warpgroups (setmaxnreg) and named
// block barriers among a subset of the block's warps.
//
//   if (warpgroup == 0) { setmaxnreg_dec<40>(); ...producer... }
//   else                { setmaxnreg_inc<232>(); ...consumers...; named_barrier_sync(1, 256); }
//
// setmaxnreg takes effect only when the kernel has a register cap at entry (__launch_bounds__ with
// a minimum of 1 block, or -maxrregcount) and each warpgroup's role is one branch of an if/else;
// the counts are multiples of 8 from 24 to 256, and the sum over the block must fit the file.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instructions) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch::sm90 {

#if defined(TESSERA_ARCH_SM90A)
#  define TESSERA_WARPGROUP_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_WARPGROUP_BODY(...) TESSERA_UNREACHABLE("setmaxnreg needs sm_90a: build with -gencode=arch=compute_90a,code=sm_90a")
#endif

template <int Registers>
TESSERA_DEVICE inline void setmaxnreg_inc() {
  static_assert(Registers >= 24 && Registers <= 256 && Registers % 8 == 0,
                "arch::sm90::setmaxnreg_inc: the count must be a multiple of 8 from 24 to 256; round it");
  TESSERA_WARPGROUP_BODY("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

template <int Registers>
TESSERA_DEVICE inline void setmaxnreg_dec() {
  static_assert(Registers >= 24 && Registers <= 256 && Registers % 8 == 0,
                "arch::sm90::setmaxnreg_dec: the count must be a multiple of 8 from 24 to 256; round it");
  TESSERA_WARPGROUP_BODY("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

#undef TESSERA_WARPGROUP_BODY

// Barrier `id` (1 to 15; 0 is __syncthreads') among `threads` threads (a multiple of 32), which
// all call it. Orders their shared-memory accesses like __syncthreads.
TESSERA_DEVICE inline void named_barrier_sync(int id, int threads) {
#if TESSERA_DEVICE_PASS
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  TESSERA_UNREACHABLE("named_barrier_sync is device code");
#endif
}

}  // namespace tessera::arch::sm90

#pragma GCC diagnostic pop
