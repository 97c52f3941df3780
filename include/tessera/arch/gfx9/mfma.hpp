// MFMA on AMD CDNA (gfx908, gfx90a, gfx94x): the wavefront-wide matrix fused multiply-adds,
// literally, through the compiler's __builtin_amdgcn_mfma_* builtins.
//
// Each struct is one instruction: D = A * B + C for an M x N x K tile held in the VGPRs of a
// 64-lane wavefront. As for mma.sync (arch/sm80/mma.hpp), registers are opaque 32-bit words here
// (and floats for f32 data); which (lane, value) holds which element is the atom's business
// (atom/mma_gfx9.hpp). The accumulators may live in AGPRs: the compiler chooses.
// Names: Gfx9_<M>x<N>x<K>_<D><A><B><C> for instructions of gfx908 and later, Gfx940_... for
// CDNA3's own. Each fma is guarded by its feature macro (arch/arch.hpp); built for a target
// without the instruction it stops the kernel with a message instead.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instruction) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch {

#if defined(TESSERA_ARCH_MFMA)
namespace gfx9_detail {
// The builtins' operand types.
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));
typedef int int16 __attribute__((ext_vector_type(16)));
typedef float float_scalar;
typedef int int_scalar;
typedef long long_scalar;  // 64 bits on amdgcn

// The same bits as another type (free once inlined: the registers do not move). An array of
// 32-bit words is gathered into a vector of words first: a bit_cast between vectors stays in
// registers, where one from the array itself may go through scratch memory.
template <class To, class E, int N>
TESSERA_DEVICE inline To bits_as(E const (&from)[N]) {
  static_assert(sizeof(To) == sizeof(E) * N && sizeof(E) == 4, "arch::gfx9: operand sizes differ");
  if constexpr (N == 1) {
    return __builtin_bit_cast(To, from[0]);
  } else {
    typedef E words __attribute__((ext_vector_type(N)));
    words w;
    TESSERA_UNROLL
    for (int i = 0; i < N; ++i) w[i] = from[i];
    return __builtin_bit_cast(To, w);
  }
}
}  // namespace gfx9_detail

// d = builtin(a, b, c) with cbsz = abid = blgp = 0 (no broadcast or lane permutation).
#  define TESSERA_MFMA_CALL(builtin, TA, TB, TC)                                                                 \
    auto const result = builtin(gfx9_detail::bits_as<gfx9_detail::TA>(a), gfx9_detail::bits_as<gfx9_detail::TB>(b), \
                                gfx9_detail::bits_as<gfx9_detail::TC>(c), 0, 0, 0);                              \
    __builtin_memcpy(&d, &result, sizeof d)
#endif

#define TESSERA_MFMA_MISSING(instruction, targets) \
  TESSERA_UNREACHABLE(instruction " needs " targets ": build with --offload-arch=gfx90a or gfx940")

// 32x32x8, f16 inputs, f32 accumulators. A, B: 2 regs (4 halves) per lane; C/D: 16 floats.
struct Gfx9_32x32x8_F32F16F16F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x8f16, half4, half4, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x8f16", "gfx908/gfx90a/gfx94x");
#endif
  }
};

// 16x16x16, f16 inputs, f32 accumulators. A, B: 2 regs per lane; C/D: 4 floats.
struct Gfx9_16x16x16_F32F16F16F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];
  TESSERA_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[4]) {
#if defined(TESSERA_ARCH_MFMA)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_16x16x16f16, half4, half4, float4);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_16x16x16f16", "gfx908/gfx90a/gfx94x");
#endif
  }
};

// 32x32x8, bf16 inputs (the "_1k" encoding: 4 bf16 per lane), f32 accumulators.
struct Gfx9_32x32x8_F32BF16BF16F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_BF16_1K)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x8bf16_1k, short4, short4, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x8bf16_1k", "gfx90a/gfx94x");
#endif
  }
};

// 16x16x16, bf16 inputs (_1k), f32 accumulators.
struct Gfx9_16x16x16_F32BF16BF16F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];
  TESSERA_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[4]) {
#if defined(TESSERA_ARCH_MFMA_BF16_1K)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_16x16x16bf16_1k, short4, short4, float4);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_16x16x16bf16_1k", "gfx90a/gfx94x");
#endif
  }
};

// 32x32x2, f32 inputs, f32 accumulators. A, B: 1 float per lane.
struct Gfx9_32x32x2_F32F32F32F32 {
  using ARegisters = float[1];
  using BRegisters = float[1];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], float const (&a)[1], float const (&b)[1], float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x2f32, float_scalar, float_scalar, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x2f32", "gfx908/gfx90a/gfx94x");
#endif
  }
};

// 32x32x8, s8 inputs (4 per register), s32 accumulators: gfx908 and gfx90a (CDNA3 doubles K).
struct Gfx9_32x32x8_S32S8S8S32 {
  using ARegisters = std::uint32_t[1];
  using BRegisters = std::uint32_t[1];
  using CRegisters = std::int32_t[16];
  TESSERA_DEVICE static void fma(std::int32_t (&d)[16], std::uint32_t const (&a)[1], std::uint32_t const (&b)[1],
                                 std::int32_t const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_I8_K8)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_i32_32x32x8i8, int_scalar, int_scalar, int16);
#else
    TESSERA_MFMA_MISSING("v_mfma_i32_32x32x8i8", "gfx908/gfx90a");
#endif
  }
};

// 32x32x16, s8 inputs (8 per lane in 2 registers), s32 accumulators: gfx94x.
struct Gfx940_32x32x16_S32S8S8S32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = std::int32_t[16];
  TESSERA_DEVICE static void fma(std::int32_t (&d)[16], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 std::int32_t const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_GFX940)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_i32_32x32x16_i8, long_scalar, long_scalar, int16);
#else
    TESSERA_MFMA_MISSING("v_mfma_i32_32x32x16_i8", "gfx94x");
#endif
  }
};

// 32x32x4, xf32 inputs (2 floats per lane, rounded by the unit to 10 mantissa bits), f32
// accumulators: gfx94x.
struct Gfx940_32x32x4_F32XF32XF32F32 {
  using ARegisters = float[2];
  using BRegisters = float[2];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], float const (&a)[2], float const (&b)[2], float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_GFX940)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x4_xf32, float2, float2, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x4_xf32", "gfx94x");
#endif
  }
};

// 32x32x16, fp8 inputs (AMD's E4M3 "FNUZ": exponent bias 8, one NaN 0x80, no infinity; 8 per
// lane in 2 registers), f32 accumulators: gfx94x.
struct Gfx940_32x32x16_F32F8F8F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_GFX940)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, long_scalar, long_scalar, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x16_fp8_fp8", "gfx94x");
#endif
  }
};

// 32x32x16, bf8 inputs (AMD's E5M2 "FNUZ": exponent bias 16, one NaN 0x80, no infinity), f32
// accumulators: gfx94x. Registers as for fp8.
struct Gfx940_32x32x16_F32BF8BF8F32 {
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[16];
  TESSERA_DEVICE static void fma(float (&d)[16], std::uint32_t const (&a)[2], std::uint32_t const (&b)[2],
                                 float const (&c)[16]) {
#if defined(TESSERA_ARCH_MFMA_GFX940)
    TESSERA_MFMA_CALL(__builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8, long_scalar, long_scalar, float16);
#else
    TESSERA_MFMA_MISSING("v_mfma_f32_32x32x16_bf8_bf8", "gfx94x");
#endif
  }
};

#undef TESSERA_MFMA_MISSING
#if defined(TESSERA_ARCH_MFMA)
#  undef TESSERA_MFMA_CALL
#endif

}  // namespace tessera::arch

#pragma GCC diagnostic pop
