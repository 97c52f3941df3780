// Swizzle: a bijection and an involution; the 128-byte swizzle makes 8 rows' 16-byte chunks land
// in distinct bank groups.
#include <catch2/catch.hpp>

#include <set>

#include "tessera/core/layout.hpp"
#include "tessera/core/swizzle.hpp"

using namespace tessera;

template <class Swz>
void check_swizzle() {
  Swz swz;
  std::set<int> image;
  for (int x = 0; x < 4 * Swz::period; ++x) {
    int y = swz(x);
    REQUIRE(swz(y) == x);  // involution
    REQUIRE(y / Swz::period == x / Swz::period);  // stays within its block
    image.insert(y);
  }
  REQUIRE(int(image.size()) == 4 * Swz::period);  // bijection
}

TEST_CASE("swizzles are bijective involutions within their period", "[core][swizzle][property]") {
  check_swizzle<Swizzle<0, 4, 3>>();
  check_swizzle<Swizzle<1, 4, 3>>();
  check_swizzle<Swizzle<2, 4, 3>>();
  check_swizzle<Swizzle<3, 4, 3>>();
  check_swizzle<Swizzle<3, 3, 3>>();
  check_swizzle<Swizzle<2, 0, 4>>();
  STATIC_REQUIRE(decltype(Swizzle<3, 3, 3>{}(Int<64>{}))::value == 64 + 8);  // static in, static out
}

TEST_CASE("Swizzle<3,3,3> over an 8x64 half tile spreads each column of chunks over all bank groups",
          "[core][swizzle]") {
  // Row-major 8 x 64 halves: each row is 128 bytes = 8 chunks of 16 bytes.
  auto tile = composition(Swizzle<3, 3, 3>{}, make_layout(make_tuple(Int<8>{}, Int<64>{}), make_tuple(Int<64>{}, Int<1>{})));
  for (int chunk = 0; chunk < 8; ++chunk) {
    std::set<int> groups;  // 16-byte bank group of (row, chunk) = (offset in bytes / 16) % 8
    for (int row = 0; row < 8; ++row) {
      int offset_bytes = tile(row, chunk * 8) * 2;
      groups.insert((offset_bytes / 16) % 8);
      // the 8 halves of a chunk stay together
      for (int e = 1; e < 8; ++e) REQUIRE(tile(row, chunk * 8 + e) == tile(row, chunk * 8) + e);
    }
    REQUIRE(groups.size() == 8);
  }
  REQUIRE(size(tile) == 512);
  REQUIRE(cosize(tile) == 512);
}
