// Traits of the sm_80 mma.sync instructions (arch/sm80/mma.hpp). Each thread-value layout below
// is the PTX ISA's fragment table written as a layout: thread t = t4 + 4 * g (t4 = laneid % 4,
// g = laneid / 4, "threadID_in_group" and "groupID" in the ISA), then the values.
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/mma.hpp"
#include "tessera/atom/mma_atom.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/numeric_types.hpp"

namespace tessera::atom {

namespace detail {

// The accumulator of every m16n8 instruction: c_i at row g + 8 * (i / 2), column 2 * t4 + i % 2.
struct Sm80_C_16x8 {
  TESSERA_HD static constexpr auto c_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_2{}, _2{})),
                       make_tuple(make_tuple(_32{}, _1{}), make_tuple(Int<16>{}, _8{})));
  }
};

// m16n8k16 with 16-bit inputs.
//   A: a_i at row g + 8 * ((i / 2) % 2), column 2 * t4 + i % 2 + 8 * (i / 4)
//   B: b_i at row (k) 2 * t4 + i % 2 + 8 * (i / 2), column (n) g
struct Sm80_16x8x16_Layouts : Sm80_C_16x8 {
  static constexpr int M = 16, N = 8, K = 16, threads = 32;
  TESSERA_HD static constexpr auto a_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_2{}, _2{}, _2{})),
                       make_tuple(make_tuple(_32{}, _1{}), make_tuple(_16{}, _8{}, _128{})));
  }
  TESSERA_HD static constexpr auto b_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_2{}, _2{})),
                       make_tuple(make_tuple(_16{}, _1{}), make_tuple(_8{}, _64{})));
  }
};

}  // namespace detail

template <>
struct MmaTraits<arch::Sm80_16x8x16_F32BF16BF16F32_TN> : detail::Sm80_16x8x16_Layouts {
  using Op = arch::Sm80_16x8x16_F32BF16BF16F32_TN;
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Sm80_16x8x16_F32F16F16F32_TN> : detail::Sm80_16x8x16_Layouts {
  using Op = arch::Sm80_16x8x16_F32F16F16F32_TN;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = float;
};

template <>
struct MmaTraits<arch::Sm80_16x8x16_F16F16F16F16_TN> : detail::Sm80_16x8x16_Layouts {
  using Op = arch::Sm80_16x8x16_F16F16F16F16_TN;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = half_t;
};

// m16n8k8 tf32.
//   A: a_i at row g + 8 * (i % 2), column t4 + 4 * (i / 2)
//   B: b_i at row (k) t4 + 4 * i, column (n) g
template <>
struct MmaTraits<arch::Sm80_16x8x8_F32TF32TF32F32_TN> : detail::Sm80_C_16x8 {
  using Op = arch::Sm80_16x8x8_F32TF32TF32F32_TN;
  using ElementA = float;  // rounded to tf32 by the unit (or beforehand with round_to_tf32)
  using ElementB = float;
  using ElementC = float;
  static constexpr int M = 16, N = 8, K = 8, threads = 32;
  TESSERA_HD static constexpr auto a_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_2{}, _2{})),
                       make_tuple(make_tuple(_16{}, _1{}), make_tuple(_8{}, _64{})));
  }
  TESSERA_HD static constexpr auto b_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), _2{}), make_tuple(make_tuple(_8{}, _1{}), _32{}));
  }
};

// m16n8k32 s8.
//   A: a_i at row g + 8 * ((i / 4) % 2), column 4 * t4 + i % 4 + 16 * (i / 8)
//   B: b_i at row (k) 4 * t4 + i % 4 + 16 * (i / 4), column (n) g
template <>
struct MmaTraits<arch::Sm80_16x8x32_S32S8S8S32_TN> : detail::Sm80_C_16x8 {
  using Op = arch::Sm80_16x8x32_S32S8S8S32_TN;
  using ElementA = std::int8_t;
  using ElementB = std::int8_t;
  using ElementC = std::int32_t;
  static constexpr int M = 16, N = 8, K = 32, threads = 32;
  TESSERA_HD static constexpr auto a_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_4{}, _2{}, _2{})),
                       make_tuple(make_tuple(_64{}, _1{}), make_tuple(_16{}, _8{}, Int<256>{})));
  }
  TESSERA_HD static constexpr auto b_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}), make_tuple(_4{}, _2{})),
                       make_tuple(make_tuple(_32{}, _1{}), make_tuple(_8{}, _128{})));
  }
};

static_assert(MmaAtom<MmaTraits<arch::Sm80_16x8x16_F32BF16BF16F32_TN>>, "atom/mma_sm80: traits incomplete");

}  // namespace tessera::atom
