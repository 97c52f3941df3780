// AMD buffer resources and the host model of buffer loads (arch/gfx9/buffer.hpp): the descriptor's
// fields bit by bit, and the range check (zero past the end, per dword) that the gfx9 GEMM's tile
// copies rely on.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tessera/arch/gfx9/buffer.hpp"

using namespace tessera::arch::gfx9;

TEST_CASE("gfx9 buffer resource fields sit at their bits", "[arch][gfx9][buffer]") {
  // Base address in bits 0-47, stride 0 (bits 48-61) and no swizzle (62-63), num_records in 64-95.
  constexpr BufferResource r = make_buffer_resource(std::uint64_t(0x7FED'CBA9'8760), 1000);
  STATIC_REQUIRE(r.word[0] == 0xCBA98760u);
  STATIC_REQUIRE(r.word[1] == 0x7FEDu);
  STATIC_REQUIRE(r.word[2] == 1000u);
  // Word 3: DST_SEL_X..W (bits 0-11) and NUM_FORMAT (12-14) zero, DATA_FORMAT (15-18) = 4 (32 bits).
  STATIC_REQUIRE(r.word[3] == 0x00020000u);
  STATIC_REQUIRE(((r.word[3] >> 15) & 0xF) == 4);
  STATIC_REQUIRE((r.word[3] & ~(0xFu << 15)) == 0);
  // Bits 48-63 of the address never reach the stride and swizzle fields.
  constexpr BufferResource high = make_buffer_resource(~std::uint64_t(0), 16);
  STATIC_REQUIRE(high.word[1] == 0xFFFFu);
}

TEST_CASE("gfx9 buffer resource sizes: whole dwords, capped below the out-of-range offset", "[arch][gfx9][buffer]") {
  STATIC_REQUIRE(make_buffer_resource(std::uint64_t(0), 0).word[2] == 0);
  STATIC_REQUIRE(make_buffer_resource(std::uint64_t(0), 1).word[2] == 4);
  STATIC_REQUIRE(make_buffer_resource(std::uint64_t(0), 6).word[2] == 8);
  STATIC_REQUIRE(make_buffer_resource(std::uint64_t(0), 8).word[2] == 8);
  STATIC_REQUIRE(make_buffer_resource(std::uint64_t(0), std::uint64_t(1) << 40).word[2] == kBufferMaxBytes);
  // The out-of-range offset is past the end of the largest resource, even with a dwordx4's last dword.
  constexpr BufferResource largest = make_buffer_resource(std::uint64_t(0), std::uint64_t(1) << 40);
  STATIC_REQUIRE(!buffer_in_range(largest, kBufferOutOfRange));
  STATIC_REQUIRE(!buffer_in_range(largest, kBufferOutOfRange + 12));
  STATIC_REQUIRE(buffer_in_range(largest, kBufferOutOfRange - 4));
}

TEST_CASE("gfx9 buffer loads read in range and zero past the end, per dword", "[arch][gfx9][buffer]") {
  std::vector<std::uint8_t> memory(64);
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = std::uint8_t(0x11 + i);
  BufferResource const r = make_buffer_resource(memory.data(), 22);  // 22 bytes: 24 once rounded
  REQUIRE(r.word[2] == 24);

  // A 16-byte load that crosses the end: its first dwords are read, the rest are zero.
  Dwords4 const v = buffer_load<Dwords4>(r, 16);
  std::uint32_t first;
  std::memcpy(&first, memory.data() + 16, 4);
  std::uint32_t second;
  std::memcpy(&second, memory.data() + 20, 4);  // bytes 22, 23: the rounded dword
  CHECK(v.w[0] == first);
  CHECK(v.w[1] == second);
  CHECK(v.w[2] == 0);
  CHECK(v.w[3] == 0);
  // Wholly in range, wholly out of range, and the out-of-range offset.
  Dwords4 const in = buffer_load<Dwords4>(r, 0);
  CHECK(std::memcmp(&in, memory.data(), 16) == 0);
  Dwords4 const out = buffer_load<Dwords4>(r, 32);
  CHECK((out.w[0] | out.w[1] | out.w[2] | out.w[3]) == 0);
  CHECK(buffer_load<std::uint32_t>(r, kBufferOutOfRange) == 0);
  // Narrow loads: in range as stored, out of range zero.
  std::uint16_t h;
  std::memcpy(&h, memory.data() + 6, 2);
  CHECK(buffer_load<std::uint16_t>(r, 6) == h);
  CHECK(buffer_load<std::uint16_t>(r, 24) == 0);
  CHECK(buffer_load<std::uint8_t>(r, 21) == memory[21]);
  CHECK(buffer_load<std::uint8_t>(r, 24) == 0);
  CHECK(buffer_load<std::uint8_t>(r, kBufferOutOfRange) == 0);
}
