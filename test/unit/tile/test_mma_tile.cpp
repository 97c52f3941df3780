// Block tiles of MMA atoms: the accumulators cover the block's tile exactly once, A and B are
// shared across the warps of a row / column, and an emulated block computes the plain product.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <vector>

#include "tessera/atom/mma_sm80.hpp"
#include "tessera/tile/mma_tile.hpp"

using namespace tessera;

namespace {

template <class Tile>
void check_tile() {
  constexpr int BM = Tile::BM, BN = Tile::BN, K = Tile::atom_k, T = Tile::threads;
  auto const c = Tile::c_layout();
  auto const a = Tile::a_layout();
  auto const b = Tile::b_layout();
  REQUIRE(int(size<0>(c)) == T);
  REQUIRE(int(size<1>(c)) == Tile::c_values);
  // C: a bijection onto the BM x BN tile
  std::vector<int> owner(BM * BN, 0);
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < Tile::c_values; ++v) ++owner[int(c(t, v))];
  for (int x : owner) REQUIRE(x == 1);
  // The epilogue's addressing (gemm/sm80/epilogue.hpp): value v of thread t sits at the thread's
  // origin plus the value's offset, row and column separately (no carry between them), and
  // values 2j and 2j + 1 are adjacent columns of one row.
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < Tile::c_values; ++v) {
      int const idx = int(c(t, v)), t0 = int(c(t, 0)), v0 = int(c(0, v));
      REQUIRE(idx % BM == t0 % BM + v0 % BM);
      REQUIRE(idx / BM == t0 / BM + v0 / BM);
    }
  for (int v = 0; v < Tile::c_values; v += 2) REQUIRE(int(c(0, v + 1)) == int(c(0, v)) + BM);
  // A and B: every element held by exactly WarpsN (resp. WarpsM) threads
  std::vector<int> a_holders(BM * K, 0), b_holders(BN * K, 0);
  for (int t = 0; t < T; ++t) {
    for (int v = 0; v < int(size<1>(a)); ++v) ++a_holders[int(a(t, v))];
    for (int v = 0; v < int(size<1>(b)); ++v) ++b_holders[int(b(t, v))];
  }
  for (int x : a_holders) REQUIRE(x == Tile::warps_n);
  for (int x : b_holders) REQUIRE(x == Tile::warps_m);

  // Emulated block, one K step: each accumulator (m, n) of thread t sums A(m, k) * B(k, n) over
  // the k that thread's atom sees. The atom that owns C(m, n) must see A's row m and B's column n:
  // check that thread t holds, within its own warp, fragments of exactly those rows and columns.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<double> ma(BM * K), mb(BN * K);  // A: m + BM k;  B: n + BN k
  for (auto& x : ma) x = d(rng) | 1;
  for (auto& x : mb) x = d(rng) | 1;
  std::vector<double> got(BM * BN, 0.0);
  for (int t = 0; t < T; ++t) {
    int const warp = t / 32;
    // The rows and columns this warp's fragments cover.
    std::map<int, int> rows, cols;
    for (int tt = 32 * warp; tt < 32 * warp + 32; ++tt) {
      for (int v = 0; v < int(size<1>(a)); ++v) ++rows[int(a(tt, v)) % BM];
      for (int v = 0; v < int(size<1>(b)); ++v) ++cols[int(b(tt, v)) % BN];
    }
    for (int v = 0; v < Tile::c_values; ++v) {
      int const idx = int(c(t, v)), m = idx % BM, n = idx / BM;
      REQUIRE(rows.count(m) == 1);
      REQUIRE(cols.count(n) == 1);
      for (int k = 0; k < K; ++k) got[idx] += ma[m + BM * k] * mb[n + BN * k];
    }
  }
  for (int m = 0; m < BM; ++m)
    for (int n = 0; n < BN; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += ma[m + BM * k] * mb[n + BN * k];
      REQUIRE(got[m + BM * n] == ref);
    }
}

}  // namespace

TEST_CASE("block tiles of mma.sync atoms", "[tile][mma]") {
  check_tile<tile::MmaTile<arch::Sm80_16x8x16_F32BF16BF16F32_TN, 1, 1, 1, 1>>();   // one atom
  check_tile<tile::MmaTile<arch::Sm80_16x8x16_F32BF16BF16F32_TN, 1, 1, 4, 8>>();   // a 64x64 warp tile
  check_tile<tile::MmaTile<arch::Sm80_16x8x16_F32F16F16F32_TN, 2, 2, 4, 8>>();     // 128x128 block, 4 warps
  check_tile<tile::MmaTile<arch::Sm80_16x8x16_F32F16F16F32_TN, 2, 4, 4, 4>>();     // 128x128 block, 8 warps
  check_tile<tile::MmaTile<arch::Sm80_16x8x8_F32TF32TF32F32_TN, 2, 2, 2, 4>>();
  check_tile<tile::MmaTile<arch::Sm80_16x8x32_S32S8S8S32_TN, 4, 2, 2, 8>>();
  using T = tile::MmaTile<arch::Sm80_16x8x16_F32BF16BF16F32_TN, 2, 2, 4, 8>;
  STATIC_REQUIRE(T::BM == 128);
  STATIC_REQUIRE(T::BN == 128);
  STATIC_REQUIRE(T::c_values == 128);
  STATIC_REQUIRE(is_static_layout_v<decltype(T::c_layout())>);
}
