// A value the optimizer cannot see through: after opaque(x), x is whatever an empty asm statement
// left in its register, so what is computed from it stays where the code computes it. For loop-
// invariant address arithmetic that the compiler would otherwise hoist out of a kernel's main loop
// and keep in registers across it (attention/sm80/loader.hpp measured it: hd 256, 320 bytes of
// spills).
//
//   std::int64_t pitch = step * stride;
//   arch::opaque(pitch);
//   for (...) copy(from + it * pitch);     // it * pitch computed here, not before the outer loop
#pragma once

#include <type_traits>

#include "tessera/arch/arch.hpp"

namespace tessera::arch {

template <class T>
TESSERA_HD void opaque(T& x) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "arch::opaque: takes a 32- or 64-bit integer; convert other values to one");
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  if constexpr (sizeof(T) == 8) asm volatile("" : "+l"(x));
  else asm volatile("" : "+r"(x));
#elif TESSERA_DEVICE_PASS && defined(TESSERA_HIP)
  asm volatile("" : "+v"(x));
#else
  (void)x;
#endif
}

}  // namespace tessera::arch
