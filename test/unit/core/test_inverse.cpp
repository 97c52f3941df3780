// right_inverse: L(R(i)) == i.
#include <catch2/catch.hpp>

#include <algorithm>

#include "layout_samples.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::offsets;

TEST_CASE("right_inverse of bijections is their inverse", "[core][inverse][property]") {
  for_each(tessera::test::compact_layouts(), [](auto const& l) {
    auto r = right_inverse(l);
    REQUIRE(size(r) == size(l));
    for (int i = 0; i < int(size(r)); ++i) REQUIRE(l(r(i)) == i);
    // and then also a left inverse: R(L(i)) == i
    for (int i = 0; i < int(size(l)); ++i) REQUIRE(r(l(i)) == i);
  });
  auto r = right_inverse(make_layout(make_tuple(Int<4>{}, Int<2>{}), make_tuple(Int<2>{}, Int<1>{})));
  STATIC_REQUIRE(std::is_same_v<decltype(r), Layout<Tuple<C<2>, C<4>>, Tuple<C<4>, C<1>>>>);
}

TEST_CASE("right_inverse of injective layouts covers their contiguous prefix", "[core][inverse][property]") {
  for_each(tessera::test::injective_layouts(), [](auto const& l) {
    auto r = right_inverse(l);
    for (int i = 0; i < int(size(r)); ++i) REQUIRE(l(r(i)) == i);
    // The prefix is maximal: offset size(r) is not reached by l.
    auto o = offsets(l);
    REQUIRE(std::find(o.begin(), o.end(), static_cast<long long>(size(r))) == o.end());
  });
}
