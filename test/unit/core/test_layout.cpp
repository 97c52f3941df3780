// Layout basics and coalesce.
#include <catch2/catch.hpp>

#include "layout_samples.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::offsets;

TEST_CASE("a layout maps coordinates and indices to offsets", "[core][layout]") {
  auto a = make_layout(make_tuple(Int<4>{}, Int<3>{}));
  STATIC_REQUIRE(std::is_same_v<decltype(a(Int<1>{}, Int<2>{})), C<9>>);  // static in, static out
  CHECK(a(1, 2) == 9);
  CHECK(a(5) == 5);
  CHECK(size(a) == 12);
  CHECK(cosize(a) == 12);
  auto r = make_layout_row_major(make_tuple(4, 3));
  CHECK(r(1, 2) == 5);
  CHECK(r(5) == 4);  // index 5 is coordinate (1, 1)
  CHECK(cosize(r) == 12);
  auto padded = make_layout(make_tuple(4, 3), make_tuple(1, 5));
  CHECK(cosize(padded) == 14);
  CHECK(size<1>(padded) == 3);
  CHECK(stride<1>(padded) == 5);
  auto m = layout<1>(padded);
  CHECK(m(2) == 10);
  auto sel = select_modes<1, 0>(padded);
  CHECK(sel(1, 0) == 5);
  auto t = make_layout(layout<0>(padded), layout<1>(padded));
  CHECK(t == padded);
}

TEST_CASE("static layouts cost no storage", "[core][layout]") {
  auto a = make_layout(make_tuple(Int<8>{}, Int<16>{}), make_tuple(Int<16>{}, Int<1>{}));
  STATIC_REQUIRE(std::is_empty_v<decltype(a)>);
  STATIC_REQUIRE(is_static_layout_v<decltype(a)>);
  STATIC_REQUIRE(decltype(cosize(a))::value == 128);
}

TEST_CASE("coalesce keeps the function and merges contiguous modes", "[core][layout][coalesce][property]") {
  auto check = [](auto const& l) {
    auto c = coalesce(l);
    REQUIRE(size(c) == size(l));
    REQUIRE(offsets(c) == offsets(l));
    REQUIRE(depth_of<typename decltype(c)::shape_type>() <= 1);
    REQUIRE(rank_v<typename decltype(c)::shape_type> <= rank_v<decltype(flatten(l.shape()))>);
    // coalescing twice changes nothing
    REQUIRE(coalesce(c) == c);
  };
  for_each(tessera::test::injective_layouts(), check);
  for_each(tessera::test::compact_layouts(), check);

  auto nested = make_layout(make_tuple(make_tuple(Int<2>{}, Int<4>{}), Int<3>{}),
                            make_tuple(make_tuple(Int<1>{}, Int<2>{}), Int<8>{}));
  STATIC_REQUIRE(std::is_same_v<decltype(coalesce(nested)), Layout<C<24>, C<1>>>);
  auto unit = make_layout(make_tuple(Int<4>{}, Int<1>{}, Int<3>{}), make_tuple(Int<1>{}, Int<7>{}, Int<4>{}));
  STATIC_REQUIRE(std::is_same_v<decltype(coalesce(unit)), Layout<C<12>, C<1>>>);
  auto gap = make_layout(make_tuple(Int<4>{}, Int<3>{}), make_tuple(Int<1>{}, Int<5>{}));
  STATIC_REQUIRE(rank_v<typename decltype(coalesce(gap))::shape_type> == 2);
  // By-mode: each mode is coalesced on its own and the rank is kept.
  auto bm = coalesce(make_layout(make_tuple(make_tuple(Int<2>{}, Int<2>{}), Int<3>{}),
                                 make_tuple(make_tuple(Int<1>{}, Int<2>{}), Int<4>{})),
                     make_tuple(Int<1>{}, Int<1>{}));
  STATIC_REQUIRE(std::is_same_v<decltype(bm), Layout<Tuple<C<4>, C<3>>, Tuple<C<1>, C<4>>>>);
}

TEST_CASE("coalesce with run-time extents keeps every mode it cannot prove contiguous", "[core][layout][coalesce]") {
  auto l = make_layout(make_tuple(4, 3), make_tuple(1, 4));
  auto c = coalesce(l);
  REQUIRE(offsets(c) == offsets(l));
  STATIC_REQUIRE(rank_v<typename decltype(c)::shape_type> == 2);
}
