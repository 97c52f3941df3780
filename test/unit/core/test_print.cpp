// Printing: static extents with a leading underscore, run-time ones plain.
#include <catch2/catch.hpp>

#include "tessera/core/layout.hpp"
#include "tessera/core/print.hpp"
#include "tessera/core/swizzle.hpp"

using namespace tessera;

TEST_CASE("layouts print as shape:stride", "[core][print]") {
  CHECK(to_string(make_layout(make_tuple(Int<4>{}, 3))) == "(_4,3):(_1,_4)");
  CHECK(to_string(make_layout(make_tuple(make_tuple(Int<2>{}, Int<2>{}), -5), make_tuple(make_tuple(Int<1>{}, Int<6>{}), 12))) ==
        "((_2,_2),-5):((_1,_6),12)");
  CHECK(to_string(make_tuple(1, Int<2>{})) == "(1,_2)");
  CHECK(to_string(42) == "42");
  CHECK(to_string(composition(Swizzle<3, 3, 3>{}, make_layout(Int<64>{}, Int<1>{}))) == "Sw<3,3,3> o _64:_1");
}
