// Lane exchanges within a warp (CUDA) or wavefront (HIP), for reductions over the lanes that share
// a row of a register fragment: every lane of the warp must take part (converged).
//
//   m = fmaxf(m, arch::shfl_xor(m, 1));   // with the neighbouring lane
#pragma once

#include "tessera/arch/arch.hpp"

namespace tessera::arch {

// The value of lane (this lane ^ mask).
TESSERA_HD float shfl_xor(float value, int mask) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  return __shfl_xor_sync(0xffffffffu, value, mask);
#elif TESSERA_DEVICE_PASS && defined(TESSERA_HIP)
  return __shfl_xor(value, mask);
#else
  (void)mask;
  TESSERA_UNREACHABLE("arch::shfl_xor is device code; on the host, emulate the lanes");
  return value;
#endif
}

}  // namespace tessera::arch
