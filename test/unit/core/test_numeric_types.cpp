// Narrow floats and tf32: exhaustive over every 8- and 16-bit pattern, every rounding boundary
// between neighbouring values, and a sweep over all floats, against
//   (1) an independent reference: the nearest representable value, found by search in double
//       precision over the decoded table of the format (ties to the even pattern), and
//   (2) CUDA's own host implementations (__float2half_rn & co), where the toolkit is present.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tessera/core/numeric_types.hpp"

#if TESSERA_TEST_CUDA_HEADERS
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif

using namespace tessera;

namespace {

float f_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint32_t u_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Reference rounding: the finite non-negative values of the format in increasing order (their
// bit patterns are increasing too), searched in double precision.
template <class F>
struct Reference {
  std::vector<double> values;  // values[b] = value of magnitude bits b, for b <= max_finite
  Reference() {
    for (std::uint32_t b = 0; b <= F::max_finite; ++b) values.push_back(double(decode_float_portable<F>(b)));
  }
  std::uint32_t encode(float x, Saturation sat) const {
    std::uint32_t const sign = (u_of(x) >> 31) << F::sign_shift;
    if (std::isnan(x)) return F::nan;
    double const a = std::fabs(double(x));
    double const maxv = values.back();
    double const next = maxv + (maxv - values[values.size() - 2]);  // the value after max, if it existed
    std::uint32_t q;
    if (a >= next || std::isinf(x)) {
      q = F::max_finite + 1;
    } else if (a > maxv) {
      double const mid = (maxv + next) / 2;
      // ties go to the even pattern: max_finite + 1 is even iff max_finite is odd
      q = (a > mid || (a == mid && (F::max_finite & 1u))) ? F::max_finite + 1 : F::max_finite;
    } else {
      auto it = std::lower_bound(values.begin(), values.end(), a);
      std::uint32_t hi = std::uint32_t(it - values.begin());
      if (values[hi] == a || hi == 0) {
        q = hi;
      } else {
        std::uint32_t lo = hi - 1;
        double const dl = a - values[lo], dh = values[hi] - a;
        q = dl < dh ? lo : dh < dl ? hi : ((lo & 1u) ? hi : lo);
      }
    }
    if (q > F::max_finite) {
      if (sat == Saturation::kFinite) return sign | F::max_finite;
      if constexpr (F::has_infinity) return sign | F::infinity;
      return sign | F::nan;
    }
    if (F::fnuz && q == 0) return 0;  // no negative zero
    return sign | q;
  }
};

// Floats that exercise every rounding decision of a format with `bits` bits: each representable
// value, the midpoints between neighbours and their float neighbours, plus a sweep over all floats.
template <class F>
std::vector<float> probe_values() {
  std::vector<float> v;
  constexpr std::uint32_t n = 1u << (F::sign_shift + 1);
  for (std::uint32_t b = 0; b < n; ++b) {
    float const x = decode_float_portable<F>(b);
    float const y = decode_float_portable<F>(b + 1 < n ? b + 1 : b);
    v.push_back(x);
    if (std::isfinite(x) && std::isfinite(y)) {
      float const mid = float((double(x) + double(y)) / 2);  // exact: narrow formats fit in float
      for (int d = -2; d <= 2; ++d) v.push_back(f_of(u_of(mid) + std::uint32_t(d)));
    }
  }
  for (std::uint64_t u = 0; u < (1ull << 32); u += 4093) v.push_back(f_of(std::uint32_t(u)));
  float const specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), std::numeric_limits<float>::min()};
  v.insert(v.end(), std::begin(specials), std::end(specials));
  return v;
}

template <class F>
void check_against_reference(Saturation sat) {
  Reference<F> ref;
  std::size_t mismatches = 0;
  for (float x : probe_values<F>()) {
    auto const got = encode_float_portable<F>(x, sat);
    auto const want = ref.encode(x, sat);
    if (got != want && mismatches++ < 10) {
      FAIL_CHECK("input bits 0x" << std::hex << u_of(x) << ": got 0x" << got << ", reference 0x" << want);
    }
  }
  REQUIRE(mismatches == 0);
}

template <class F>
void check_decode_round_trip() {
  constexpr std::uint32_t n = 1u << (F::sign_shift + 1);
  for (std::uint32_t b = 0; b < n; ++b) {
    float const x = decode_float_portable<F>(b);
    if (std::isnan(x)) {
      REQUIRE(encode_float_portable<F>(x, Saturation::kNone) == F::nan);
      continue;
    }
    REQUIRE(encode_float_portable<F>(x, Saturation::kNone) == b);  // exact values survive
    // decoding is exact: the value equals sign * mantissa * 2^exponent computed in double
    std::uint32_t const mag = b & ((1u << F::sign_shift) - 1u);
    std::uint32_t const e = mag >> F::mantissa_bits, m = mag & ((1u << F::mantissa_bits) - 1u);
    if (!std::isinf(x)) {
      double const v = e == 0 ? std::ldexp(double(m), 1 - F::bias - F::mantissa_bits)
                              : std::ldexp(double(m + (1u << F::mantissa_bits)), int(e) - F::bias - F::mantissa_bits);
      REQUIRE(double(x) == ((b >> F::sign_shift) ? -v : v));
    }
  }
}

}  // namespace

TEST_CASE("tessera::half: every pattern decodes exactly and rounds back", "[core][numeric][half]") {
  check_decode_round_trip<format::Binary16>();
  check_against_reference<format::Binary16>(Saturation::kNone);
  check_against_reference<format::Binary16>(Saturation::kFinite);
}

TEST_CASE("bfloat16: every pattern decodes exactly and rounds back", "[core][numeric][bfloat16]") {
  check_decode_round_trip<format::BFloat16>();
  check_against_reference<format::BFloat16>(Saturation::kNone);
  check_against_reference<format::BFloat16>(Saturation::kFinite);
}

TEST_CASE("float8_e4m3: every pattern, saturating and not", "[core][numeric][fp8]") {
  check_decode_round_trip<format::E4M3>();
  check_against_reference<format::E4M3>(Saturation::kFinite);
  check_against_reference<format::E4M3>(Saturation::kNone);
}

TEST_CASE("float8_e4m3_fnuz and float8_e5m2_fnuz: every pattern, saturating and not", "[core][numeric][fp8]") {
  check_decode_round_trip<format::E4M3Fnuz>();
  check_against_reference<format::E4M3Fnuz>(Saturation::kFinite);
  check_against_reference<format::E4M3Fnuz>(Saturation::kNone);
  check_decode_round_trip<format::E5M2Fnuz>();
  check_against_reference<format::E5M2Fnuz>(Saturation::kFinite);
  check_against_reference<format::E5M2Fnuz>(Saturation::kNone);
}

TEST_CASE("FNUZ fp8: the special values AMD's formats define", "[core][numeric][fp8]") {
  // The values published for float8_e4m3fnuz / float8_e5m2fnuz (LLVM's APFloat, ml_dtypes): the
  // largest finite value, the smallest normal and subnormal, one NaN at 0x80, no negative zero.
  REQUIRE(float(float8_e4m3_fnuz_t::max()) == 240.0f);
  REQUIRE(float(float8_e4m3_fnuz_t::lowest()) == -240.0f);
  REQUIRE(float(float8_e4m3_fnuz_t::from_bits(0x08)) == std::ldexp(1.0f, -7));
  REQUIRE(float(float8_e4m3_fnuz_t::from_bits(0x01)) == std::ldexp(1.0f, -10));
  REQUIRE(float(float8_e4m3_fnuz_t::from_bits(0x40)) == 1.0f);
  REQUIRE(float(float8_e5m2_fnuz_t::max()) == 57344.0f);
  REQUIRE(float(float8_e5m2_fnuz_t::from_bits(0x04)) == std::ldexp(1.0f, -15));
  REQUIRE(float(float8_e5m2_fnuz_t::from_bits(0x01)) == std::ldexp(1.0f, -17));
  REQUIRE(float(float8_e5m2_fnuz_t::from_bits(0x40)) == 1.0f);
  for (std::uint32_t b = 0; b < 256; ++b) {
    CAPTURE(b);
    REQUIRE(std::isnan(float(float8_e4m3_fnuz_t::from_bits(std::uint8_t(b)))) == (b == 0x80));
    REQUIRE(std::isnan(float(float8_e5m2_fnuz_t::from_bits(std::uint8_t(b)))) == (b == 0x80));
    REQUIRE(std::isfinite(float(float8_e5m2_fnuz_t::from_bits(std::uint8_t(b)))) == (b != 0x80));
  }
  REQUIRE(float8_e4m3_fnuz_t(-0.0f).bits() == 0x00);
  REQUIRE(float8_e4m3_fnuz_t(-1e-9f).bits() == 0x00);  // rounds to zero: +0
  REQUIRE(float8_e5m2_fnuz_t(std::numeric_limits<float>::quiet_NaN()).bits() == 0x80);
  REQUIRE(float8_e4m3_fnuz_t::from_float(1e6f, Saturation::kNone).bits() == 0x80);   // overflow: the NaN
  REQUIRE(float8_e4m3_fnuz_t::from_float(-1e6f, Saturation::kFinite).bits() == 0xFF);  // -240
  REQUIRE((-float8_e4m3_fnuz_t(0.0f)).bits() == 0x00);
  REQUIRE((-float8_e4m3_fnuz_t::quiet_nan()).bits() == 0x80);
  REQUIRE((-float8_e4m3_fnuz_t(2.0f)).bits() == float8_e4m3_fnuz_t(-2.0f).bits());
}

TEST_CASE("float8_e5m2: every pattern, saturating and not", "[core][numeric][fp8]") {
  check_decode_round_trip<format::E5M2>();
  check_against_reference<format::E5M2>(Saturation::kFinite);
  check_against_reference<format::E5M2>(Saturation::kNone);
}

TEST_CASE("special values: NaN, infinity, saturation, signed zero, ties", "[core][numeric]") {
  float const inf = std::numeric_limits<float>::infinity();
  float const nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(tessera::half_t(inf).bits() == 0x7C00);
  CHECK(tessera::half_t(-inf).bits() == 0xFC00);
  CHECK(tessera::half_t(nan).bits() == 0x7FFF);
  CHECK(tessera::half_t(-nan).bits() == 0x7FFF);
  CHECK(tessera::half_t(65504.0f).bits() == 0x7BFF);
  CHECK(tessera::half_t(65519.0f).bits() == 0x7BFF);
  CHECK(tessera::half_t(65520.0f).bits() == 0x7C00);  // the tie above max rounds to even: infinity
  CHECK(tessera::half_t::from_float(1e6f, Saturation::kFinite).bits() == 0x7BFF);
  CHECK(tessera::half_t(-0.0f).bits() == 0x8000);
  CHECK(tessera::half_t(5.9604645e-08f).bits() == 0x0001);  // smallest subnormal
  CHECK(tessera::half_t(2.9802322e-08f).bits() == 0x0000);  // half of it: tie to even (zero)
  CHECK(bfloat16_t(nan).bits() == 0x7FFF);
  CHECK(bfloat16_t(1.00390625f).bits() == 0x3F80);  // tie to even, down
  CHECK(bfloat16_t(1.01171875f).bits() == 0x3F82);  // tie to even, up
  CHECK(bfloat16_t(std::numeric_limits<float>::max()).bits() == 0x7F80);
  // fp8 defaults to saturation, like CUDA's __nv_fp8 constructors
  CHECK(float8_e4m3_t(inf).bits() == 0x7E);
  CHECK(float8_e4m3_t(-inf).bits() == 0xFE);
  CHECK(float8_e4m3_t(nan).bits() == 0x7F);
  CHECK(float8_e4m3_t(448.0f).bits() == 0x7E);
  CHECK(float8_e4m3_t(464.0f).bits() == 0x7E);  // tie between 448 and "480": even is 448
  CHECK(float8_e4m3_t::from_float(465.0f, Saturation::kNone).bits() == 0x7F);  // no infinity: NaN
  CHECK(float8_e4m3_t::from_float(-465.0f, Saturation::kNone).bits() == 0xFF);
  CHECK(float8_e5m2_t(inf).bits() == 0x7B);
  CHECK(float8_e5m2_t::from_float(inf, Saturation::kNone).bits() == 0x7C);
  CHECK(float8_e5m2_t::from_float(61440.0f, Saturation::kNone).bits() == 0x7C);  // tie above max: to even
  CHECK(float8_e5m2_t(nan).bits() == 0x7F);
  CHECK(std::isnan(float(float8_e4m3_t::from_bits(0x7F))));
  CHECK(std::isnan(float(float8_e4m3_t::from_bits(0xFF))));
  CHECK(float(float8_e4m3_t::from_bits(0x01)) == 0x1p-9f);
  CHECK(float(float8_e5m2_t::from_bits(0x7C)) == inf);
  CHECK(float(float8_e4m3_t::max()) == 448.0f);
  CHECK(float(float8_e5m2_t::max()) == 57344.0f);
  CHECK(float(tessera::half_t::lowest()) == -65504.0f);
  CHECK(float(bfloat16_t(1.5f) + bfloat16_t(2.25f)) == 3.75f);
  CHECK(float(-tessera::half_t(2.0f)) == -2.0f);
}

TEST_CASE("tf32 rounding, to nearest with ties away and ties to even", "[core][numeric][tf32]") {
  auto reference = [](float x, Tf32Rounding mode) {
    // Round |x| to 10 mantissa bits in double, by the float's own exponent.
    if (std::isnan(x))  // as the instructions do: rna truncates a NaN, rn returns the canonical NaN
      return f_of(mode == Tf32Rounding::kNearestAway ? u_of(x) & 0xFFFFE000u : 0x7FFFE000u);
    if (std::isinf(x) || x == 0) return x;
    int e;
    double const m = std::frexp(double(std::fabs(x)), &e);  // |x| = m * 2^e, m in [0.5, 1)
    int const scale_exp = std::max(e, -125) - 11;           // 11 significant bits (subnormals: fewer)
    double const scaled = std::ldexp(m, e - scale_exp);
    double r = std::floor(scaled);
    double const frac = scaled - r;
    if (frac > 0.5 || (frac == 0.5 && (mode == Tf32Rounding::kNearestAway || std::fmod(r, 2.0) != 0))) r += 1;
    double const v = std::ldexp(r, scale_exp);
    float const out = v > double(std::numeric_limits<float>::max()) ? std::numeric_limits<float>::infinity() : float(v);
    return x < 0 ? -out : out;
  };
  std::size_t mismatches = 0;
  for (std::uint64_t u = 0; u < (1ull << 32); u += 1021) {
    for (std::uint32_t tweak : {0u, 0x1000u, 0x0FFFu, 0x3000u}) {
      float const x = f_of(std::uint32_t((u & ~0x1FFFull) | tweak));
      for (auto mode : {Tf32Rounding::kNearestAway, Tf32Rounding::kNearestEven}) {
        float const got = round_to_tf32_portable(x, mode);
        float const want = reference(x, mode);
        if (u_of(got) != u_of(want) && mismatches++ < 10) {
          FAIL_CHECK("tf32 of 0x" << std::hex << u_of(x) << ": got 0x" << u_of(got) << ", reference 0x" << u_of(want));
        }
      }
    }
  }
  REQUIRE(mismatches == 0);
  CHECK(u_of(round_to_tf32(f_of(0x3F801000u))) == 0x3F802000u);  // tie: away from zero
  CHECK(u_of(round_to_tf32(f_of(0x3F801000u), Tf32Rounding::kNearestEven)) == 0x3F800000u);  // tie: to even
  CHECK(u_of(round_to_tf32(f_of(0x7FC00000u))) == 0x7FC00000u);  // a quiet NaN stays that NaN
  CHECK(u_of(round_to_tf32(f_of(0x7F801000u))) == 0x7F800000u);  // payload only in dropped bits: infinity
  CHECK(u_of(round_to_tf32(f_of(0xFF801000u), Tf32Rounding::kNearestEven)) == 0x7FFFE000u);  // canonical NaN
}

#if TESSERA_TEST_CUDA_HEADERS
TEST_CASE("conversions are bit-exact with CUDA's host implementations", "[core][numeric][cuda]") {
  std::size_t mismatches = 0;
  auto report = [&](const char* what, float x, unsigned got, unsigned want) {
    if (got != want && mismatches++ < 10) {
      FAIL_CHECK(what << " of 0x" << std::hex << u_of(x) << ": tessera 0x" << got << ", CUDA 0x" << want);
    }
  };
  std::vector<float> xs = probe_values<format::Binary16>();
  auto more = probe_values<format::E4M3>();
  xs.insert(xs.end(), more.begin(), more.end());
  more = probe_values<format::E5M2>();
  xs.insert(xs.end(), more.begin(), more.end());
  for (float x : xs) {
    __half_raw h = __half_raw(__float2half_rn(x));
    report("half", x, tessera::half_t(x).bits(), h.x);
    __nv_bfloat16_raw b = __nv_bfloat16_raw(__float2bfloat16_rn(x));
    report("bfloat16", x, bfloat16_t(x).bits(), b.x);
    report("e4m3 satfinite", x, float8_e4m3_t(x).bits(), __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
    report("e5m2 satfinite", x, float8_e5m2_t(x).bits(), __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2));
    report("e4m3 nosat", x, float8_e4m3_t::from_float(x, Saturation::kNone).bits(),
           __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3));
    report("e5m2 nosat", x, float8_e5m2_t::from_float(x, Saturation::kNone).bits(),
           __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2));
  }
  for (std::uint32_t p = 0; p < 65536; ++p) {
    __half_raw hr;
    hr.x = std::uint16_t(p);
    float const want = __half2float(__half(hr));
    float const got = float(tessera::half_t::from_bits(std::uint16_t(p)));
    if (!(std::isnan(want) && std::isnan(got))) report("half->float", got, u_of(got), u_of(want));
    __nv_bfloat16_raw br;
    br.x = std::uint16_t(p);
    float const wantb = __bfloat162float(__nv_bfloat16(br));
    float const gotb = float(bfloat16_t::from_bits(std::uint16_t(p)));
    if (!(std::isnan(wantb) && std::isnan(gotb))) report("bfloat16->float", gotb, u_of(gotb), u_of(wantb));
  }
  REQUIRE(mismatches == 0);
}
#endif
