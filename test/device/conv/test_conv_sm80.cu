// conv::Conv, Fprop, Dgrad and Wgrad on the sm80 kernel (cp.async gathers; runs on Hopper too),
// against a direct convolution on the host in double: random normal data, the output poisoned
// before the run, every output compared (|error| <= 2^-7 |want| + 2^-14 sum |x w|: bf16/f16 rounding of Y and float
// accumulation). Shapes: 1-D, 2-D and 3-D; small prime N, H, W; C / groups multiples of BlockTile
// K; K not a multiple of the tile; 1x1, 3x3, 5x5, 7x7 and asymmetric filters; stride 2 and 3;
// dilation 2; padding wider than half the filter; groups; split-K; a fused bias + ReLU; the
// refusals with their messages.
#include <cmath>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using namespace tessera;

namespace {

template <class E, class Dir = conv::Fprop, class Epi = epilogue::Identity>
using Sm80Conv = conv::Config<arch::Sm80, E, E, E, float, Dir, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<3>, Epi>;
template <class E, class Epi = epilogue::Identity>
using Sm80Fprop = Sm80Conv<E, conv::Fprop, Epi>;

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

conv::Problem problem2d(int n, int h, int w, int c, int k, int r, int s, int pad_h, int pad_w, int stride, int dilation = 1, int groups = 1) {
  conv::Problem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = r, p.s = s, p.groups = groups;
  p.pad_before = p.pad_after = {0, pad_h, pad_w};
  p.stride = {1, stride, stride};
  p.dilation = {1, dilation, dilation};
  return p;
}

}  // namespace

TEST_CASE("conv Fprop sm80: 2-D shapes, bf16", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 32, 40, 3, 3, 1, 1, 1)) <= 1.0);     // 3x3 pad 1, K not a tile multiple
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 64, 72, 1, 1, 0, 0, 2)) <= 1.0);   // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 32, 64, 5, 5, 2, 2, 3)) <= 1.0);   // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(2, 23, 19, 32, 16, 7, 7, 3, 3, 2)) <= 1.0);   // 7x7 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 24, 3, 2, 4, 3, 1, 2)) <= 1.0); // asymmetric, dilation 2, padding wider than the filter
  CHECK(run_conv<Cfg>(problem2d(5, 28, 28, 96, 136, 3, 3, 1, 1, 1)) <= 1.0);  // several tiles each way
}

TEST_CASE("conv Fprop sm80: 1-D, 3-D, groups, split-K, f16", "[gpu][conv][sm80]") {
  test::require_gpu();
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 32, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(p) <= 1.0);  // 1-D
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 32, p.k = 40, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(p) <= 1.0);  // 3-D, stride 2 in depth
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(problem2d(2, 8, 9, 64, 48, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups = 2
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(problem2d(1, 7, 7, 256, 64, 3, 3, 1, 1, 1), 3) <= 1.0);   // split-K
  CHECK(run_conv<Sm80Fprop<half_t>>(problem2d(2, 9, 11, 64, 56, 3, 3, 1, 1, 2)) <= 1.0);
}

TEST_CASE("conv Fprop sm80: bias + ReLU fused", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(2, 14, 14, 64, 72, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(1, 9, 9, 32, 40, 1, 1, 0, 0, 2), 2) <= 1.0);
}

TEST_CASE("conv Dgrad sm80: unit and strided, 1-D to 3-D, groups", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Conv<bfloat16_t, conv::Dgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 40, 32, 3, 3, 1, 1, 1)) <= 1.0);      // C not a tile multiple
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 24, 64, 1, 1, 0, 0, 2)) <= 1.0);    // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 16, 32, 5, 5, 2, 2, 3)) <= 1.0);    // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 32, 3, 2, 4, 3, 1, 2)) <= 1.0);  // asymmetric, dilation 2, wide padding
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 48, 64, 3, 3, 1, 1, 2, 1, 2)) <= 1.0);  // groups = 2, stride 2
  conv::Problem p;
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 24, p.k = 32, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D
  CHECK(run_conv<Sm80Conv<half_t, conv::Dgrad>>(problem2d(2, 9, 11, 64, 64, 3, 3, 1, 1, 1), 2) <= 1.0);  // split-K, f16
}

TEST_CASE("conv Wgrad sm80: split-K over the pixels, 1-D to 3-D, groups", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Conv<bfloat16_t, conv::Wgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 32, 40, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 64, 24, 1, 1, 0, 0, 2), 4) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 16, 32, 5, 5, 2, 2, 3)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 16, 3, 2, 4, 3, 1, 2)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 48, 64, 3, 3, 1, 1, 2, 1, 2)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(4, 28, 28, 64, 64, 3, 3, 1, 1, 1), 8) <= 1.0);  // K = N P Q = 3136, split 8
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 32, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Cfg>(p, 2) <= 1.0);  // 1-D
  CHECK(run_conv<Sm80Conv<half_t, conv::Wgrad>>(problem2d(2, 9, 11, 64, 56, 3, 3, 1, 1, 2), 3) <= 1.0);
}

TEST_CASE("conv Fprop sm80: refusals name the fix and write nothing", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = problem2d(1, 4, 4, 3, 8, 3, 3, 1, 1, 1);
  args.x = x.get();
  args.w = w.get();
  args.y = y.get();
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("C / groups = 3 is not a multiple of BlockTile K = 32"));
  args.problem = problem2d(1, 4, 4, 64, 12, 3, 3, 1, 1, 1);
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("multiples of 8"));
  args.problem = problem2d(1, 4, 4, 32, 8, 3, 3, 1, 1, 1, 1, 3);
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("groups = 3 must divide C = 32 and K = 8"));
  args.problem = problem2d(1, 4, 4, 32, 8, 3, 3, 1, 1, 1);
  args.y = nullptr;
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("one is null"));
  args.y = y.get() + 1;
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("16-byte aligned"));
  args.y = y.get();
  auto const before = y.to_host();
  args.split_k = 2;
  Status const s = conv::Conv<Cfg>{}.run(args, nullptr);
  CHECK(s.code() == StatusCode::kWorkspaceTooSmall);
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(y.to_host() == before);
}
