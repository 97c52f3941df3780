// Integer tuples: static/dynamic arithmetic, rank/depth/product, coordinates.
#include <catch2/catch.hpp>

#include "tessera/core/int_tuple.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/tuple.hpp"

using namespace tessera;

TEST_CASE("static integers stay static through arithmetic", "[core][integral]") {
  STATIC_REQUIRE(std::is_same_v<decltype(Int<2>{} * Int<3>{}), C<6>>);
  STATIC_REQUIRE(std::is_same_v<decltype(Int<7>{} / Int<2>{}), C<3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(ceil_div(Int<7>{}, Int<2>{})), C<4>>);
  STATIC_REQUIRE(std::is_same_v<decltype(shape_div(Int<4>{}, Int<12>{})), C<1>>);
  STATIC_REQUIRE(std::is_same_v<decltype(shape_div(Int<12>{}, Int<4>{})), C<3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(mul(Int<0>{}, 5)), C<0>>);
  STATIC_REQUIRE(std::is_same_v<decltype(mul(Int<1>{}, 5)), int>);
  STATIC_REQUIRE(std::is_same_v<decltype(min(Int<3>{}, Int<5>{})), C<3>>);
  int x = 6;
  CHECK(Int<2>{} * x == 12);
  CHECK(shape_div(x, 3) == 2);
  CHECK(shape_div(3, x) == 1);
  CHECK(ceil_div(x, 4) == 2);
  CHECK(max(x, Int<9>{}) == 9);
}

TEST_CASE("tuple structure: rank, depth, product, congruence, static-ness", "[core][int_tuple]") {
  auto s = make_tuple(Int<4>{}, make_tuple(2, Int<3>{}));
  STATIC_REQUIRE(rank_v<decltype(s)> == 2);
  STATIC_REQUIRE(decltype(depth(s))::value == 2);
  STATIC_REQUIRE(decltype(depth(Int<3>{}))::value == 0);
  CHECK(product(s) == 24);
  CHECK(sum(s) == 9);
  STATIC_REQUIRE(!is_static_v<decltype(s)>);
  STATIC_REQUIRE(is_static_v<decltype(make_tuple(Int<4>{}, make_tuple(Int<2>{})))>);
  STATIC_REQUIRE(std::is_same_v<decltype(product(make_tuple(Int<4>{}, Int<2>{}))), C<8>>);
  STATIC_REQUIRE(is_congruent_v<decltype(s), Tuple<int, Tuple<int, int>>>);
  STATIC_REQUIRE(!is_congruent_v<decltype(s), Tuple<int, int>>);
  STATIC_REQUIRE(sizeof(Tuple<Int<1>, Int<2>, Tuple<Int<3>>>) == 1);  // static modes take no space
  auto f = flatten(s);
  STATIC_REQUIRE(tuple_size_v<decltype(f)> == 3);
  CHECK(get<1>(f) == 2);
  auto [a, b] = s;  // structured bindings
  CHECK(a == 4);
  CHECK(get<1>(b) == 3);
}

TEST_CASE("compact strides", "[core][int_tuple]") {
  auto s = make_tuple(Int<4>{}, make_tuple(Int<2>{}, Int<3>{}));
  auto cm = compact_col_major(s);
  CHECK(get<0>(cm) == 1);
  CHECK(get<1, 0>(cm) == 4);
  CHECK(get<1, 1>(cm) == 8);
  STATIC_REQUIRE(is_static_v<decltype(cm)>);
  auto rm = compact_row_major(make_tuple(4, 3, 2));
  CHECK(get<0>(rm) == 6);
  CHECK(get<1>(rm) == 2);
  CHECK(get<2>(rm) == 1);
}

TEST_CASE("idx2crd and crd2idx are inverse over many shapes", "[core][int_tuple][property]") {
  auto shapes = make_tuple(make_tuple(4, 3), make_tuple(Int<2>{}, make_tuple(3, Int<5>{})), make_tuple(7),
                           make_tuple(make_tuple(2, 2), make_tuple(1, 3), 4), 13);
  for_each(shapes, [](auto const& shape) {
    int n = int(product(shape));
    for (int i = 0; i < n; ++i) {
      auto crd = idx2crd(i, shape);
      STATIC_REQUIRE(is_congruent_v<decltype(crd), decltype(shape)>);
      REQUIRE(crd2linear(crd, shape) == i);
      // A linear index and its coordinate address the same element under any stride.
      auto stride = compact_row_major(shape);
      REQUIRE(crd2idx(i, shape, stride) == crd2idx(crd, shape, stride));
    }
  });
}

TEST_CASE("coordinates are colexicographic", "[core][int_tuple]") {
  auto crd = idx2crd(5, make_tuple(4, 3));
  CHECK(get<0>(crd) == 1);
  CHECK(get<1>(crd) == 1);
  CHECK(crd2idx(make_tuple(1, 2), make_tuple(4, 3), make_tuple(1, 4)) == 9);
  CHECK(crd2idx(5, make_tuple(4, 3), make_tuple(3, 1)) == 4);
  // The last mode is not wrapped: index 12 of (4,3) is coordinate (0, 3).
  CHECK(get<1>(idx2crd(12, make_tuple(4, 3))) == 3);
}
