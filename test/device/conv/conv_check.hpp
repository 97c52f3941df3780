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
template <class E>
Reference direct(conv::Problem const& p, conv::Direction dir, std::vector<E> const& x, std::vector<E> const& w, std::vector<E> const& dy) {
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
                    double const xv = x.empty() ? 0 : double(x[xo].to_float()), wv = w.empty() ? 0 : double(w[wo].to_float()),
                                 yv = dy.empty() ? 0 : double(dy[yo].to_float());
                    std::size_t const at = dir == conv::Direction::kFprop ? yo : dir == conv::Direction::kDgrad ? xo : wo;
                    double const prod = dir == conv::Direction::kFprop ? xv * wv : dir == conv::Direction::kDgrad ? yv * wv : yv * xv;
                    r.want[at] += prod;
                    r.mag[at] += std::fabs(prod);
                  }
                }
              }
  return r;
}

// The worst |error| / tolerance of conv::Conv<Cfg> on problem p (Fprop with the Config's bias +
// ReLU where it has them).
template <class Cfg>
double run_conv(conv::Problem const& p, int split_k = 1) {
  using E = typename Cfg::ElementX;
  constexpr conv::Direction dir = Cfg::direction;
  constexpr bool fused = !std::is_same_v<typename Cfg::Epilogue, epilogue::Identity>;
  std::mt19937 rng(std::uint32_t(p.n * 131 + p.h * 17 + p.c + p.k * 7 + p.r + int(dir)));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto values = [&](std::int64_t count) {
    std::vector<E> v(static_cast<std::size_t>(count));
    for (auto& x : v) x = E(normal(rng));
    return v;
  };
  // The two inputs random, the output empty on the host (poisoned on the device).
  std::vector<E> const x = dir != conv::Direction::kDgrad ? values(p.input_elements()) : std::vector<E>{};
  std::vector<E> const w = dir != conv::Direction::kWgrad ? values(p.filter_elements()) : std::vector<E>{};
  std::vector<E> const dy = dir != conv::Direction::kFprop ? values(p.output_elements()) : std::vector<E>{};
  auto const bias = values(p.k);
  test::DeviceBuffer<E> dx(x.empty() ? std::size_t(p.input_elements()) : 0), dw(w.empty() ? std::size_t(p.filter_elements()) : 0),
      ddy(dy.empty() ? std::size_t(p.output_elements()) : 0), dbias(bias);
  test::DeviceBuffer<E> const ix(x.empty() ? std::vector<E>(1) : x), iw(w.empty() ? std::vector<E>(1) : w),
      idy(dy.empty() ? std::vector<E>(1) : dy);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = x.empty() ? dx.get() : ix.get();
  args.w = w.empty() ? dw.get() : iw.get();
  args.y = dy.empty() ? ddy.get() : idy.get();
  args.split_k = split_k;
  if constexpr (fused) args.epilogue = Cfg::Epilogue::make(dbias.get());
  std::size_t const bytes = conv::Conv<Cfg>::workspace_size(args);
  test::DeviceBuffer<char> workspace(bytes > 0 ? bytes : 1);
  Status const s = conv::Conv<Cfg>{}.run(args, bytes > 0 ? workspace.get() : nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const out = dir == conv::Direction::kFprop ? ddy.to_host() : dir == conv::Direction::kDgrad ? dx.to_host() : dw.to_host();
  Reference const ref = direct(p, dir, x, w, dy);
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    double want = ref.want[i];
    if constexpr (fused) want = std::max(0.0, want + double(bias[i % std::size_t(p.k)].to_float()));
    double const have = out[i].to_float();
    double const tol = std::ldexp(std::fabs(want), -7) + std::ldexp(ref.mag[i], -14) + 1e-6;
    worst = std::max(worst, std::isfinite(have) ? std::fabs(have - want) / tol : INFINITY);
  }
  return worst;
}

inline conv::Problem problem2d(int n, int h, int w, int c, int k, int r, int s, int pad_h, int pad_w, int stride, int dilation = 1, int groups = 1) {
  conv::Problem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = r, p.s = s, p.groups = groups;
  p.pad_before = p.pad_after = {0, pad_h, pad_w};
  p.stride = {1, stride, stride};
  p.dilation = {1, dilation, dilation};
  return p;
}


// A problem whose inputs are staged in the workspace (small channels), run without one: the
// refusal names the workspace (and `says`), and nothing is written.
template <class Cfg>
void check_asks_for_workspace(conv::Problem const& p, char const* says) {
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = x.get(), args.w = w.get(), args.y = y.get();
  CHECK(conv::Conv<Cfg>::workspace_size(args) > 0);
  auto const before = y.to_host();
  CHECK_THAT(conv::Conv<Cfg>{}.run(args, nullptr).message(), Catch::Contains(says) && Catch::Contains("workspace_size(args)"));
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(y.to_host() == before);
}

}  // namespace tessera::test::conv_check
