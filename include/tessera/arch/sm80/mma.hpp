// mma.sync on sm_80: the warp-wide matrix multiply-accumulate instructions, literally.
//
// Each struct is one instruction: D = A * B + C for an M x N x K tile held in registers across
// a warp. Which (thread, register) holds which element is the atom's business (atom/mma_sm80.hpp);
// here the registers are opaque 32-bit words, in the order the PTX ISA lists them.
// Names: Sm80_<M>x<N>x<K>_<D><A><B><C>_TN (A row-major "T", B column-major "N" in BLAS terms).
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instruction) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(TESSERA_ARCH_MMA_SM80)
#  define TESSERA_MMA_SM80_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_MMA_SM80_BODY(...) TESSERA_UNREACHABLE("mma.sync needs sm_80 or later: build for sm_80/sm_90a")
#endif

// 16x8x16, bf16 inputs, f32 accumulators. A: 4 regs (8 bf16), B: 2 regs (4 bf16), C/D: 4 floats.
struct Sm80_16x8x16_F32BF16BF16F32_TN {
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];
  TESSERA_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2],
                                 float const (&c)[4]) {
    TESSERA_MMA_SM80_BODY(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
};

// 16x8x16, f16 inputs, f32 accumulators.
struct Sm80_16x8x16_F32F16F16F32_TN {
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];
  TESSERA_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2],
                                 float const (&c)[4]) {
    TESSERA_MMA_SM80_BODY(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
};

// 16x8x16, f16 inputs, f16 accumulators: C/D are 2 regs of 2 halves each.
struct Sm80_16x8x16_F16F16F16F16_TN {
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = std::uint32_t[2];
  TESSERA_DEVICE static void fma(std::uint32_t (&d)[2], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2],
                                 std::uint32_t const (&c)[2]) {
    TESSERA_MMA_SM80_BODY(
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
        : "=r"(d[0]), "=r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  }
};

// 16x8x8, tf32 inputs (floats whose low 13 bits the unit ignores), f32 accumulators.
struct Sm80_16x8x8_F32TF32TF32F32_TN {
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];
  TESSERA_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2],
                                 float const (&c)[4]) {
    TESSERA_MMA_SM80_BODY(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
};

// 16x8x32, s8 inputs, s32 accumulators (wrapping, not saturating).
struct Sm80_16x8x32_S32S8S8S32_TN {
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = std::int32_t[4];
  TESSERA_DEVICE static void fma(std::int32_t (&d)[4], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2],
                                 std::int32_t const (&c)[4]) {
    TESSERA_MMA_SM80_BODY(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),
          "r"(c[3]));
  }
};

#undef TESSERA_MMA_SM80_BODY

}  // namespace tessera::arch

#pragma GCC diagnostic pop
