// Conversion of epilogue values to the output type: round to nearest even, saturating for the
// integer and fp8 types (an int8 output of 300.7 is 127, of -1000 is -128; NaN is 0 for integers).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/chain.hpp"

namespace tessera::epilogue {

namespace detail {
TESSERA_HD float round_even(float x) {
#if TESSERA_DEVICE_PASS
  return rintf(x);
#else
  return __builtin_rintf(x);  // the default rounding mode is to nearest even
#endif
}
}  // namespace detail

// float -> T, saturating where T is an integer or an fp8 type.
template <class T>
TESSERA_HD T convert_output(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    static_assert(sizeof(T) <= 4, "convert_output: integer outputs of up to 32 bits; use int8, int16 or int32");
    // The representable range, as floats: for 32-bit types the largest float below 2^31 (2^32).
    constexpr float lo = std::is_signed_v<T> ? -float(1ull << (sizeof(T) * 8 - 1)) : 0.0f;
    constexpr float hi = sizeof(T) == 4 ? (std::is_signed_v<T> ? 2147483520.0f : 4294967040.0f)
                                        : float((1ull << (sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0))) - 1);
    if (!(x == x)) return T(0);
    float const r = detail::round_even(x);
    return T(r < lo ? lo : (r > hi ? hi : r));
  } else if constexpr (std::is_same_v<T, float8_e4m3_t> || std::is_same_v<T, float8_e5m2_t>) {
    return T::from_float(x, Saturation::kFinite);
  } else {
    return T(x);  // half, bfloat16: IEEE rounding, overflow to infinity
  }
}

// Two neighbouring outputs of a 16-bit type T packed in one word, `lo` in the low half: the form
// a paired store or stmatrix takes (one cvt.rn.{bf16,f16}x2 where the device has it, and no
// unpacking and repacking of the halves).
template <class T>
TESSERA_HD std::uint32_t convert_output_packed(float lo, float hi) {
  static_assert(sizeof(T) == 2, "convert_output_packed: packs two 16-bit outputs; use convert_output_pair for other types");
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA) && TESSERA_CUDA_ARCH >= 800
  if constexpr (std::is_same_v<T, bfloat16_t> || std::is_same_v<T, half_t>) return pack_pair<T>(lo, hi);
#endif
  return std::uint32_t(convert_output<T>(lo).bits()) | std::uint32_t(convert_output<T>(hi).bits()) << 16;
}

// Element e (0: the low half) of two 16-bit values of type T packed in one word, as a float:
// bfloat16 by a shift, half by the conversion instruction on the device (the types' portable
// decode handles subnormals and NaNs in code).
template <class T>
TESSERA_HD float unpack_half(std::uint32_t packed, int e) {
  static_assert(sizeof(T) == 2, "unpack_half: unpacks 16-bit values");
  std::uint16_t const bits = std::uint16_t(e == 0 ? packed & 0xFFFFu : packed >> 16);
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  if constexpr (std::is_same_v<T, bfloat16_t>) return __uint_as_float(std::uint32_t(bits) << 16);
  if constexpr (std::is_same_v<T, half_t>) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
    return f;
  }
#endif
  return T::from_bits(bits).to_float();
}

// Two neighbouring outputs at once: convert_output of each, in one instruction where the device
// has one (cvt.rn.bf16x2 / f16x2 on sm_80 and later) instead of two conversions and a pack.
template <class T>
TESSERA_HD void convert_output_pair(float lo, float hi, T& out_lo, T& out_hi) {
  if constexpr (std::is_same_v<T, bfloat16_t> || std::is_same_v<T, half_t>) {
    std::uint32_t const packed = convert_output_packed<T>(lo, hi);
    out_lo = T::from_bits(static_cast<std::uint16_t>(packed & 0xFFFFu));
    out_hi = T::from_bits(static_cast<std::uint16_t>(packed >> 16));
  } else {
    out_lo = convert_output<T>(lo);
    out_hi = convert_output<T>(hi);
  }
}

// A stage that rounds to T (saturating as convert_output does) and continues in float: put it
// where a chain must see the value the output type can hold, e.g. before a residual of that type.
template <class T>
struct ConvertTo {
  TESSERA_HD float operator()(float x, Coord const&) const {
    T const y = convert_output<T>(x);
    if constexpr (std::is_arithmetic_v<T>) {
      return float(y);
    } else {
      return y.to_float();
    }
  }
};

}  // namespace tessera::epilogue
