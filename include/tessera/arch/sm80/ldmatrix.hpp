// ldmatrix on sm_80: a warp loads 1, 2 or 4 8x8 matrices of 16-bit elements from shared memory.
//
// Lane i supplies the shared-memory address of row (i % 8) of matrix (i / 8) (lanes 8..31 are
// ignored for x1, 16..31 for x2). Register j of lane i receives row i / 4, columns 2*(i % 4) and
// 2*(i % 4) + 1 of matrix j; with .trans, the matrix is transposed on the way.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instruction) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(TESSERA_ARCH_MMA_SM80)
#  define TESSERA_LDSM_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_LDSM_BODY(...) TESSERA_UNREACHABLE("ldmatrix needs sm_80 or later: build for sm_80/sm_90a")
#endif

// The 32-bit shared-window address of a generic pointer to shared memory.
TESSERA_DEVICE inline std::uint32_t smem_address(void const* p) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  (void)p;
  TESSERA_UNREACHABLE("smem_address is device code");
  return 0;
#endif
}

TESSERA_DEVICE inline void ldmatrix_x1(std::uint32_t (&r)[1], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(smem));
}
TESSERA_DEVICE inline void ldmatrix_x2(std::uint32_t (&r)[2], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem));
}
TESSERA_DEVICE inline void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                    : "r"(smem));
}
TESSERA_DEVICE inline void ldmatrix_x1_trans(std::uint32_t (&r)[1], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(smem));
}
TESSERA_DEVICE inline void ldmatrix_x2_trans(std::uint32_t (&r)[2], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                    : "=r"(r[0]), "=r"(r[1])
                    : "r"(smem));
}
TESSERA_DEVICE inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t smem) {
  TESSERA_LDSM_BODY("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                    : "r"(smem));
}

#undef TESSERA_LDSM_BODY

}  // namespace tessera::arch

#pragma GCC diagnostic pop
