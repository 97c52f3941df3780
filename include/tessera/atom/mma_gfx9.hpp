// Traits of the AMD MFMA instructions (arch/gfx9/mfma.hpp) over a 64-lane wavefront. Each
// thread-value layout below is the CDNA ISA's register mapping written as a layout (as AMD's
// matrix instruction calculator prints it): lane l, value v in register order (value v of a
// 16-bit operand is half v % 2 of register v / 2; of an 8-bit operand, byte v % 4 of register
// v / 4). Every instruction here has one block (no broadcast modifiers):
//
//   32 x 32 x K:  A(i, k) at lane i + 32 * (k / KL), value k % KL       (KL = K / 2 values per lane)
//                 B(k, j) at lane j + 32 * (k / KL), value k % KL
//                 D(i, j) at lane j + 32 * ((i / 4) % 2), value 4 * (i / 8) + i % 4
//   16 x 16 x K:  A(i, k) at lane i + 16 * (k / KL), value k % KL       (KL = K / 4)
//                 B(k, j) at lane j + 16 * (k / KL), value k % KL
//                 D(i, j) at lane j + 16 * (i / 4), value i % 4
//
// D's values are the accumulator registers (AGPRs or VGPRs): a lane holds four consecutive rows of
// one column per group of four registers.
#pragma once

#include <cstdint>

#include "tessera/arch/gfx9/mfma.hpp"
#include "tessera/atom/mma_atom.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/numeric_types.hpp"

namespace tessera::atom {

namespace detail {

// 32 x 32 x K with KL = K / 2 values of A and B per lane.
template <int K_>
struct Gfx9_32x32_Layouts {
  static constexpr int M = 32, N = 32, K = K_, threads = 64;
  static constexpr int KL = K / 2;
  // (lane, value) -> m + 32 k: lane = (i, k / KL), value = k % KL.
  TESSERA_HD static constexpr auto a_layout() {
    return make_layout(make_tuple(make_tuple(_32{}, _2{}), Int<KL>{}), make_tuple(make_tuple(_1{}, Int<32 * KL>{}), _32{}));
  }
  TESSERA_HD static constexpr auto b_layout() { return a_layout(); }  // n + 32 k, the same shape
  // (lane, value) -> m + 32 n: lane = (j, (i / 4) % 2), value = (i % 4, i / 8).
  TESSERA_HD static constexpr auto c_layout() {
    return make_layout(make_tuple(make_tuple(_32{}, _2{}), make_tuple(_4{}, _4{})),
                       make_tuple(make_tuple(_32{}, _4{}), make_tuple(_1{}, _8{})));
  }
};

// 16 x 16 x K with KL = K / 4 values of A and B per lane.
template <int K_>
struct Gfx9_16x16_Layouts {
  static constexpr int M = 16, N = 16, K = K_, threads = 64;
  static constexpr int KL = K / 4;
  TESSERA_HD static constexpr auto a_layout() {
    return make_layout(make_tuple(make_tuple(_16{}, _4{}), Int<KL>{}), make_tuple(make_tuple(_1{}, Int<16 * KL>{}), _16{}));
  }
  TESSERA_HD static constexpr auto b_layout() { return a_layout(); }
  // (lane, value) -> m + 16 n: lane = (j, i / 4), value = i % 4.
  TESSERA_HD static constexpr auto c_layout() {
    return make_layout(make_tuple(make_tuple(_16{}, _4{}), _4{}), make_tuple(make_tuple(_16{}, _4{}), _1{}));
  }
};

}  // namespace detail

template <>
struct MmaTraits<arch::Gfx9_32x32x8_F32F16F16F32> : detail::Gfx9_32x32_Layouts<8> {
  using Op = arch::Gfx9_32x32x8_F32F16F16F32;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx9_16x16x16_F32F16F16F32> : detail::Gfx9_16x16_Layouts<16> {
  using Op = arch::Gfx9_16x16x16_F32F16F16F32;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx9_32x32x8_F32BF16BF16F32> : detail::Gfx9_32x32_Layouts<8> {
  using Op = arch::Gfx9_32x32x8_F32BF16BF16F32;
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx9_16x16x16_F32BF16BF16F32> : detail::Gfx9_16x16_Layouts<16> {
  using Op = arch::Gfx9_16x16x16_F32BF16BF16F32;
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx9_32x32x2_F32F32F32F32> : detail::Gfx9_32x32_Layouts<2> {
  using Op = arch::Gfx9_32x32x2_F32F32F32F32;
  using ElementA = float;
  using ElementB = float;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx9_32x32x8_S32S8S8S32> : detail::Gfx9_32x32_Layouts<8> {
  using Op = arch::Gfx9_32x32x8_S32S8S8S32;
  using ElementA = std::int8_t;
  using ElementB = std::int8_t;
  using ElementC = std::int32_t;
};

template <>
struct MmaTraits<arch::Gfx940_32x32x16_S32S8S8S32> : detail::Gfx9_32x32_Layouts<16> {
  using Op = arch::Gfx940_32x32x16_S32S8S8S32;
  using ElementA = std::int8_t;
  using ElementB = std::int8_t;
  using ElementC = std::int32_t;
};

// xf32: floats the unit rounds to 10 mantissa bits (as tf32 on NVIDIA).
template <>
struct MmaTraits<arch::Gfx940_32x32x4_F32XF32XF32F32> : detail::Gfx9_32x32_Layouts<4> {
  using Op = arch::Gfx940_32x32x4_F32XF32XF32F32;
  using ElementA = float;
  using ElementB = float;
  using ElementC = float;
};

// fp8 / bf8 (gfx94x): AMD's FNUZ formats, 8 per lane as for i8 with K = 16.
template <>
struct MmaTraits<arch::Gfx940_32x32x16_F32F8F8F32> : detail::Gfx9_32x32_Layouts<16> {
  using Op = arch::Gfx940_32x32x16_F32F8F8F32;
  using ElementA = float8_e4m3_fnuz_t;
  using ElementB = float8_e4m3_fnuz_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Gfx940_32x32x16_F32BF8BF8F32> : detail::Gfx9_32x32_Layouts<16> {
  using Op = arch::Gfx940_32x32x16_F32BF8BF8F32;
  using ElementA = float8_e5m2_fnuz_t;
  using ElementB = float8_e5m2_fnuz_t;
  using ElementC = float;
};

static_assert(MmaAtom<MmaTraits<arch::Gfx9_32x32x8_F32F16F16F32>>, "atom/mma_gfx9: traits incomplete");
static_assert(MmaAtom<MmaTraits<arch::Gfx9_16x16x16_F32F16F16F32>>, "atom/mma_gfx9: traits incomplete");

}  // namespace tessera::atom
