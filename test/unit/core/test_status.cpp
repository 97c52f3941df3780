// Status carries a code and a message that says what is wrong.
#include <catch2/catch.hpp>

#include "tessera/core/concepts.hpp"
#include "tessera/core/status.hpp"

using namespace tessera;

namespace {
Status check_positive(int m) {
  if (m <= 0) return Status::invalid_argument("M = " + std::to_string(m) + " must be at least 1");
  return Status::success();
}
Status check_both(int m, int n) {
  TESSERA_RETURN_IF_ERROR(check_positive(m));
  TESSERA_RETURN_IF_ERROR(check_positive(n));
  return Status::success();
}
}  // namespace

TEST_CASE("Status reports success and failures with their message", "[core][status]") {
  CHECK(check_both(3, 4).ok());
  CHECK(bool(check_both(3, 4)));
  Status s = check_both(3, -2);
  CHECK_FALSE(s.ok());
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "invalid argument: M = -2 must be at least 1");
  CHECK(Status::misaligned("A is not 16-byte aligned").message() == "misaligned: A is not 16-byte aligned");
  CHECK(Status().message() == "success");
}

TEST_CASE("concepts classify the core types", "[core][concepts]") {
  STATIC_REQUIRE(Integral<int>);
  STATIC_REQUIRE(Integral<Int<3>>);
  STATIC_REQUIRE(!Integral<float>);
  STATIC_REQUIRE(!Integral<bool>);
  STATIC_REQUIRE(StaticIntegral<Int<3>>);
  STATIC_REQUIRE(!StaticIntegral<int>);
  STATIC_REQUIRE(IntTuple<Tuple<int, Tuple<Int<2>>>>);
  STATIC_REQUIRE(LayoutType<decltype(make_layout(4))>);
  STATIC_REQUIRE(StaticLayout<decltype(make_layout(Int<4>{}))>);
  STATIC_REQUIRE(!StaticLayout<decltype(make_layout(4))>);
}
