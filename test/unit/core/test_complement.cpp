// complement(A, M): ordered, disjoint from A, and (A, complement) injective and covering.
#include <catch2/catch.hpp>

#include <set>

#include "layout_samples.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::is_injective;
using tessera::test::offsets;

namespace {
template <class A, class M>
void check_complement(A const& a, M cotarget) {
  auto c = complement(a, cotarget);
  INFO("complement of a layout of size " << size(a) << " in " << cotarget);
  auto co = offsets(c);
  // ordered: the complement enumerates its offsets in increasing order
  for (std::size_t i = 1; i < co.size(); ++i) REQUIRE(co[i - 1] < co[i]);
  // disjoint: only offset 0 is shared
  auto ao = offsets(a);
  std::set<long long> aset(ao.begin(), ao.end());
  for (std::size_t i = 1; i < co.size(); ++i) REQUIRE(aset.count(co[i]) == 0);
  // (A, complement) is injective and reaches at least the cotarget
  auto joined = make_layout(a, c);
  REQUIRE(is_injective(joined));
  REQUIRE(static_cast<long long>(cosize(joined)) >= static_cast<long long>(cotarget));
}
}  // namespace

TEST_CASE("complement examples", "[core][complement]") {
  auto c = complement(make_layout(Int<4>{}, Int<2>{}), Int<24>{});
  STATIC_REQUIRE(std::is_same_v<decltype(c), Layout<Tuple<C<2>, C<3>>, Tuple<C<1>, C<8>>>>);
  auto c2 = complement(make_layout(make_tuple(Int<2>{}, Int<2>{}), make_tuple(Int<1>{}, Int<6>{})), Int<24>{});
  CHECK(offsets(c2) == std::vector<long long>{0, 2, 4, 12, 14, 16});
  // A compact layout leaves nothing inside its own cosize, and repeats beyond it.
  auto c3 = complement(make_layout(make_tuple(Int<4>{}, Int<3>{})), Int<24>{});
  STATIC_REQUIRE(std::is_same_v<decltype(c3), Layout<C<2>, C<12>>>);
  // Run-time cotarget
  auto c4 = complement(make_layout(Int<4>{}, Int<1>{}), 32);
  CHECK(offsets(c4) == std::vector<long long>{0, 4, 8, 12, 16, 20, 24, 28});
}

TEST_CASE("complement properties over many layouts", "[core][complement][property]") {
  for_each(tessera::test::injective_layouts(), [](auto const& a) {
    check_complement(a, cosize(a));
    check_complement(a, cosize(a) * Int<2>{});
    check_complement(a, 4 * cosize(a) + 3);  // run-time cotarget, not a multiple
  });
  for_each(tessera::test::compact_layouts(), [](auto const& a) { check_complement(a, size(a) * Int<4>{}); });
}
