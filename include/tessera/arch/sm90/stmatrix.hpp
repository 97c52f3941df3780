// stmatrix (sm_90): a warp stores one, two or four 8 x 8 matrices of 16-bit elements to shared
// memory, the inverse of ldmatrix. Register i of lane t holds row t / 4, columns 2 (t % 4) and
// 2 (t % 4) + 1 of matrix i (the layout of an mma.sync / wgmma accumulator fragment once packed to
// 16 bits); lanes 8 i .. 8 i + 7 give the shared addresses of matrix i's rows, 16 bytes each.
// The .trans forms store each matrix transposed (a column-major tile from the same fragment).
//
//   stmatrix_x4(smem_address(row_ptr_of_this_lane), r0, r1, r2, r3);
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch::sm90 {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define TESSERA_STMATRIX_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_STMATRIX_BODY(...) TESSERA_UNREACHABLE("stmatrix needs sm_90: build for sm_90a")
#endif

TESSERA_DEVICE inline void stmatrix_x1(std::uint32_t addr, std::uint32_t r0) {
  TESSERA_STMATRIX_BODY("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r0) : "memory");
}

TESSERA_DEVICE inline void stmatrix_x2(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  TESSERA_STMATRIX_BODY("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1) : "memory");
}

TESSERA_DEVICE inline void stmatrix_x4(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2, std::uint32_t r3) {
  TESSERA_STMATRIX_BODY("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1),
                        "r"(r2), "r"(r3)
                        : "memory");
}

TESSERA_DEVICE inline void stmatrix_x4_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                             std::uint32_t r3) {
  TESSERA_STMATRIX_BODY("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0),
                        "r"(r1), "r"(r2), "r"(r3)
                        : "memory");
}

#undef TESSERA_STMATRIX_BODY

}  // namespace tessera::arch::sm90

#pragma GCC diagnostic pop
