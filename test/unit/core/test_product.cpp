// logical_product, blocked_product, raked_product.
#include <catch2/catch.hpp>

#include "layout_samples.hpp"
#include "tessera/core/layout_algebra.hpp"

using namespace tessera;
using tessera::test::is_injective;
using tessera::test::offsets;

TEST_CASE("logical_product: mode 0 is A, mode 1 places copies of A as B says", "[core][product][property]") {
  auto check = [](auto const& a, auto const& b) {
    auto p = logical_product(a, b);
    REQUIRE(size(p) == size(a) * size(b));
    REQUIRE(offsets(layout<0>(p)) == offsets(a));
    REQUIRE(is_injective(p));
    // Copies start at offsets that A itself never reaches (other than 0).
    auto starts = offsets(layout<1>(p));
    for (std::size_t i = 1; i < starts.size(); ++i)
      for (auto o : offsets(a)) REQUIRE(starts[i] != o);
  };
  check(make_layout(Int<2>{}, Int<1>{}), make_layout(Int<3>{}, Int<1>{}));
  check(make_layout(Int<4>{}, Int<2>{}), make_layout(Int<4>{}, Int<1>{}));
  check(make_layout(make_tuple(Int<2>{}, Int<2>{}), make_tuple(Int<1>{}, Int<4>{})), make_layout(Int<4>{}, Int<2>{}));
  for_each(tessera::test::compact_layouts(), [&](auto const& a) {
    check(a, make_layout(make_tuple(Int<2>{}, Int<3>{})));
    check(a, make_layout_row_major(make_tuple(Int<3>{}, Int<2>{})));
  });
  auto lp = logical_product(make_layout(Int<2>{}, Int<1>{}), make_layout(Int<3>{}, Int<1>{}));
  CHECK(offsets(lp) == std::vector<long long>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("blocked_product keeps blocks contiguous, raked_product interleaves them", "[core][product]") {
  constexpr int BM = 2, BN = 2, TM = 3, TN = 4;
  auto block = make_layout(make_tuple(Int<BM>{}, Int<BN>{}));
  auto tiler = make_layout(make_tuple(Int<TM>{}, Int<TN>{}));
  auto blocked = blocked_product(block, tiler);
  auto raked = raked_product(block, tiler);
  REQUIRE(size<0>(blocked) == BM * TM);
  REQUIRE(size<1>(blocked) == BN * TN);
  REQUIRE(size<0>(raked) == BM * TM);
  for (int r = 0; r < BM * TM; ++r)
    for (int c = 0; c < BN * TN; ++c) {
      // blocked: row r is element r % BM of block r / BM
      REQUIRE(blocked(r, c) == block(r % BM, c % BN) + size(block) * tiler(r / BM, c / BN));
      // raked: row r is element r / TM of block r % TM
      REQUIRE(raked(r, c) == block(r / TM, c / TN) + size(block) * tiler(r % TM, c % TN));
    }
  STATIC_REQUIRE(is_static_layout_v<decltype(blocked)>);
}

TEST_CASE("products of row-major blocks and tilers", "[core][product][property]") {
  auto block = make_layout_row_major(make_tuple(Int<2>{}, Int<4>{}));
  auto tiler = make_layout_row_major(make_tuple(Int<4>{}, Int<2>{}));
  auto blocked = blocked_product(block, tiler);
  auto raked = raked_product(block, tiler);
  REQUIRE(is_injective(blocked));
  REQUIRE(is_injective(raked));
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      REQUIRE(blocked(r, c) == block(r % 2, c % 4) + 8 * tiler(r / 2, c / 4));
      REQUIRE(raked(r, c) == block(r / 4, c / 2) + 8 * tiler(r % 4, c % 2));
    }
}
