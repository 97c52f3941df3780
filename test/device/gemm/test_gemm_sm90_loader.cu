// The sm90 kernel's loader seam: a loader other than the GEMM's runs through the unchanged Kernel
// (gemm/sm90/kernel.hpp), its parameters built by the pieces' make() and launched by sm90::launch,
// as a convolution's im2col loader will be. The toy: K split over two pairs of tensors,
// D = A1 B1 + A2 B2, the first k-tiles read through one pair of TMA maps and the rest through the
// other (a partial last k-tile of the first pair zero-filled by TMA, as at any K edge). Checked
// against a host reference in double on random data, D poisoned, with and without split-K.
#include <cmath>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;
namespace sm90 = tessera::gemm::sm90;

namespace {

template <class Cfg>
struct ConcatKLoader {
  using Tiled = sm90::TiledLoader<Cfg>;
  struct Params {
    typename Tiled::Params first, second;
    int k_tiles_first;
  };
  TESSERA_DEVICE static void prefetch(Params const& p) {
    Tiled::prefetch(p.first);
    Tiled::prefetch(p.second);
  }
  template <class F>
  TESSERA_DEVICE static void with_loads(Params const& p, int rank_m, int rank_n, F&& f) {
    Tiled::with_loads(p.first, rank_m, rank_n, [&](auto const& first) {
      Tiled::with_loads(p.second, rank_m, rank_n, [&](auto const& second) {
        f([&](char* stage, std::uint32_t full, int kt, sm90::WorkUnit const& u) {
          if (kt < p.k_tiles_first) first(stage, full, kt, u);
          else second(stage, full, kt - p.k_tiles_first, u);
        });
      });
    });
  }
};

using Cfg = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 128, 64>,
                         gemm::Warpgroups<2>, gemm::Stages<4>>;
using Loader = ConcatKLoader<Cfg>;

// The worst |error| / tolerance of D = A1 B1 + A2 B2 (m x n; K1, K2) split into `split` slices.
double run_concat(int m, int n, int k1, int k2, int split) {
  std::mt19937 rng(std::uint32_t(m * 7 + n * 3 + k1 + split));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto values = [&](std::size_t count) {
    std::vector<bfloat16_t> v(count);
    for (auto& x : v) x = bfloat16_t(normal(rng));
    return v;
  };
  auto const a1 = values(std::size_t(m) * k1), b1 = values(std::size_t(n) * k1), a2 = values(std::size_t(m) * k2),
             b2 = values(std::size_t(n) * k2);
  test::DeviceBuffer<bfloat16_t> da1(a1), db1(b1), da2(a2), db2(b2), dd(std::size_t(m) * n);  // D poisoned
  auto args = [&](bfloat16_t const* a, bfloat16_t const* b, int k) {
    gemm::Arguments<Cfg> x;
    x.m = m;
    x.n = n;
    x.k = k;
    x.a = a;
    x.lda = k;
    x.b = b;
    x.ldb = k;
    x.d = dd.get();
    x.ldd = n;
    return x;
  };
  auto const first = args(da1.get(), db1.get(), k1), second = args(da2.get(), db2.get(), k2);
  sm90::Params<Cfg, Loader> p{};
  REQUIRE(Loader::Tiled::make(first, p.load.first).ok());
  REQUIRE(Loader::Tiled::make(second, p.load.second).ok());
  p.load.k_tiles_first = (k1 + Cfg::BK - 1) / Cfg::BK;
  int const k_tiles = p.load.k_tiles_first + (k2 + Cfg::BK - 1) / Cfg::BK;
  REQUIRE(sm90::Epilogue<Cfg>::make(first, true, nullptr, p.epilogue).ok());
  p.grid = sm90::WorkGrid{(m + Cfg::BM - 1) / Cfg::BM, (n + Cfg::BN - 1) / Cfg::BN, 1, k_tiles, split, (k_tiles + split - 1) / split, 8, 1, 1};
  std::size_t const bytes = sm90::SplitK<Cfg>::workspace_bytes(std::size_t(p.grid.padded_tiles()), split);
  test::DeviceBuffer<char> workspace(bytes > 0 ? bytes : 1);
  REQUIRE(sm90::SplitK<Cfg>::make(split, std::size_t(p.grid.padded_tiles()), workspace.get(), false, nullptr, p.split).ok());
  Status const s = sm90::launch(p, true, nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const d = dd.to_host();
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      auto add = [&](std::vector<bfloat16_t> const& a, std::vector<bfloat16_t> const& b, int k) {
        for (int kk = 0; kk < k; ++kk) {
          double const x = double(a[std::size_t(i) * k + kk].to_float()) * b[std::size_t(j) * k + kk].to_float();
          acc += x;
          mag += std::fabs(x);
        }
      };
      add(a1, b1, k1);
      add(a2, b2, k2);
      double const have = d[std::size_t(i) * n + j].to_float();
      double const tol = std::ldexp(std::fabs(acc), -7) + std::ldexp(mag, -20) + 1e-6;
      worst = std::max(worst, std::isfinite(have) ? std::fabs(have - acc) / tol : INFINITY);
    }
  return worst;
}

}  // namespace

TEST_CASE("sm90 Kernel with another loader: K over two pairs of tensors", "[gpu][gemm][sm90][loader]") {
  test::require_gpu();
  CHECK(run_concat(300, 200, 104, 72, 1) <= 1.0);    // both pairs' last k-tiles partial
  CHECK(run_concat(128, 256, 128, 64, 1) <= 1.0);    // whole k-tiles
  CHECK(run_concat(77, 130, 200, 336, 2) <= 1.0);    // split-K: a slice across the two pairs
  CHECK(run_concat(1, 1000, 64, 1000, 3) <= 1.0);
}
