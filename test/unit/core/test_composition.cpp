// composition(A, B)(i) == A(B(i)), over many pairs, static and dynamic.
#include <catch2/catch.hpp>

#include "layout_samples.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::offsets;

namespace {
template <class A, class B>
void check_composition(A const& a, B const& b) {
  auto r = composition(a, b);
  INFO("composition of a layout of size " << size(a) << " with one of size " << size(b));
  REQUIRE(size(r) == size(b));
  for (int i = 0; i < int(size(b)); ++i) {
    REQUIRE(r(i) == a(b(i)));
  }
  // A tuple-shaped B gives its (top-level) mode structure to the result.
  if constexpr (is_tuple_v<typename B::shape_type>) {
    STATIC_REQUIRE(rank_v<typename decltype(r)::shape_type> == rank_v<typename B::shape_type>);
  }
}
}  // namespace

TEST_CASE("composition equals function composition", "[core][composition][property]") {
  auto a1 = make_layout(make_tuple(Int<6>{}, Int<2>{}), make_tuple(Int<8>{}, Int<2>{}));
  check_composition(a1, make_layout(make_tuple(Int<4>{}, Int<3>{}), make_tuple(Int<3>{}, Int<1>{})));
  check_composition(a1, make_layout(Int<12>{}, Int<1>{}));
  check_composition(a1, make_layout(Int<6>{}, Int<2>{}));
  check_composition(a1, make_layout(Int<3>{}, Int<2>{}));
  check_composition(a1, make_layout(Int<4>{}, Int<0>{}));  // broadcast

  // Every compact layout composed with tilings that divide it.
  for_each(tessera::test::compact_layouts(), [](auto const& a) {  // all of size 12 or 16 or 24 or 32
    constexpr int n = decltype(size(a))::value;
    check_composition(a, make_layout(Int<n>{}, Int<1>{}));
    check_composition(a, make_layout(Int<n / 2>{}, Int<2>{}));
    check_composition(a, make_layout(make_tuple(Int<2>{}, Int<n / 2>{}), make_tuple(Int<n / 2>{}, Int<1>{})));
    check_composition(a, make_layout(make_tuple(Int<2>{}, Int<2>{}), make_tuple(Int<1>{}, Int<n / 2>{})));
    check_composition(a, make_layout(make_tuple(make_tuple(Int<2>{}, Int<2>{}), Int<n / 4>{}),
                                     make_tuple(make_tuple(Int<n / 2>{}, Int<1>{}), Int<2>{})));
  });

  for_each(tessera::test::injective_layouts(), [](auto const& a) {
    constexpr int n = decltype(size(a))::value;
    check_composition(a, make_layout(Int<n>{}, Int<1>{}));
    check_composition(a, make_layout(make_tuple(Int<1>{}, Int<n>{}), make_tuple(Int<0>{}, Int<1>{})));
  });
}

TEST_CASE("composition with the identity is neutral", "[core][composition][property]") {
  for_each(tessera::test::injective_layouts(), [](auto const& a) {
    auto id = make_layout(size(a), Int<1>{});
    REQUIRE(offsets(composition(a, id)) == offsets(a));
    REQUIRE(offsets(composition(make_layout(cosize(a), Int<1>{}), a)) == offsets(a));
  });
}

TEST_CASE("composition is associative", "[core][composition][property]") {
  auto a = make_layout(make_tuple(Int<4>{}, Int<6>{}), make_tuple(Int<6>{}, Int<1>{}));
  auto b = make_layout(make_tuple(Int<6>{}, Int<4>{}), make_tuple(Int<4>{}, Int<1>{}));
  auto c = make_layout(make_tuple(Int<2>{}, Int<12>{}), make_tuple(Int<12>{}, Int<1>{}));
  REQUIRE(offsets(composition(composition(a, b), c)) == offsets(composition(a, composition(b, c))));
}

TEST_CASE("composition results are static for static inputs and agree with run-time inputs", "[core][composition]") {
  auto as = make_layout(make_tuple(Int<12>{}, Int<8>{}));
  auto bs = make_layout(make_tuple(Int<4>{}, Int<6>{}), make_tuple(Int<3>{}, Int<24>{}));
  auto rs = composition(as, bs);
  STATIC_REQUIRE(is_static_layout_v<decltype(rs)>);
  auto ad = make_layout(make_tuple(12, 8));
  auto rd = composition(ad, bs);
  REQUIRE(offsets(rd) == offsets(rs));
}

TEST_CASE("composition with a tiler composes mode by mode", "[core][composition]") {
  auto a = make_layout(make_tuple(Int<12>{}, Int<8>{}), make_tuple(Int<8>{}, Int<1>{}));  // row-major 12x8
  auto r = composition(a, make_tuple(make_layout(Int<3>{}, Int<4>{}), Int<2>{}));
  // Rows 0, 4, 8 and columns 0, 1.
  REQUIRE(size(r) == 6);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) REQUIRE(r(i, j) == a(4 * i, j));
}
