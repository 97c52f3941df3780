// Platform detection and the macros every other header uses.
//
// Exactly one of these describes the current compilation pass:
//   TESSERA_CUDA         compiled by a CUDA compiler (nvcc, or clang in CUDA mode)
//   TESSERA_HIP          compiled by a HIP compiler (hipcc / clang with -x hip)
//   TESSERA_HOST_ONLY    a plain C++ compiler (g++, clang++): host code only
// and TESSERA_DEVICE_PASS is 1 while the device side of a CUDA/HIP source is compiled.
#pragma once

#include <cstdio>
#include <cstdlib>

#if defined(__HIP__) || defined(__HIPCC__)
#  define TESSERA_HIP 1
#elif defined(__CUDACC__)
#  define TESSERA_CUDA 1
#else
#  define TESSERA_HOST_ONLY 1
#endif

// hipcc, unlike nvcc, declares the device built-ins (__syncthreads, threadIdx, printf) only
// through its runtime header.
#if defined(TESSERA_HIP)
#  include <hip/hip_runtime.h>
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#  define TESSERA_DEVICE_PASS 1
#else
#  define TESSERA_DEVICE_PASS 0
#endif

#if defined(TESSERA_CUDA) || defined(TESSERA_HIP)
#  define TESSERA_HOST_DEVICE __host__ __device__
#  define TESSERA_DEVICE __device__
#  define TESSERA_GLOBAL __global__
#else
#  define TESSERA_HOST_DEVICE
#  define TESSERA_DEVICE
#  define TESSERA_GLOBAL
#endif

#if defined(_MSC_VER)
#  define TESSERA_FORCEINLINE __forceinline
#else
#  define TESSERA_FORCEINLINE inline __attribute__((always_inline))
#endif

// The spelling used on almost every function of the library.
#define TESSERA_HD TESSERA_HOST_DEVICE TESSERA_FORCEINLINE

// A function kept out of line (a call where it is used), on the device too.
#if defined(TESSERA_CUDA)
#  define TESSERA_NOINLINE __noinline__
#else
#  define TESSERA_NOINLINE __attribute__((noinline))
#endif

// Loop unrolling for device compilers; nothing for host compilers (g++ warns on `#pragma unroll`).
//   TESSERA_UNROLL for (...)              fully
//   TESSERA_UNROLL_N(expr) for (...)       expr times (an integral constant expression)
#define TESSERA_PRAGMA(x) _Pragma(#x)
#if defined(TESSERA_CUDA)
#  define TESSERA_UNROLL TESSERA_PRAGMA(unroll)
#  define TESSERA_UNROLL_N(n) TESSERA_PRAGMA(unroll(n))
#elif defined(TESSERA_HIP)  // (clang warns on CUDA's parenthesized form in HIP mode)
#  define TESSERA_UNROLL TESSERA_PRAGMA(unroll)
#  define TESSERA_UNROLL_N(n) TESSERA_PRAGMA(clang loop unroll_count(n))
#else
#  define TESSERA_UNROLL
#  define TESSERA_UNROLL_N(n)
#endif

// CUDA architecture of the current device pass as an integer (800 for sm_80, 900 for sm_90a),
// 0 on the host and on HIP.
#if defined(__CUDA_ARCH__)
#  define TESSERA_CUDA_ARCH __CUDA_ARCH__
#else
#  define TESSERA_CUDA_ARCH 0
#endif

// Stops the program with a message: on the device through printf + trap, on the host through
// abort. Used for the loud fallback of architecture-gated code and for broken invariants.
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
#  define TESSERA_UNREACHABLE(msg)                                                         \
    do {                                                                                   \
      printf("tessera: unreachable: %s (%s:%d)\n", msg, __FILE__, __LINE__);               \
      __trap();                                                                            \
    } while (0)
#elif TESSERA_DEVICE_PASS && defined(TESSERA_HIP)
#  define TESSERA_UNREACHABLE(msg)                                                         \
    do {                                                                                   \
      printf("tessera: unreachable: %s (%s:%d)\n", msg, __FILE__, __LINE__);               \
      __builtin_trap();                                                                    \
    } while (0)
#else
#  define TESSERA_UNREACHABLE(msg)                                                         \
    do {                                                                                   \
      std::fprintf(stderr, "tessera: unreachable: %s (%s:%d)\n", msg, __FILE__, __LINE__); \
      std::abort();                                                                        \
    } while (0)
#endif

// Run-time precondition checks of dynamic (non-static) values. Compiled in unless NDEBUG or
// TESSERA_NO_ASSERT is defined; static values are checked with static_assert instead.
#if defined(NDEBUG) || defined(TESSERA_NO_ASSERT)
#  define TESSERA_ASSERT(cond, msg) ((void)0)
#else
#  define TESSERA_ASSERT(cond, msg)                                                        \
    do {                                                                                   \
      if (!(cond)) { TESSERA_UNREACHABLE(msg); }                                           \
    } while (0)
#endif

namespace tessera {
// For the primary template of something with no general definition (a static_assert that only
// fires when instantiated):
//   static_assert(dependent_false<T>, "WarpMma: no atom for these types; see atom/sm80.hpp");
template <class...>
inline constexpr bool dependent_false = false;
}  // namespace tessera
