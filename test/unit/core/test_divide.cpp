// logical_divide, zipped_divide, tiled_divide.
#include <catch2/catch.hpp>

#include <algorithm>

#include "layout_samples.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::offsets;

TEST_CASE("logical_divide splits a layout into a tile and the tiles", "[core][divide]") {
  auto a = make_layout(Int<24>{}, Int<1>{});
  auto d = logical_divide(a, make_layout(Int<4>{}, Int<2>{}));
  // mode 0: one tile (4:2); mode 1: where the tiles start ((2,3):(1,8))
  CHECK(offsets(layout<0>(d)) == std::vector<long long>{0, 2, 4, 6});
  CHECK(offsets(layout<1>(d)) == std::vector<long long>{0, 1, 8, 9, 16, 17});
}

TEST_CASE("logical_divide is a permutation of the layout's offsets", "[core][divide][property]") {
  auto check = [](auto const& a, auto const& tile) {
    auto d = logical_divide(a, tile);
    REQUIRE(size(d) == size(a));
    REQUIRE(size<0>(d) == size(tile));
    // mode 0 at tile 0 is A o tile
    for (int i = 0; i < int(size(tile)); ++i) REQUIRE(layout<0>(d)(i) == a(tile(i)));
    auto x = offsets(d), y = offsets(a);
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    REQUIRE(x == y);
  };
  for_each(tessera::test::compact_layouts(), [&](auto const& a) {
    constexpr int n = decltype(size(a))::value;
    check(a, make_layout(Int<2>{}, Int<1>{}));
    check(a, make_layout(Int<4>{}, Int<1>{}));
    check(a, make_layout(Int<2>{}, Int<n / 2>{}));
    check(a, make_layout(make_tuple(Int<2>{}, Int<2>{}), make_tuple(Int<1>{}, Int<n / 2>{})));
  });
}

TEST_CASE("zipped_divide and tiled_divide address tile (m, n) element (i, j)", "[core][divide]") {
  constexpr int M = 12, N = 8, TM = 4, TN = 2;
  auto check = [](auto const& a) {
    auto z = zipped_divide(a, make_tuple(Int<TM>{}, Int<TN>{}));
    auto t = tiled_divide(a, make_tuple(Int<TM>{}, Int<TN>{}));
    STATIC_REQUIRE(rank_v<typename decltype(z)::shape_type> == 2);
    STATIC_REQUIRE(rank_v<typename decltype(t)::shape_type> == 3);
    REQUIRE(size<0>(z) == TM * TN);
    REQUIRE(size<1>(z) == (M / TM) * (N / TN));
    for (int m = 0; m < M / TM; ++m)
      for (int n = 0; n < N / TN; ++n)
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) {
            auto expect = a(m * TM + i, n * TN + j);
            REQUIRE(z(make_tuple(make_tuple(i, j), make_tuple(m, n))) == expect);
            REQUIRE(t(make_tuple(i, j), m, n) == expect);
          }
  };
  check(make_layout(make_tuple(Int<M>{}, Int<N>{})));                // static, column-major
  check(make_layout_row_major(make_tuple(Int<M>{}, Int<N>{})));      // static, row-major
  check(make_layout(make_tuple(M, N)));                               // run-time extents
  check(make_layout(make_tuple(M, N), make_tuple(Int<1>{}, 100)));    // run-time leading dimension
}

TEST_CASE("a layout's modes beyond the tiler are kept", "[core][divide]") {
  auto a = make_layout(make_tuple(Int<8>{}, Int<4>{}, Int<3>{}));
  auto z = zipped_divide(a, make_tuple(Int<4>{}));
  REQUIRE(size<0>(z) == 4);
  REQUIRE(size<1>(z) == 2 * 4 * 3);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j) REQUIRE(z(make_tuple(make_tuple(1), make_tuple(1, j, k))) == a(5, j, k));
}
