// The convolution's implicit-GEMM index math (conv/implicit_gemm.hpp) against direct convolution
// loops, in double on random non-zero data: for each direction, D = A B per group, with A and B
// read element by element through the index math and D written where d_offset says, equals the
// direct loop's result (exactly: small integers); over 1-D, 2-D and 3-D problems with odd
// extents, strides 1 to 3, dilation 1 and 2, padding up to wider than the filter, asymmetric
// filters and groups. Fprop's k-tiles cover each (tap, channel) once.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "tessera/conv/implicit_gemm.hpp"

using namespace tessera;
using namespace tessera::conv;

namespace {

// The direct loops of problem.hpp's definitions (all three directions from one pass over the
// output pixels and taps).
struct Direct {
  std::vector<double> y, dx, dw;
};
Direct direct(Problem const& p, std::vector<double> const& x, std::vector<double> const& w, std::vector<double> const& dy) {
  Direct r{std::vector<double>(std::size_t(p.output_elements())), std::vector<double>(std::size_t(p.input_elements())),
           std::vector<double>(std::size_t(p.filter_elements()))};
  int const cg = p.c_per_group(), kg = p.k_per_group();
  for (int n = 0; n < p.n; ++n)
    for (int z = 0; z < p.z(); ++z)
      for (int pp = 0; pp < p.p(); ++pp)
        for (int q = 0; q < p.q(); ++q)
          for (int t = 0; t < p.t; ++t)
            for (int rr = 0; rr < p.r; ++rr)
              for (int s = 0; s < p.s; ++s) {
                int const d = z * p.stride[0] - p.pad_before[0] + t * p.dilation[0];
                int const h = pp * p.stride[1] - p.pad_before[1] + rr * p.dilation[1];
                int const wi = q * p.stride[2] - p.pad_before[2] + s * p.dilation[2];
                if (d < 0 || d >= p.d || h < 0 || h >= p.h || wi < 0 || wi >= p.w) continue;
                for (int k = 0; k < p.k; ++k) {
                  int const g = k / kg;
                  std::size_t const yo = std::size_t((((std::int64_t(n) * p.z() + z) * p.p() + pp) * p.q() + q) * p.k + k);
                  for (int c = 0; c < cg; ++c) {
                    std::size_t const xo = std::size_t((((std::int64_t(n) * p.d + d) * p.h + h) * p.w + wi) * p.c + g * cg + c);
                    std::size_t const wo = std::size_t((((std::int64_t(k) * p.t + t) * p.r + rr) * p.s + s) * cg + c);
                    r.y[yo] += x[xo] * w[wo];
                    r.dx[xo] += dy[yo] * w[wo];
                    r.dw[wo] += dy[yo] * x[xo];
                  }
                }
              }
  return r;
}

// The implicit GEMM of `dir` through the index math.
std::vector<double> implicit(Problem const& p, Direction dir, Tensors<double const> const& t, std::size_t out_elements) {
  std::vector<double> out(out_elements, -1e300);  // poisoned: every element must be written
  GemmShape const g = gemm_shape(p, dir);
  for (int grp = 0; grp < p.groups; ++grp)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (std::int64_t kk = 0; kk < g.k; ++kk) acc += a_element(p, dir, t, grp, i, kk) * b_element(p, dir, t, grp, kk, j);
        out[std::size_t(d_offset(p, dir, grp, i, j))] = acc;
      }
  return out;
}

std::vector<double> random_values(std::size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> v(-4, 4);
  std::vector<double> out(count);
  for (auto& x : out) {
    int const r = v(rng);
    x = r == 0 ? 1 : r;
  }
  return out;
}

void check_problem(Problem const& p, std::mt19937& rng) {
  INFO("N=" << p.n << " DHW=" << p.d << "x" << p.h << "x" << p.w << " C=" << p.c << " K=" << p.k << " TRS=" << p.t << "x" << p.r << "x"
            << p.s << " pad=" << p.pad_before[0] << "," << p.pad_before[1] << "," << p.pad_before[2] << "/" << p.pad_after[0] << ","
            << p.pad_after[1] << "," << p.pad_after[2] << " stride=" << p.stride[0] << "," << p.stride[1] << "," << p.stride[2]
            << " dilation=" << p.dilation[0] << "," << p.dilation[1] << "," << p.dilation[2] << " groups=" << p.groups);
  REQUIRE(check(p).ok());
  auto const x = random_values(std::size_t(p.input_elements()), rng), w = random_values(std::size_t(p.filter_elements()), rng),
             dy = random_values(std::size_t(p.output_elements()), rng);
  Direct const want = direct(p, x, w, dy);
  CHECK(implicit(p, Direction::kFprop, {x.data(), w.data(), nullptr}, want.y.size()) == want.y);
  CHECK(implicit(p, Direction::kDgrad, {nullptr, w.data(), dy.data()}, want.dx.size()) == want.dx);
  CHECK(implicit(p, Direction::kWgrad, {x.data(), nullptr, dy.data()}, want.dw.size()) == want.dw);
  // The GEMMs count the same multiply-adds as the convolution.
  for (Direction dir : {Direction::kFprop, Direction::kDgrad, Direction::kWgrad}) {
    GemmShape const g = gemm_shape(p, dir);
    if (dir != Direction::kDgrad) CHECK(g.m * g.n * g.k * p.groups == p.macs());
  }
}

}  // namespace

TEST_CASE("conv implicit GEMM: each direction's A B equals direct convolution", "[conv]") {
  std::mt19937 rng(31);
  Problem p;
  // 2-D, the ResNet-like cases first: 3 x 3 pad 1, 1 x 1, stride 2.
  p.n = 2, p.h = 7, p.w = 5, p.c = 3, p.k = 4, p.r = p.s = 3, p.pad_before = p.pad_after = {0, 1, 1};
  check_problem(p, rng);
  p.r = p.s = 1, p.pad_before = p.pad_after = {0, 0, 0}, p.stride = {1, 2, 2};
  check_problem(p, rng);
  // Stride 2 and 3 with 3 x 3 and 5 x 5, asymmetric padding (dgrad's strided case).
  p = Problem{};
  p.n = 1, p.h = 11, p.w = 13, p.c = 2, p.k = 3, p.r = 3, p.s = 5, p.pad_before = {0, 1, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 2, 3};
  check_problem(p, rng);
  // Dilation 2, padding wider than the dilated filter's half (and than the filter itself).
  p = Problem{};
  p.n = 2, p.h = 5, p.w = 6, p.c = 3, p.k = 2, p.r = 3, p.s = 2, p.pad_before = {0, 4, 3}, p.pad_after = {0, 2, 5}, p.dilation = {1, 2, 2};
  check_problem(p, rng);
  // 7 x 7 stride 2 with C = 3 (a stem), prime extents.
  p = Problem{};
  p.n = 1, p.h = 13, p.w = 11, p.c = 3, p.k = 5, p.r = p.s = 7, p.pad_before = p.pad_after = {0, 3, 3}, p.stride = {1, 2, 2};
  check_problem(p, rng);
  // 1-D (D = H = 1).
  p = Problem{};
  p.n = 3, p.w = 17, p.c = 4, p.k = 6, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  check_problem(p, rng);
  // 3-D: 3 x 3 x 3, stride 2 in depth, dilation 2 in width.
  p = Problem{};
  p.n = 1, p.d = 5, p.h = 4, p.w = 6, p.c = 2, p.k = 3, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1},
  p.dilation = {1, 1, 2};
  check_problem(p, rng);
  // Groups: 2 and depthwise (groups = C = K).
  p = Problem{};
  p.n = 2, p.h = 6, p.w = 5, p.c = 6, p.k = 4, p.r = p.s = 3, p.pad_before = p.pad_after = {0, 1, 1}, p.groups = 2;
  check_problem(p, rng);
  p.k = 6, p.groups = 6, p.stride = {1, 2, 1};
  check_problem(p, rng);
}

TEST_CASE("conv implicit GEMM: a random grid of small problems", "[conv]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> u(0, 1 << 20);
  auto pick = [&](int lo, int hi) { return lo + u(rng) % (hi - lo + 1); };
  for (int i = 0; i < 60; ++i) {
    Problem p;
    int const dims = pick(1, 3);
    p.n = pick(1, 2);
    p.groups = pick(1, 3);
    p.c = p.groups * pick(1, 3);
    p.k = p.groups * pick(1, 3);
    for (int dim = 3 - dims; dim < 3; ++dim) {
      int& e = dim == 0 ? p.d : dim == 1 ? p.h : p.w;
      int& f = dim == 0 ? p.t : dim == 1 ? p.r : p.s;
      f = pick(1, 3);
      p.dilation[dim] = pick(1, 2);
      p.stride[dim] = pick(1, 3);
      p.pad_before[dim] = pick(0, 3);
      p.pad_after[dim] = pick(0, 3);
      e = pick(1, 7);
      while (p.output_extent(dim) < 1) ++e;
    }
    check_problem(p, rng);
  }
}

TEST_CASE("conv k-tiles: BK channels of one tap, each (tap, channel) once", "[conv]") {
  for (int cg : {1, 3, 8, 64, 65}) {
    for (int bk : {8, 16, 64}) {
      Problem p;
      p.n = 1, p.h = p.w = 8, p.c = 2 * cg, p.k = 2, p.r = 3, p.s = 2, p.groups = 2;
      std::vector<int> seen(std::size_t(p.r * p.s * cg), 0);
      for (int kt = 0; kt < k_tiles(p, bk); ++kt) {
        KTile const x = k_tile(p, bk, kt);
        REQUIRE(x.c0 % bk == 0);
        for (int c = x.c0; c < x.c0 + bk && c < cg; ++c) ++seen[std::size_t((x.at[1] * p.s + x.at[2]) * cg + c)];
      }
      for (int v : seen) REQUIRE(v == 1);
    }
  }
}

TEST_CASE("conv::check names what is wrong and how to fix it", "[conv]") {
  Problem p;
  p.n = 1, p.h = p.w = 8, p.c = 6, p.k = 4, p.r = p.s = 3;
  CHECK(check(p).ok());
  p.groups = 4;
  CHECK_THAT(check(p).message(), Catch::Contains("groups = 4 must divide C = 6 and K = 4; use groups = 1"));
  p.groups = 1;
  p.r = 11;
  CHECK_THAT(check(p).message(), Catch::Contains("the dilated filter (11) in height does not fit the padded input (8); pad more"));
  p.r = 3;
  p.stride[2] = 0;
  CHECK_THAT(check(p).message(), Catch::Contains("stride and dilation must be at least 1 in width"));
  p.stride[2] = 1;
  p.c = 0;
  CHECK_THAT(check(p).message(), Catch::Contains("N, D, H, W, C and K must be at least 1"));
}
