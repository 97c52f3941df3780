// Core on the device: layouts and narrow-float conversions evaluated in kernels must agree with
// the host, and the conversions must be bit-exact with CUDA's intrinsics (and the epilogue's pair
// conversion with two single ones).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/core/layout_algebra.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/swizzle.hpp"
#include "tessera/epilogue/convert.hpp"

using namespace tessera;
using tessera::test::bits_of;
using tessera::test::DeviceBuffer;
using tessera::test::float_of;

namespace {

// Layouts that exercise static and run-time extents, nesting, composition, divides, products,
// inverses and swizzles. Each is evaluated at every index on the host and on the device.
struct LayoutCases {
  int m, n, ld;
  TESSERA_HOST_DEVICE auto tiled() const {
    return tiled_divide(make_layout(make_tuple(m, n), make_tuple(Int<1>{}, ld)), make_tuple(Int<16>{}, Int<8>{}));
  }
  TESSERA_HOST_DEVICE static auto composed() {
    return composition(make_layout(make_tuple(Int<12>{}, Int<8>{}), make_tuple(Int<8>{}, Int<1>{})),
                       make_layout(make_tuple(Int<4>{}, Int<6>{}), make_tuple(Int<3>{}, Int<24>{})));
  }
  TESSERA_HOST_DEVICE static auto raked() {
    return raked_product(make_layout(make_tuple(Int<2>{}, Int<4>{})), make_layout_row_major(make_tuple(Int<4>{}, Int<8>{})));
  }
  TESSERA_HOST_DEVICE static auto inverse() {
    return right_inverse(make_layout(make_tuple(make_tuple(Int<2>{}, Int<4>{}), Int<8>{}),
                                     make_tuple(make_tuple(Int<32>{}, Int<1>{}), Int<4>{})));
  }
  TESSERA_HOST_DEVICE static auto swizzled() {
    return composition(Swizzle<3, 4, 3>{}, make_layout(make_tuple(Int<16>{}, Int<64>{}), make_tuple(Int<64>{}, Int<1>{})));
  }
  static constexpr int kStatic = 24 + 64 + 64 + 1024;
  int count() const { return m * n + kStatic; }
  // Offset number i of the concatenated evaluation of every case.
  TESSERA_HOST_DEVICE long long eval(int i) const {
    int const mn = m * n;
    if (i < mn) return tiled()(i);
    i -= mn;
    if (i < 24) return composed()(i);
    i -= 24;
    if (i < 64) return raked()(i);
    i -= 64;
    if (i < 64) return inverse()(i);
    i -= 64;
    return swizzled()(i);
  }
};

__global__ void eval_layouts(LayoutCases cases, long long* out, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) out[i] = cases.eval(i);
}

// For every input: [0] tessera's conversion (fast path on this device), [1] tessera's portable
// code run on the device, [2] CUDA's intrinsic.
struct ConvertOut {
  unsigned short half[3], bf16[3];
  unsigned char e4m3[3], e5m2[3], e4m3_nosat[2], e5m2_nosat[2];
  unsigned tf32[3], tf32_rn[3];  // [2]: the instruction (cvt.rn.tf32 exists from sm_90; else the portable code)
  // epilogue::convert_output_pair of (this input, the next one): one cvt.rn.{f16,bf16}x2 each.
  unsigned short half_pair[2], bf16_pair[2];
};

__global__ void convert(float const* in, ConvertOut* out, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    float const x = in[i];
    ConvertOut o;
    o.half[0] = tessera::half_t(x).bits();
    o.half[1] = encode_float_portable<format::Binary16>(x, Saturation::kNone);
    o.half[2] = __half_as_ushort(__float2half_rn(x));
    o.bf16[0] = bfloat16_t(x).bits();
    o.bf16[1] = encode_float_portable<format::BFloat16>(x, Saturation::kNone);
    o.bf16[2] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
    o.e4m3[0] = float8_e4m3_t(x).bits();
    o.e4m3[1] = encode_float_portable<format::E4M3>(x, Saturation::kFinite);
    o.e4m3[2] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    o.e5m2[0] = float8_e5m2_t(x).bits();
    o.e5m2[1] = encode_float_portable<format::E5M2>(x, Saturation::kFinite);
    o.e5m2[2] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    o.e4m3_nosat[0] = float8_e4m3_t::from_float(x, Saturation::kNone).bits();
    o.e4m3_nosat[1] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
    o.e5m2_nosat[0] = float8_e5m2_t::from_float(x, Saturation::kNone).bits();
    o.e5m2_nosat[1] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
    o.tf32[0] = __float_as_uint(round_to_tf32(x));
    o.tf32[1] = __float_as_uint(round_to_tf32_portable(x));
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    o.tf32[2] = r;
    o.tf32_rn[0] = __float_as_uint(round_to_tf32(x, Tf32Rounding::kNearestEven));
    o.tf32_rn[1] = __float_as_uint(round_to_tf32_portable(x, Tf32Rounding::kNearestEven));
#if __CUDA_ARCH__ >= 900
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    o.tf32_rn[2] = r;
#else
    o.tf32_rn[2] = o.tf32_rn[1];
#endif
    float const y = in[(i + 1) % count];
    tessera::half_t h0, h1;
    epilogue::convert_output_pair(x, y, h0, h1);
    o.half_pair[0] = h0.bits();
    o.half_pair[1] = h1.bits();
    bfloat16_t b0, b1;
    epilogue::convert_output_pair(x, y, b0, b1);
    o.bf16_pair[0] = b0.bits();
    o.bf16_pair[1] = b1.bits();
    out[i] = o;
  }
}

// Every 16-bit pattern decoded by tessera and by CUDA.
__global__ void decode(float* out, int count) {
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < count; p += gridDim.x * blockDim.x) {
    auto const bits = static_cast<unsigned short>(p);
    out[8 * p + 0] = float(tessera::half_t::from_bits(bits));
    out[8 * p + 1] = __half2float(__ushort_as_half(bits));
    out[8 * p + 2] = float(bfloat16_t::from_bits(bits));
    out[8 * p + 3] = __bfloat162float(__ushort_as_bfloat16(bits));
    auto const b8 = static_cast<unsigned char>(p & 0xFF);
    out[8 * p + 4] = float(float8_e4m3_t::from_bits(b8));
    out[8 * p + 5] = __half2float(__half(__nv_cvt_fp8_to_halfraw(b8, __NV_E4M3)));
    out[8 * p + 6] = float(float8_e5m2_t::from_bits(b8));
    out[8 * p + 7] = __half2float(__half(__nv_cvt_fp8_to_halfraw(b8, __NV_E5M2)));
  }
}

// Inputs that hit every rounding decision of the 16-bit formats (each value, the midpoints to
// its neighbour and their float neighbours), a sweep over all floats, and the specials.
std::vector<float> conversion_inputs() {
  std::vector<float> v;
  for (std::uint32_t p = 0; p < 65536; ++p) {
    std::uint32_t const hi = p << 16;
    for (std::uint32_t lo : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0x1000u}) v.push_back(float_of(hi | lo));
    float const h = float(tessera::half_t::from_bits(std::uint16_t(p)));
    float const h1 = float(tessera::half_t::from_bits(std::uint16_t(p + 1)));
    if (std::isfinite(h) && std::isfinite(h1)) {
      float const mid = float((double(h) + double(h1)) / 2);
      for (int d = -1; d <= 1; ++d) v.push_back(float_of(bits_of(mid) + std::uint32_t(d)));
    }
  }
  for (std::uint64_t u = 0; u < (1ull << 32); u += 65521) v.push_back(float_of(std::uint32_t(u)));
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 448.0f, 464.0f, 465.0f, 57344.0f, 61440.0f, 65520.0f})
    v.push_back(s);
  // NaNs with payloads in every part of the mantissa (signalling and quiet, both signs)
  for (std::uint32_t payload : {0x1u, 0x1000u, 0x1FFFu, 0x2000u, 0x3FFFFFu, 0x400000u, 0x400001u, 0x7FFFFFu})
    for (std::uint32_t sign : {0u, 0x80000000u}) v.push_back(float_of(sign | 0x7F800000u | payload));
  return v;
}

}  // namespace

TEST_CASE("layouts evaluate on the device as on the host", "[gpu][core][layout]") {
  tessera::test::require_gpu();
  LayoutCases cases{127, 61, 131};  // odd extents, a leading dimension that is no power of two
  int const count = cases.count();
  DeviceBuffer<long long> out(count);
  eval_layouts<<<64, 256>>>(cases, out.get(), count);
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const got = out.to_host();
  int mismatches = 0;
  for (int i = 0; i < count; ++i) {
    if (got[i] != cases.eval(i) && mismatches++ < 10) FAIL_CHECK("offset " << i << ": device " << got[i] << ", host " << cases.eval(i));
  }
  REQUIRE(mismatches == 0);
}

TEST_CASE("conversions on the device are bit-exact with CUDA's intrinsics and with the host", "[gpu][core][numeric]") {
  tessera::test::require_gpu();
  auto const inputs = conversion_inputs();
  int const count = int(inputs.size());
  DeviceBuffer<float> in(inputs);
  DeviceBuffer<ConvertOut> out(count);
  convert<<<264, 256>>>(in.get(), out.get(), count);
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const got = out.to_host();
  int mismatches = 0;
  auto check = [&](const char* what, int i, unsigned a, unsigned b) {
    if (a != b && mismatches++ < 20)
      FAIL_CHECK(what << " of 0x" << std::hex << bits_of(inputs[i]) << ": 0x" << a << " vs 0x" << b);
  };
  for (int i = 0; i < count; ++i) {
    float const x = inputs[i];
    ConvertOut const& o = got[i];
    unsigned const host_half = tessera::half_t(x).bits(), host_bf16 = bfloat16_t(x).bits();
    unsigned const host_e4m3 = float8_e4m3_t(x).bits(), host_e5m2 = float8_e5m2_t(x).bits();
    for (int k = 0; k < 3; ++k) {
      check("half", i, o.half[k], host_half);
      check("bfloat16", i, o.bf16[k], host_bf16);
      check("e4m3", i, o.e4m3[k], host_e4m3);
      check("e5m2", i, o.e5m2[k], host_e5m2);
    }
    for (int k = 0; k < 2; ++k) {
      check("e4m3 nosat", i, o.e4m3_nosat[k], float8_e4m3_t::from_float(x, Saturation::kNone).bits());
      check("e5m2 nosat", i, o.e5m2_nosat[k], float8_e5m2_t::from_float(x, Saturation::kNone).bits());
    }
    float const y = inputs[(i + 1) % count];
    check("half pair, first", i, o.half_pair[0], host_half);
    check("half pair, second", i, o.half_pair[1], tessera::half_t(y).bits());
    check("bfloat16 pair, first", i, o.bf16_pair[0], host_bf16);
    check("bfloat16 pair, second", i, o.bf16_pair[1], bfloat16_t(y).bits());
    unsigned const host_tf32 = bits_of(round_to_tf32_portable(x));
    unsigned const host_tf32_rn = bits_of(round_to_tf32_portable(x, Tf32Rounding::kNearestEven));
    for (int k = 0; k < 3; ++k) {
      check("tf32 (rna)", i, o.tf32[k], host_tf32);
      check("tf32 (rn)", i, o.tf32_rn[k], host_tf32_rn);
    }
  }
  REQUIRE(mismatches == 0);
}

TEST_CASE("every 8- and 16-bit pattern decodes on the device as CUDA decodes it", "[gpu][core][numeric]") {
  tessera::test::require_gpu();
  DeviceBuffer<float> out(8 * 65536);
  decode<<<256, 256>>>(out.get(), 65536);
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const got = out.to_host();
  int mismatches = 0;
  for (int p = 0; p < 65536; ++p) {
    auto const b16 = std::uint16_t(p);
    auto const b8 = std::uint8_t(p & 0xFF);
    float const host[4] = {float(tessera::half_t::from_bits(b16)), float(bfloat16_t::from_bits(b16)),
                           float(float8_e4m3_t::from_bits(b8)), float(float8_e5m2_t::from_bits(b8))};
    for (int k = 0; k < 4; ++k) {
      float const ours = got[8 * p + 2 * k], cuda = got[8 * p + 2 * k + 1];
      // NaN payloads are not specified: only NaN-ness must agree. Everything else bit for bit,
      // between tessera on the device, CUDA on the device, and tessera on the host.
      bool const same = std::isnan(cuda) ? (std::isnan(ours) && std::isnan(host[k]))
                                         : (bits_of(ours) == bits_of(cuda) && bits_of(ours) == bits_of(host[k]));
      if (!same && mismatches++ < 10)
        FAIL_CHECK("pattern 0x" << std::hex << p << " format " << k << ": device " << ours << ", CUDA " << cuda << ", host " << host[k]);
    }
  }
  REQUIRE(mismatches == 0);
}
