// The convolution device tests' shared pieces: a direct convolution on the host in double for
// each direction, and run_conv<Cfg>(problem, split_k): conv::Conv<Cfg> on random normal data with
// the output poisoned, every output compared with the reference (|error| <= 2^-7 |want| + 2^-14
// sum |products|: 16-bit rounding of the output and float accumulation); returns the worst
// |error| / tolerance. Fprop with a fused bias + ReLU where the Config's chain has them.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

#include "../../support/conv_problem.hpp"
#include "../support/device_check.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

namespace tessera::test::conv_check {

using namespace tessera;

// The direction's result by direct loops in double, and the sums of |products| per output.
struct Reference {
  std::vector<double> want, mag;
};
// A host value as a double (float, or a narrow type).
template <class T>
double value(T const& v) {
  if constexpr (std::is_arithmetic_v<T>) return double(v);
  else return double(v.to_float());
}

template <class EX, class EW, class EY>
Reference direct(conv::Problem const& p, conv::Direction dir, std::vector<EX> const& x, std::vector<EW> const& w, std::vector<EY> const& dy) {
  std::size_t const count = std::size_t(dir == conv::Direction::kFprop   ? p.output_elements()
                                        : dir == conv::Direction::kDgrad ? p.input_elements()
                                                                         : p.filter_elements());
  Reference r{std::vector<double>(count), std::vector<double>(count)};
  int const cg = p.c_per_group(), kg = p.k_per_group();
  for (int n = 0; n < p.n; ++n)
    for (int z = 0; z < p.z(); ++z)
      for (int q0 = 0; q0 < p.p(); ++q0)
        for (int q1 = 0; q1 < p.q(); ++q1)
          for (int t = 0; t < p.t; ++t)
            for (int rr = 0; rr < p.r; ++rr)
              for (int s2 = 0; s2 < p.s; ++s2) {
                int const d = conv::input_coord(p, 0, z, t), h = conv::input_coord(p, 1, q0, rr), ww = conv::input_coord(p, 2, q1, s2);
                if (d < 0 || d >= p.d || h < 0 || h >= p.h || ww < 0 || ww >= p.w) continue;
                for (int k = 0; k < p.k; ++k) {
                  int const g = k / kg;
                  std::size_t const yo = std::size_t((((std::int64_t(n) * p.z() + z) * p.p() + q0) * p.q() + q1) * p.k + k);
                  for (int c = 0; c < cg; ++c) {
                    std::size_t const xo = std::size_t((((std::int64_t(n) * p.d + d) * p.h + h) * p.w + ww) * p.c + g * cg + c);
                    std::size_t const wo = std::size_t((((std::int64_t(k) * p.t + t) * p.r + rr) * p.s + s2) * cg + c);
                    double const xv = x.empty() ? 0 : value(x[xo]), wv = w.empty() ? 0 : value(w[wo]), yv = dy.empty() ? 0 : value(dy[yo]);
                    std::size_t const at = dir == conv::Direction::kFprop ? yo : dir == conv::Direction::kDgrad ? xo : wo;
                    double const prod = dir == conv::Direction::kFprop ? xv * wv : dir == conv::Direction::kDgrad ? yv * wv : yv * xv;
                    r.want[at] += prod;
                    r.mag[at] += std::fabs(prod);
                  }
                }
              }
  return r;
}

// The worst |have - want| / tolerance over the outputs: want(i) the expected value, mag(i) the sum
// of |products| behind it; the tolerance 2^-out_bits |want| + 2^-sum_bits mag + 1e-6 (an output
// type's rounding and float accumulation's).
template <class Out, class Want, class Mag>
double worst_error(Out const& out, Want&& want, Mag&& mag, int out_bits, int sum_bits) {
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    double const w = want(i), have = value(out[i]);
    double const tol = std::ldexp(std::fabs(w), -out_bits) + std::ldexp(mag(i), -sum_bits) + 1e-6;
    worst = std::max(worst, std::isfinite(have) ? std::fabs(have - w) / tol : INFINITY);
  }
  return worst;
}

// Per-tensor scales for run_conv (the Hopper kernel's fp8 path): the two inputs' and the output's,
// and whether to check the output's amax.
struct Scales {
  float a = 1, b = 1, d = 1;
  bool amax = false;
};

// The worst |error| / tolerance of conv::Conv<Cfg> on problem p (Fprop with the Config's bias +
// ReLU where it has them). The tolerance is the output type's rounding (2^-7 of |want| for 16-bit
// outputs, 2^-3 for fp8) and the accumulation's (2^-14 of the sum of |products|; 2^-10 for tf32,
// whose inputs the tensor cores round to 10 bits; 2^-12 for fp8, whose wgmma accumulates with
// fewer bits than float: a case at groups = 4 and split-K came to 1.02 of 2^-14 on an H200).
template <class Cfg>
double run_conv(conv::Problem const& p, int split_k = 1, Scales const sc = {}) {
  using EX = typename Cfg::ElementX;
  using EW = typename Cfg::ElementW;
  using EY = typename Cfg::ElementY;
  constexpr conv::Direction dir = Cfg::direction;
  constexpr bool fused = !std::is_same_v<typename Cfg::Epilogue, epilogue::Identity>;
  // A chain with a source matrix is the ResNet block's (bias, residual, ReLU): the residual has
  // the written tensor's shape (Fprop Y, Dgrad dX).
  constexpr bool residual = Cfg::Epilogue::source_matrices > 0;
  static_assert(!residual || dir != conv::Direction::kWgrad, "run_conv: a residual is of Y's or dX's shape; not for Wgrad");
  constexpr bool scaled = Cfg::Gemm::warp_specialized;  // the Hopper kernel takes scales
  std::mt19937 rng(std::uint32_t(p.n * 131 + p.h * 17 + p.c + p.k * 7 + p.r + int(dir)));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto values = [&]<class T>(std::int64_t count, T) {
    std::vector<T> v(static_cast<std::size_t>(count));
    for (auto& x : v) x = T(normal(rng));
    return v;
  };
  // The two inputs random, the output empty on the host (poisoned on the device).
  std::vector<EX> const x = dir != conv::Direction::kDgrad ? values(p.input_elements(), EX{}) : std::vector<EX>{};
  std::vector<EW> const w = dir != conv::Direction::kWgrad ? values(p.filter_elements(), EW{}) : std::vector<EW>{};
  std::vector<EY> const dy = dir != conv::Direction::kFprop ? values(p.output_elements(), EY{}) : std::vector<EY>{};
  int const channels = dir == conv::Direction::kDgrad ? p.c : p.k;  // the written tensor's
  std::int64_t const written = dir == conv::Direction::kDgrad ? p.input_elements() : p.output_elements();
  auto const bias = values(channels, EY{});
  auto const shortcut = residual ? values(written, EY{}) : std::vector<EY>(1);
  test::DeviceBuffer<EY> const dshortcut(shortcut);
  test::DeviceBuffer<EX> dx(x.empty() ? std::size_t(p.input_elements()) : 0);
  test::DeviceBuffer<EW> dw(w.empty() ? std::size_t(p.filter_elements()) : 0);
  test::DeviceBuffer<EY> ddy(dy.empty() ? std::size_t(p.output_elements()) : 0), dbias(bias);
  test::DeviceBuffer<EX> const ix(x.empty() ? std::vector<EX>(1) : x);
  test::DeviceBuffer<EW> const iw(w.empty() ? std::vector<EW>(1) : w);
  test::DeviceBuffer<EY> const idy(dy.empty() ? std::vector<EY>(1) : dy);
  test::DeviceBuffer<float> const scales(std::vector<float>{sc.a, sc.b, sc.d});
  test::DeviceBuffer<float> amax(std::vector<float>{-1.0f});
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = x.empty() ? dx.get() : ix.get();
  args.w = w.empty() ? dw.get() : iw.get();
  args.y = dy.empty() ? ddy.get() : idy.get();
  args.split_k = split_k;
  if constexpr (scaled) {  // a and b are the direction's inputs, d its output
    float const* const a = scales.get();
    float const *const b = a + 1, *const d = a + 2;
    if (sc.a != 1 || sc.b != 1 || sc.d != 1) {
      if (dir == conv::Direction::kFprop) args.scale_x = a, args.scale_w = b, args.scale_y = d;
      else if (dir == conv::Direction::kDgrad) args.scale_y = a, args.scale_w = b, args.scale_x = d;
      else args.scale_y = a, args.scale_x = b, args.scale_w = d;
    }
    if (sc.amax) args.amax = amax.get();
  }
  if constexpr (residual) args.epilogue = Cfg::Epilogue::make(dbias.get(), epilogue::MatrixRef<EY>::row_major(dshortcut.get(), channels));
  else if constexpr (fused) args.epilogue = Cfg::Epilogue::make(dbias.get());
  std::size_t const bytes = conv::Conv<Cfg>::workspace_size(args);
  test::DeviceBuffer<char> workspace(bytes > 0 ? bytes : 1);
  Status const s = conv::Conv<Cfg>{}.run(args, bytes > 0 ? workspace.get() : nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const out = [&] {
    if constexpr (dir == conv::Direction::kFprop) return ddy.to_host();
    else if constexpr (dir == conv::Direction::kDgrad) return dx.to_host();
    else return dw.to_host();
  }();
  Reference const ref = direct(p, dir, x, w, dy);
  int const out_bits = sizeof(decltype(out[0])) == 1 ? 3 : 7;
  int const sum_bits = std::is_same_v<EX, float> ? 10 : sizeof(EX) == 1 ? 12 : 14;
  auto const want = [&](std::size_t i) {  // before scale_d
    double v = ref.want[i] * sc.a * sc.b;
    if constexpr (residual) v = std::max(0.0, v + value(bias[i % std::size_t(channels)]) + value(shortcut[i]));
    else if constexpr (fused) v = std::max(0.0, v + value(bias[i % std::size_t(channels)]));
    return v;
  };
  double const worst = worst_error(out, [&](std::size_t i) { return want(i) * sc.d; },
                                   [&](std::size_t i) { return ref.mag[i] * std::fabs(sc.a * sc.b * sc.d); }, out_bits, sum_bits);
  if (sc.amax) {  // the largest |output| before scale_d
    double peak = 0;
    for (std::size_t i = 0; i < out.size(); ++i) peak = std::max(peak, std::fabs(want(i)));
    double const got = amax.to_host()[0];
    INFO("amax " << got << ", want " << peak);
    CHECK(std::fabs(got - peak) <= std::ldexp(peak, -7) + 1e-3);
  }
  return worst;
}

using test::problem2d;  // test/support/conv_problem.hpp


// A problem whose inputs are staged in the workspace (small channels padded to 8), run without
// one: the refusal names the workspace (and `says`), and nothing is written.
template <class Cfg>
void check_asks_for_workspace(conv::Problem const& p, char const* says) {
  test::DeviceBuffer<typename Cfg::ElementX> x(4096);
  test::DeviceBuffer<typename Cfg::ElementW> w(4096);
  test::DeviceBuffer<typename Cfg::ElementY> y(4096);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = x.get(), args.w = w.get(), args.y = y.get();
  CHECK(conv::Conv<Cfg>::workspace_size(args) > 0);
  auto const before = y.to_host();
  CHECK_THAT(conv::Conv<Cfg>{}.run(args, nullptr).message(), Catch::Contains(says) && Catch::Contains("workspace_size(args)"));
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(y.to_host() == before);
}

// A small-channel problem whose input patch passes any GPU's shared memory (7 x 7 x 7 taps at
// dilation 5 span 31 planes of 31 rows): the direct kernel refuses it.
inline conv::Problem huge_small_channel_filter() {
  conv::Problem p;
  p.n = 1, p.d = p.h = p.w = 34, p.c = 7, p.k = 8, p.t = p.r = p.s = 7, p.dilation = {5, 5, 5};
  return p;
}

}  // namespace tessera::test::conv_check
