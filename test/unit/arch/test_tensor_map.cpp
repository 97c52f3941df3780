// Tensor maps (arch/sm90/tensor_map.hpp): wrong arguments are refused with a message that names
// the fix, before the driver is asked; right ones are encoded where a driver is, and refused with
// a message that says so where none is (CI).
#include <catch2/catch.hpp>

#if TESSERA_TEST_CUDA_HEADERS
#include <cstdint>

#include "tessera/arch/sm90/tensor_map.hpp"

using namespace tessera;
using arch::sm90::make_tensor_map_2d;
using arch::sm90::TmaDescriptor;
using arch::sm90::TmaSwizzle;

namespace {
// Never dereferenced: the checks read only the address.
bfloat16_t const* fake_address(std::uintptr_t a) { return reinterpret_cast<bfloat16_t const*>(a); }

void check_refused(Status const& s, StatusCode code, char const* words) {
  INFO(s.message());
  CHECK(s.code() == code);
  CHECK_THAT(s.message(), Catch::Contains("tensor map:") && Catch::Contains(words));
}
}  // namespace

TEST_CASE("tensor maps refuse wrong arguments with the fix", "[arch][sm90][tma]") {
  TmaDescriptor map{};
  auto const base = fake_address(0x10000);
  check_refused(make_tensor_map_2d<bfloat16_t>(map, nullptr, 64, 64, 64, 64, 64, TmaSwizzle::k128B), StatusCode::kInvalidArgument,
                "null");
  check_refused(make_tensor_map_2d(map, fake_address(0x10008), 64, 64, 64, 64, 64, TmaSwizzle::k128B), StatusCode::kMisaligned,
                "16-byte aligned");
  check_refused(make_tensor_map_2d(map, base, 100, 64, 100, 64, 64, TmaSwizzle::k128B), StatusCode::kMisaligned,
                "pad the leading dimension");  // 200-byte rows
  check_refused(make_tensor_map_2d(map, base, 64, 64, 64, 64, 300, TmaSwizzle::k128B), StatusCode::kInvalidArgument, "1 to 256");
  check_refused(make_tensor_map_2d(map, base, 512, 64, 512, 128, 64, TmaSwizzle::k128B), StatusCode::kInvalidArgument,
                "wider than the 128-byte swizzle span");
  check_refused(make_tensor_map_2d(map, base, 64, 64, 64, 4, 64, TmaSwizzle::kNone), StatusCode::kInvalidArgument,
                "multiple of 16 bytes");  // 8-byte inner box
  check_refused(make_tensor_map_2d(map, base, 0, 64, 64, 64, 64, TmaSwizzle::k128B), StatusCode::kInvalidArgument, "1 to 2^32");
}

TEST_CASE("tensor maps are encoded by the driver, or refused where there is none", "[arch][sm90][tma]") {
  TmaDescriptor map{};
  Status const s = make_tensor_map_2d(map, fake_address(0x10000), 1000, 300, 1024, 64, 128, TmaSwizzle::k128B);
  INFO(s.message());
  if (arch::sm90::detail::encode_tiled() != nullptr) {
    CHECK(s.ok());
  } else {
    CHECK(s.code() == StatusCode::kNotSupported);
    CHECK_THAT(s.message(), Catch::Contains("cuTensorMapEncodeTiled is unavailable"));
  }
}
#endif
