// cp.async on sm_80: asynchronous global -> shared copies of 4, 8 or 16 bytes, grouped and waited on.
//
// `src_bytes` < the copy size zero-fills the rest (0: nothing is read, all zeros are written):
// out-of-bounds elements of a tile become zeros without a branch around the copy.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instruction) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(TESSERA_ARCH_MMA_SM80)
#  define TESSERA_CP_ASYNC_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_CP_ASYNC_BODY(...) TESSERA_UNREACHABLE("cp.async needs sm_80 or later: build for sm_80/sm_90a")
#endif

// Bytes: 4, 8 or 16. 16-byte copies bypass L1 (.cg); smaller ones go through it (.ca).
template <int Bytes>
TESSERA_DEVICE inline void cp_async_zfill(std::uint32_t smem, void const* gmem, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp_async: a copy is 4, 8 or 16 bytes; use one of those");
  if constexpr (Bytes == 16) {
    TESSERA_CP_ASYNC_BODY("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(gmem), "r"(src_bytes));
  } else {
    TESSERA_CP_ASYNC_BODY("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem), "l"(gmem), "n"(Bytes),
                          "r"(src_bytes));
  }
}

// A whole-vector copy under two conditions: nothing happens unless `active`; zeros are written
// instead of the source when `zero` (the source is then not read, so its address may be invalid).
template <int Bytes>
TESSERA_DEVICE inline void cp_async_guarded(std::uint32_t smem, void const* gmem, bool active, bool zero) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp_async: a copy is 4, 8 or 16 bytes; use one of those");
  if constexpr (Bytes == 16) {
    TESSERA_CP_ASYNC_BODY(
        "{\n .reg .pred a, z;\n setp.ne.b32 a, %2, 0;\n setp.ne.b32 z, %3, 0;\n"
        " @a cp.async.cg.shared.global [%0], [%1], 16, z;\n}\n" ::"r"(smem),
        "l"(gmem), "r"(int(active)), "r"(int(zero)));
  } else {
    TESSERA_CP_ASYNC_BODY(
        "{\n .reg .pred a, z;\n setp.ne.b32 a, %2, 0;\n setp.ne.b32 z, %3, 0;\n"
        " @a cp.async.ca.shared.global [%0], [%1], %4, z;\n}\n" ::"r"(smem),
        "l"(gmem), "r"(int(active)), "r"(int(zero)), "n"(Bytes));
  }
}

// Closes the group of copies issued since the last commit.
TESSERA_DEVICE inline void cp_async_commit() { TESSERA_CP_ASYNC_BODY("cp.async.commit_group;\n" ::); }

// Waits until at most N groups are still in flight.
template <int N>
TESSERA_DEVICE inline void cp_async_wait() {
  TESSERA_CP_ASYNC_BODY("cp.async.wait_group %0;\n" ::"n"(N));
}

#undef TESSERA_CP_ASYNC_BODY

}  // namespace tessera::arch

#pragma GCC diagnostic pop
