// The wgmma shared-memory matrix descriptor (arch/sm90/wgmma_desc.hpp), bit by bit.
#include <catch2/catch.hpp>

#include <cstdint>

#include "tessera/arch/sm90/wgmma_desc.hpp"

using tessera::arch::sm90::WgmmaDescriptor;
using tessera::arch::sm90::WgmmaSwizzle;

TEST_CASE("wgmma descriptor fields sit at their bits", "[arch][sm90][wgmma]") {
  // start 0x12340 -> 0x1234 in bits 0-13; LBO 16 -> 1 in bits 16-29; SBO 1024 -> 64 in bits 32-45;
  // 128-byte swizzle -> 1 in bits 62-63.
  constexpr WgmmaDescriptor d = WgmmaDescriptor::make(0x12340, 16, 1024, WgmmaSwizzle::k128B);
  STATIC_REQUIRE(d.bits == 0x4000004000011234ull);
  STATIC_REQUIRE(WgmmaDescriptor::make(0, 0, 0, WgmmaSwizzle::k64B).bits == (2ull << 62));
  STATIC_REQUIRE(WgmmaDescriptor::make(0, 0, 0, WgmmaSwizzle::k32B).bits == (3ull << 62));
  STATIC_REQUIRE(WgmmaDescriptor::make(0, 0, 0, WgmmaSwizzle::kNone).bits == 0);
  STATIC_REQUIRE(WgmmaDescriptor::make(0, 0, 0, WgmmaSwizzle::kNone, 5).bits == (5ull << 49));
  // The largest values each field holds: 18-bit byte quantities in 16-byte units.
  constexpr WgmmaDescriptor full = WgmmaDescriptor::make(0x3FFF0, 0x3FFF0, 0x3FFF0, WgmmaSwizzle::k32B, 7);
  STATIC_REQUIRE(full.bits == 0xC00E3FFF3FFF3FFFull);
  // Reserved bits stay clear: 14-15, 30-31, 46-48, 52-61.
  STATIC_REQUIRE((full.bits & 0x3FF1C000C000C000ull) == 0);
}

TEST_CASE("wgmma descriptor fields read back", "[arch][sm90][wgmma]") {
  for (std::uint32_t addr : {0u, 16u, 1024u, 0x1F400u, 0x38FF0u})
    for (std::uint32_t sbo : {16u, 256u, 512u, 1024u, 4096u})
      for (auto sw : {WgmmaSwizzle::kNone, WgmmaSwizzle::k32B, WgmmaSwizzle::k64B, WgmmaSwizzle::k128B}) {
        auto const d = WgmmaDescriptor::make(addr, 128, sbo, sw, 3);
        CHECK(d.start_address() == addr);
        CHECK(d.lbo_bytes() == 128);
        CHECK(d.sbo_bytes() == sbo);
        CHECK(d.base_offset() == 3);
        CHECK(d.swizzle() == sw);
      }
  // Low 4 bits of the byte quantities are dropped (16-byte units).
  CHECK(WgmmaDescriptor::make(0x1234F, 31, 1039, WgmmaSwizzle::k128B).start_address() == 0x12340);
  CHECK(WgmmaDescriptor::make(0x1234F, 31, 1039, WgmmaSwizzle::k128B).lbo_bytes() == 16);
  CHECK(WgmmaDescriptor::make(0x1234F, 31, 1039, WgmmaSwizzle::k128B).sbo_bytes() == 1024);
}

TEST_CASE("advancing a wgmma descriptor moves only its start address", "[arch][sm90][wgmma]") {
  auto const d = WgmmaDescriptor::make(0x8000, 16, 1024, WgmmaSwizzle::k128B);
  auto const k1 = d.advanced(32);  // one bf16 k-step of 16 elements
  CHECK(k1.start_address() == 0x8020);
  CHECK(k1.sbo_bytes() == 1024);
  CHECK(k1.lbo_bytes() == 16);
  CHECK(k1.swizzle() == WgmmaSwizzle::k128B);
  CHECK(d.advanced(0x4000).start_address() == 0xC000);  // a stage further
  CHECK((k1.bits ^ d.bits) == 2);
}
