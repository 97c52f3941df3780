// Narrow floating-point types: half (IEEE binary16), bfloat16, float8_e4m3 (OCP E4M3FN: no
// infinity, one NaN pattern per sign), float8_e5m2 (IEEE-like), AMD's float8_e4m3_fnuz and
// float8_e5m2_fnuz (gfx94x: no infinity, no negative zero, one NaN 0x80), and tf32 rounding of
// floats.
//
// Conversions from float round to nearest, ties to even, and are bit-exact with CUDA's
// (__float2half_rn, __float2bfloat16_rn, __nv_cvt_float_to_fp8) including NaN canonicalization
// (0x7FFF for 16-bit types, 0x7F for fp8) and the fp8 saturation modes. Conversions to float are
// exact. One generic encoder/decoder, parameterized by the format, serves every type; on CUDA
// devices that have the conversion instruction it is used instead, with identical results.
//
//   tessera::bfloat16 b(1.0f / 3.0f);   float f = float(b);   uint16_t bits = b.bits();
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/config.hpp"

namespace tessera {

// What a conversion does with finite values too large for the format.
enum class Saturation {
  kNone,    // overflow to infinity (or NaN where the format has no infinity), as IEEE does
  kFinite,  // clamp to the largest finite value of that sign; NaN stays NaN
};

namespace detail {

TESSERA_HD constexpr std::uint32_t float_bits(float f) { return __builtin_bit_cast(std::uint32_t, f); }
TESSERA_HD constexpr float bits_float(std::uint32_t u) { return __builtin_bit_cast(float, u); }

}  // namespace detail

// ---- formats -----------------------------------------------------------------------------------

namespace format {

// Which special values a format has.
enum class Specials {
  kIeee,       // infinities and NaNs in the all-ones exponent (binary16, bfloat16, E5M2)
  kFiniteNan,  // no infinity; the all-ones magnitude is NaN, of either sign (OCP E4M3FN)
  kFnuz,       // no infinity, no negative zero; the pattern of negative zero (0x80) is the one NaN
};

// A binary floating-point format of 1 sign bit, ExponentBits and MantissaBits.
template <int ExponentBits, int MantissaBits, int Bias, Specials Kind, class Storage, std::uint32_t MaxFinite,
          Saturation DefaultSaturation>
struct Binary {
  using storage_type = Storage;
  static constexpr int exponent_bits = ExponentBits;
  static constexpr int mantissa_bits = MantissaBits;
  static constexpr int bias = Bias;
  static constexpr Specials specials = Kind;
  static constexpr bool has_infinity = Kind == Specials::kIeee;
  static constexpr bool fnuz = Kind == Specials::kFnuz;
  static constexpr int sign_shift = ExponentBits + MantissaBits;
  static constexpr std::uint32_t max_finite = MaxFinite;  // magnitude bits of the largest finite value
  static constexpr std::uint32_t infinity = ((1u << ExponentBits) - 1u) << MantissaBits;  // if has_infinity
  // The NaN conversions produce: CUDA's canonical all-ones magnitude, or FNUZ's only NaN.
  static constexpr std::uint32_t nan = fnuz ? 1u << sign_shift : (1u << sign_shift) - 1u;
  static constexpr Saturation default_saturation = DefaultSaturation;
};

using Binary16 = Binary<5, 10, 15, Specials::kIeee, std::uint16_t, 0x7BFFu, Saturation::kNone>;
using BFloat16 = Binary<8, 7, 127, Specials::kIeee, std::uint16_t, 0x7F7Fu, Saturation::kNone>;
using E4M3 = Binary<4, 3, 7, Specials::kFiniteNan, std::uint8_t, 0x7Eu, Saturation::kFinite>;
using E5M2 = Binary<5, 2, 15, Specials::kIeee, std::uint8_t, 0x7Bu, Saturation::kFinite>;
// AMD's fp8 on gfx94x (the MFMA fp8 / bf8 operands): one more exponent of bias than OCP's, every
// exponent finite. E4M3 FNUZ reaches 240 (0x7F), E5M2 FNUZ 57344 (0x7F).
using E4M3Fnuz = Binary<4, 3, 8, Specials::kFnuz, std::uint8_t, 0x7Fu, Saturation::kFinite>;
using E5M2Fnuz = Binary<5, 2, 16, Specials::kFnuz, std::uint8_t, 0x7Fu, Saturation::kFinite>;

}  // namespace format

// ---- the generic conversions ---------------------------------------------------------------------

// float -> Format bits, round to nearest even. Works on host and device; the reference that the
// device fast paths must agree with.
template <class F>
TESSERA_HD constexpr std::uint32_t encode_float_portable(float value, Saturation sat) {
  constexpr int M = F::mantissa_bits;
  constexpr int drop = 23 - M;                                       // float mantissa bits dropped
  constexpr std::uint32_t min_normal = std::uint32_t(127 + 1 - F::bias) << 23;  // float bits of 2^(1-bias)
  std::uint32_t const x = detail::float_bits(value);
  std::uint32_t const sign = (x >> 31) << F::sign_shift;
  std::uint32_t const u = x & 0x7FFFFFFFu;

  if (u > 0x7F800000u) return F::nan;

  std::uint32_t q;  // magnitude bits in the target format, before overflow handling
  if (u >= min_normal) {
    // Normal in the target: re-bias the exponent, then round the mantissa.
    std::uint32_t const r = u - (std::uint32_t(127 - F::bias) << 23);
    q = r >> drop;
    std::uint32_t const rem = r & ((1u << drop) - 1u);
    std::uint32_t const half = 1u << (drop - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the exponent: still right
  } else {
    // Subnormal (or zero) in the target: value / 2^(1 - bias - M), rounded.
    int const e = int(u >> 23) == 0 ? 1 : int(u >> 23);
    std::uint32_t const mant = (u & 0x7FFFFFu) | (u >> 23 ? 0x800000u : 0u);
    int const s = 151 - F::bias - M - e;  // right shift of the 24-bit significand
    if (s >= 25) {
      q = 0;  // below half of the smallest subnormal
    } else {
      q = mant >> s;
      std::uint32_t const rem = mant & ((1u << s) - 1u);
      std::uint32_t const half = 1u << (s - 1);
      if (rem > half || (rem == half && (q & 1u))) ++q;  // may become the smallest normal: still right
    }
  }

  if (q > F::max_finite) {
    if (sat == Saturation::kFinite) {
      q = F::max_finite;
    } else if constexpr (F::has_infinity) {
      q = F::infinity;
    } else {
      return F::nan | sign;  // no infinity in the format: overflow is NaN, with its sign (as CUDA)
    }
  }
  if constexpr (F::fnuz) {
    if (q == 0) return 0;  // no negative zero: -0 and negative values that round to 0 are +0
  }
  return sign | q;
}

// Format bits -> float, exact.
template <class F>
TESSERA_HD constexpr float decode_float_portable(std::uint32_t bits) {
  constexpr int M = F::mantissa_bits;
  constexpr std::uint32_t exp_mask = (1u << F::exponent_bits) - 1u;
  std::uint32_t const sign = ((bits >> F::sign_shift) & 1u) << 31;
  std::uint32_t const exp = (bits >> M) & exp_mask;
  std::uint32_t const mant = bits & ((1u << M) - 1u);

  if constexpr (F::exponent_bits == 8) {
    return detail::bits_float(bits << (31 - F::sign_shift));  // bfloat16: the top of a float
  } else {
    bool const is_nan = F::has_infinity ? (exp == exp_mask && mant != 0)
                        : F::fnuz       ? bits == F::nan
                                        : (bits & F::nan) == F::nan;
    if (is_nan) return detail::bits_float(sign | 0x7FC00000u | (mant << (23 - M)));
    if (F::has_infinity && exp == exp_mask) return detail::bits_float(sign | 0x7F800000u);
    if (exp == 0) {
      // subnormal: mant * 2^(1 - bias - M), exact in float
      float const unit = detail::bits_float(std::uint32_t(127 + 1 - F::bias - M) << 23);
      float const v = float(mant) * unit;
      return sign ? -v : v;
    }
    return detail::bits_float(sign | ((exp - F::bias + 127) << 23) | (mant << (23 - M)));
  }
}

// ---- device fast paths ---------------------------------------------------------------------------

namespace detail {

// float -> bits through the conversion instruction where the device has one, else portable.
template <class F>
TESSERA_HD std::uint32_t encode_float(float value, Saturation sat) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA) && TESSERA_CUDA_ARCH >= 800
  if constexpr (std::is_same_v<F, format::Binary16>) {
    if (sat == Saturation::kNone) {
      unsigned short h;
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(value));
      return h;
    }
  } else if constexpr (std::is_same_v<F, format::BFloat16>) {
    if (sat == Saturation::kNone) {
      unsigned short h;
      asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(value));
      return h;
    }
  }
#if TESSERA_CUDA_ARCH >= 890
  if constexpr (std::is_same_v<F, format::E4M3>) {
    if (sat == Saturation::kFinite) {
      unsigned short h;
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;" : "=h"(h) : "f"(value), "f"(0.0f));
      return h & 0xFFu;
    }
  } else if constexpr (std::is_same_v<F, format::E5M2>) {
    if (sat == Saturation::kFinite) {
      unsigned short h;
      asm("cvt.rn.satfinite.e5m2x2.f32 %0, %2, %1;" : "=h"(h) : "f"(value), "f"(0.0f));
      return h & 0xFFu;
    }
  }
#endif
#endif
  return encode_float_portable<F>(value, sat);
}

}  // namespace detail

// ---- the types ---------------------------------------------------------------------------------

template <class Format>
struct NarrowFloat {
  using format_type = Format;
  using storage_type = typename Format::storage_type;

  storage_type storage;

  NarrowFloat() = default;
  // Rounds to nearest even with the format's default saturation (none for half/bfloat16,
  // finite for fp8, as CUDA's __nv_fp8_* constructors).
  TESSERA_HD explicit NarrowFloat(float f)
      : storage(storage_type(detail::encode_float<Format>(f, Format::default_saturation))) {}

  TESSERA_HD static NarrowFloat from_float(float f, Saturation sat) {
    return from_bits(storage_type(detail::encode_float<Format>(f, sat)));
  }
  TESSERA_HD static constexpr NarrowFloat from_bits(storage_type bits) {
    NarrowFloat r;
    r.storage = bits;
    return r;
  }
  TESSERA_HD constexpr storage_type bits() const { return storage; }
  TESSERA_HD explicit operator float() const { return decode_float_portable<Format>(storage); }
  TESSERA_HD float to_float() const { return decode_float_portable<Format>(storage); }

  TESSERA_HD static constexpr NarrowFloat max() { return from_bits(storage_type(Format::max_finite)); }
  TESSERA_HD static constexpr NarrowFloat lowest() {
    return from_bits(storage_type(Format::max_finite | (1u << Format::sign_shift)));
  }
  TESSERA_HD static constexpr NarrowFloat quiet_nan() { return from_bits(storage_type(Format::nan)); }
};

// Arithmetic in float, rounded back: for references and host code, not for kernels' inner loops.
template <class F>
TESSERA_HD NarrowFloat<F> operator+(NarrowFloat<F> a, NarrowFloat<F> b) { return NarrowFloat<F>(float(a) + float(b)); }
template <class F>
TESSERA_HD NarrowFloat<F> operator-(NarrowFloat<F> a, NarrowFloat<F> b) { return NarrowFloat<F>(float(a) - float(b)); }
template <class F>
TESSERA_HD NarrowFloat<F> operator*(NarrowFloat<F> a, NarrowFloat<F> b) { return NarrowFloat<F>(float(a) * float(b)); }
template <class F>
TESSERA_HD NarrowFloat<F> operator/(NarrowFloat<F> a, NarrowFloat<F> b) { return NarrowFloat<F>(float(a) / float(b)); }
// Flips the sign bit; FNUZ's zero and NaN (which share their magnitude bits) are their own negation.
template <class F>
TESSERA_HD NarrowFloat<F> operator-(NarrowFloat<F> a) {
  if constexpr (F::fnuz) {
    if ((a.bits() & ((1u << F::sign_shift) - 1u)) == 0) return a;
  }
  return NarrowFloat<F>::from_bits(a.bits() ^ (1u << F::sign_shift));
}
// IEEE comparisons (NaN is unordered, +0 == -0).
template <class F>
TESSERA_HD bool operator==(NarrowFloat<F> a, NarrowFloat<F> b) { return float(a) == float(b); }
template <class F>
TESSERA_HD bool operator<(NarrowFloat<F> a, NarrowFloat<F> b) { return float(a) < float(b); }

// The narrow types. Their names end in _t, as CUTLASS's do: CUDA's cuda_fp16.h declares a global
// `half`, so a `tessera::half` would be ambiguous in a program that says `using namespace tessera`
// (test/unit/core/test_type_names.cpp pins this). The older names without _t of the others stay as
// aliases, since nothing of CUDA's or HIP's is called that: bfloat16, float8_e4m3, float8_e5m2,
// float8_e4m3_fnuz, float8_e5m2_fnuz.
using half_t = NarrowFloat<format::Binary16>;
using bfloat16_t = NarrowFloat<format::BFloat16>;

// Two 16-bit values in one 32-bit word, `lo` in the low half, each rounded to nearest even (no
// saturation): one cvt.rn.{bf16,f16}x2.f32 on sm_80 and later, else T's own rounding (bit for bit
// the same). What stmatrix, paired stores and wgmma's A registers take.
//   pack_pair<bfloat16_t>(1.0f, 2.0f) == 0x40003F80u
template <class T>
TESSERA_HD std::uint32_t pack_pair(float lo, float hi) {
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>, "pack_pair: packs half_t or bfloat16_t pairs; "
                                                                             "use T = half_t or bfloat16_t");
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA) && TESSERA_CUDA_ARCH >= 800
  std::uint32_t packed;
  if constexpr (std::is_same_v<T, bfloat16_t>) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
#else
  return std::uint32_t(T(lo).bits()) | std::uint32_t(T(hi).bits()) << 16;
#endif
}
using float8_e4m3_t = NarrowFloat<format::E4M3>;
using float8_e5m2_t = NarrowFloat<format::E5M2>;
using float8_e4m3_fnuz_t = NarrowFloat<format::E4M3Fnuz>;
using float8_e5m2_fnuz_t = NarrowFloat<format::E5M2Fnuz>;

using bfloat16 = bfloat16_t;
using float8_e4m3 = float8_e4m3_t;
using float8_e5m2 = float8_e5m2_t;
using float8_e4m3_fnuz = float8_e4m3_fnuz_t;
using float8_e5m2_fnuz = float8_e5m2_fnuz_t;

static_assert(sizeof(half_t) == 2 && sizeof(bfloat16_t) == 2 && sizeof(float8_e4m3_t) == 1 && sizeof(float8_e5m2_t) == 1 &&
                  sizeof(float8_e4m3_fnuz_t) == 1 && sizeof(float8_e5m2_fnuz_t) == 1,
              "numeric_types: narrow floats must have the size of their storage");

// ---- tf32 --------------------------------------------------------------------------------------

// Rounding of a float to tf32 (1 sign, 8 exponent, 10 mantissa bits), kept in a float whose low
// 13 mantissa bits are zero.
enum class Tf32Rounding {
  kNearestAway,  // cvt.rna.tf32.f32: what the tensor cores' inputs are rounded with on sm_80
  kNearestEven,  // cvt.rn.tf32.f32 (sm_90)
};

// NaN inputs give what the instructions give (measured on an H200): cvt.rna.tf32.f32 drops the low
// 13 bits unrounded, so a NaN whose payload lies only there becomes an infinity of its sign;
// cvt.rn.tf32.f32 (sm_90) returns the canonical NaN 0x7FFFE000.
TESSERA_HD constexpr float round_to_tf32_portable(float f, Tf32Rounding mode = Tf32Rounding::kNearestAway) {
  std::uint32_t const x = detail::float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return detail::bits_float(mode == Tf32Rounding::kNearestAway ? x & 0xFFFFE000u : 0x7FFFE000u);
  if ((x & 0x7FFFFFFFu) == 0x7F800000u) return f;
  std::uint32_t const bias = mode == Tf32Rounding::kNearestAway ? 0x1000u : 0xFFFu + ((x >> 13) & 1u);
  return detail::bits_float((x + bias) & 0xFFFFE000u);
}

TESSERA_HD float round_to_tf32(float f, Tf32Rounding mode = Tf32Rounding::kNearestAway) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA) && TESSERA_CUDA_ARCH >= 800
  if (mode == Tf32Rounding::kNearestAway) {
    std::uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
    return detail::bits_float(r);
  }
#if TESSERA_CUDA_ARCH >= 900
  {
    std::uint32_t r;
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
    return detail::bits_float(r);
  }
#endif
#endif
  return round_to_tf32_portable(f, mode);
}

}  // namespace tessera
