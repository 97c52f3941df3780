// tile::MfmaAccumT, a wavefront's MFMA 32 x 32 accumulators of a transposed product (Sᵀ = K Qᵀ)
// seen as the product: its (lane, value) -> (row, col) map is a bijection onto 32 x N and, atom by
// atom, the transpose of atom/mma_gfx9.hpp's 32 x 32 accumulator layout (the CDNA ISA's, host-
// tested there); an emulated wavefront reduces rows to the true row max / sum; and the B operand
// built from it is, through atom/mma_gfx9.hpp's B layout, the rounded accumulators of the keys
// that k-step takes (the C -> B identity that keeps attention's P in registers on AMD).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "tessera/atom/mma_gfx9.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/mfma_accum.hpp"
#include "warpgroup_emulation.hpp"

using namespace tessera;

namespace {

using Traits = atom::MmaTraits<arch::Gfx9_32x32x8_F32BF16BF16F32>;

template <class F>
void for_widths(F&& f) {
  f(std::integral_constant<int, 32>{});
  f(std::integral_constant<int, 64>{});
  f(std::integral_constant<int, 128>{});
  f(std::integral_constant<int, 256>{});
}

float element(int row, int col) { return float((row * 37 + col * 11) % 97 - 48) / 4.0f; }

}  // namespace

TEST_CASE("MfmaAccumT: the map is a bijection, atom by atom the transposed 32 x 32 C fragment", "[tile][gfx9][mfma_accum]") {
  for_widths([](auto n) {
    constexpr int N = decltype(n)::value;
    using A = tile::MfmaAccumT<N>;
    INFO("N = " << N);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(std::declval<A&>().regs[0])>, typename Traits::Op::CRegisters>);
    STATIC_REQUIRE(A::values * A::threads == A::rows * A::cols);
    std::vector<int> hits(std::size_t(A::rows * A::cols), 0);
    for (int lane = 0; lane < 64; ++lane)
      for (int v = 0; v < A::values; ++v) {
        int const row = A::row(lane, v), col = A::col(lane, v);
        int const c = int(Traits::c_layout()(lane, v % 16));  // atom v / 16's value v % 16: m + 32 n of Sᵀ
        REQUIRE(row == c / 32);                               // n: the query
        REQUIRE(col == 32 * (v / 16) + c % 32);               // m: the key
        REQUIRE(A::local_row(lane, A::local_row_of(v)) == row);
        REQUIRE(A::col(lane + 128, v) == col);  // a block's threadIdx.x
        ++hits[std::size_t(row * A::cols + col)];
      }
    for (int h : hits) REQUIRE(h == 1);
  });
}

TEST_CASE("MfmaAccumT: for_each sees the map's coordinates; rows reduce over an emulated wavefront", "[tile][gfx9][mfma_accum]") {
  for_widths([](auto n) {
    constexpr int N = decltype(n)::value;
    using A = tile::MfmaAccumT<N>;
    INFO("N = " << N);
    std::vector<A> frags(128);  // two wavefronts, each its own 32 rows
    for (int t = 0; t < 128; ++t) tile::for_each(frags[t], t, [&](float& x, int row, int col) { x = element(32 * (t / 64) + row, col); });
    std::vector<Array<float, 1>> max(128), sum(128);
    test::Warpgroup wg;
    wg.run([&](int t, test::Warpgroup::Shfl shfl) {
      max[t] = tile::row_max(frags[t], shfl);
      sum[t] = tile::row_sum(frags[t], shfl);
    });
    for (int t = 0; t < 128; ++t) {
      int const row = 32 * (t / 64) + t % 32;
      float top = element(row, 0), total = 0;
      for (int c = 0; c < N; ++c) top = std::max(top, element(row, c)), total += element(row, c);
      REQUIRE(max[t][0] == top);
      REQUIRE(sum[t][0] == total);
    }
  });
}

TEST_CASE("MfmaAccumT: to_b_operand is the 32 x 32 x 8 B fragment of each k-step's keys", "[tile][gfx9][mfma_accum]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for_widths([&](auto n) {
    constexpr int N = decltype(n)::value;
    using A = tile::MfmaAccumT<N>;
    std::vector<float> m(32 * N);  // S: 32 queries x N keys
    for (auto& x : m) x = d(rng);
    auto check = [&](auto tag) {
      using T = decltype(tag);
      for (int lane = 0; lane < 64; ++lane) {
        A f;
        for (int v = 0; v < A::values; ++v) f.at(v) = m[std::size_t(A::row(lane, v) * N + A::col(lane, v))];
        auto const b = tile::to_b_operand<T>(f);
        STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(b.regs[0])>, typename Traits::Op::BRegisters>);
        for (int t = 0; t < N / 8; ++t)
          for (int e = 0; e < 4; ++e) {  // B(k, j): Pᵀ's key 8 t + k of query j
            int const idx = int(Traits::b_layout()(lane, e)), j = idx % 32, k = idx / 32;
            REQUIRE(std::uint16_t(b.regs[t][e / 2] >> (16 * (e % 2))) == T(m[std::size_t(j * N + 8 * t + k)]).bits());
          }
      }
    };
    check(bfloat16_t{});
    check(half_t{});
  });
}
