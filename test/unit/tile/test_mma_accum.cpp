// tile::MmaAccum, a warp's row of mma.sync m16n8 accumulators: its (lane, value) -> (row, col) map
// is a bijection onto 16 x N and, atom by atom, the m16n8k16 C fragment of atom/mma_sm80.hpp (the
// PTX ISA's table, host-tested there); it is warp 0's part of tile::WgmmaAccum<float, N, 1> in the
// same value order; an emulated warp reduces rows to the true row max / sum; and the A operand
// built from it is, through atom/mma_sm80.hpp's A layout, the rounded accumulators (the m16n8k16
// C -> A identity that keeps attention's P in registers).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "tessera/atom/mma_sm80.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/mma_accum.hpp"
#include "tessera/tile/wgmma_accum.hpp"
#include "warpgroup_emulation.hpp"

using namespace tessera;

namespace {

using Traits = atom::MmaTraits<arch::Sm80_16x8x16_F32BF16BF16F32_TN>;

template <class F>
void for_widths(F&& f) {
  f(std::integral_constant<int, 8>{});
  f(std::integral_constant<int, 16>{});
  f(std::integral_constant<int, 40>{});
  f(std::integral_constant<int, 64>{});
  f(std::integral_constant<int, 128>{});
  f(std::integral_constant<int, 256>{});
}

// Distinct multiples of 1/4: exact in float, bf16-representable for small magnitudes.
float element(int row, int col) { return float((row * 37 + col * 11) % 97 - 48) / 4.0f; }

}  // namespace

TEST_CASE("MmaAccum: the map is a bijection, atom by atom the m16n8 C fragment", "[tile][sm80][mma_accum]") {
  for_widths([](auto n) {
    constexpr int N = decltype(n)::value;
    using A = tile::MmaAccum<N>;
    INFO("N = " << N);
    STATIC_REQUIRE(std::is_aggregate_v<A>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(std::declval<A&>().regs[0])>, typename Traits::Op::CRegisters>);
    STATIC_REQUIRE(A::values * A::threads == A::rows * A::cols);
    std::vector<int> hits(std::size_t(A::rows * A::cols), 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int v = 0; v < A::values; ++v) {
        int const row = A::row(lane, v), col = A::col(lane, v);
        int const c = int(Traits::c_layout()(lane, v % 4));  // atom v / 4's register v % 4: m + 16 n
        REQUIRE(row == c % 16);
        REQUIRE(col == 8 * (v / 4) + c / 16);
        REQUIRE(A::local_row(lane, A::local_row_of(v)) == row);
        REQUIRE(A::row(lane + 64, v) == row);  // a block's threadIdx.x
        // warp 0's part of the wgmma accumulator, value for value
        REQUIRE(tile::WgmmaAccum<float, N, 1>::row(lane, v) == row);
        REQUIRE(tile::WgmmaAccum<float, N, 1>::col(lane, v) == col);
        ++hits[std::size_t(row * A::cols + col)];
      }
    for (int h : hits) REQUIRE(h == 1);
  });
}

TEST_CASE("MmaAccum: for_each and transform see the map's coordinates; rows reduce over an emulated warp",
          "[tile][sm80][mma_accum]") {
  for_widths([](auto n) {
    constexpr int N = decltype(n)::value;
    using A = tile::MmaAccum<N>;
    INFO("N = " << N);
    // Four warps of an emulated warpgroup, each with its own 16 rows (row offset 16 w).
    std::vector<A> frags(128);
    for (int t = 0; t < 128; ++t) {
      int seen = 0;
      tile::for_each(frags[t], t, [&](float& x, int row, int col) { x = element(16 * (t / 32) + row, col), ++seen; });
      REQUIRE(seen == A::values);
      for (int v = 0; v < A::values; ++v) REQUIRE(frags[t].at(v) == element(16 * (t / 32) + A::row(t, v), A::col(t, v)));
    }
    std::vector<Array<float, 2>> max(128), sum(128);
    test::Warpgroup wg;
    wg.run([&](int t, test::Warpgroup::Shfl shfl) {
      max[t] = tile::row_max(frags[t], shfl);
      sum[t] = tile::row_sum(frags[t], shfl);
    });
    for (int t = 0; t < 128; ++t)
      for (int r = 0; r < 2; ++r) {
        int const row = 16 * (t / 32) + A::local_row(t, r);
        float top = element(row, 0), total = 0;
        for (int c = 0; c < N; ++c) top = std::max(top, element(row, c)), total += element(row, c);
        REQUIRE(max[t][r] == top);
        REQUIRE(sum[t][r] == total);
      }
    A f = frags[5];
    transform(f, 5u, [](float x, int row, int col) { return x + float(row) - float(col); });  // unqualified: ADL
    for (int v = 0; v < A::values; ++v) REQUIRE(f.at(v) == frags[5].at(v) + float(A::row(5, v) - A::col(5, v)));
    tile::transform_rows(f, [](float, int r) { return float(r); });
    for (int v = 0; v < A::values; ++v) REQUIRE(f.at(v) == float(A::local_row_of(v)));
  });
}

TEST_CASE("MmaAccum: to_a_operand is the m16n8k16 A fragment of the rounded accumulators", "[tile][sm80][mma_accum]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for_widths([&](auto n) {
    constexpr int N = decltype(n)::value;
    if constexpr (N % 16 == 0) {
      using A = tile::MmaAccum<N>;
      std::vector<float> m(16 * N);
      for (auto& x : m) x = d(rng);
      auto check = [&](auto t) {
        using T = decltype(t);
        std::vector<int> hits(16 * N, 0);
        for (int lane = 0; lane < 32; ++lane) {
          A f;
          for (int v = 0; v < A::values; ++v) f.at(v) = m[std::size_t(A::row(lane, v) * N + A::col(lane, v))];
          auto const a = tile::to_a_operand<T>(f);
          STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(a.regs[0])>, typename Traits::Op::ARegisters>);
          for (int s = 0; s < N / 16; ++s)
            for (int i = 0; i < 8; ++i) {  // a_i: register i / 2, the low half for even i
              int const idx = int(Traits::a_layout()(lane, i)), row = idx % 16, k = 16 * s + idx / 16;
              REQUIRE(std::uint16_t(a.regs[s][i / 2] >> (16 * (i % 2))) == T(m[std::size_t(row * N + k)]).bits());
              ++hits[std::size_t(row * N + k)];
            }
        }
        for (int h : hits) REQUIRE(h == 1);
      };
      check(bfloat16_t{});
      check(half_t{});
    }
  });
}
