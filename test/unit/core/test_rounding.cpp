// core/rounding.hpp: the constants match what the types' conversions do: 1 + 2u is the next value
// after 1 and 1 + u/2 rounds back to 1; the subnormal spacing is representable and a quarter of it
// rounds to zero.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "tessera/core/rounding.hpp"

using namespace tessera;

namespace {
template <class T>
double round_trip(double x) {
  if constexpr (std::is_same_v<T, float>) return double(float(x));
  else return double(T(float(x)).to_float());
}

template <class T>
void check_constants() {
  double const u = unit_roundoff<T>(), s = subnormal_spacing<T>();
  REQUIRE(u > 0);
  CHECK(round_trip<T>(1.0 + 2 * u) == 1.0 + 2 * u);
  CHECK(round_trip<T>(1.0 + 0.5 * u) == 1.0);
  CHECK(round_trip<T>(1.0 + 3 * u) != 1.0 + 3 * u);  // between two neighbours: nothing finer than 2u
  CHECK(round_trip<T>(s) == s);
  CHECK(round_trip<T>(0.25 * s) == 0.0);
}
}  // namespace

TEST_CASE("rounding constants match the conversions", "[core][rounding]") {
  SECTION("bfloat16") { check_constants<bfloat16_t>(); }
  SECTION("half") { check_constants<half_t>(); }
  SECTION("float") { check_constants<float>(); }
  SECTION("float8_e4m3") { check_constants<float8_e4m3_t>(); }
  SECTION("float8_e5m2") { check_constants<float8_e5m2_t>(); }
  CHECK(unit_roundoff<std::int32_t>() == 0.0);
  CHECK(subnormal_spacing<std::int8_t>() == 0.0);
}
