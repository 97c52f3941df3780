// A K-major swizzled tile and its wgmma descriptor describe the same bytes: a host model of how
// the tensor cores address a K-major operand through a descriptor (the PTX ISA's canonical
// layouts: row r of k-step s at start + (r / 8) * SBO + (r % 8) * span + 2-byte k offset, then
// the swizzle XOR on address bits [4, 4 + B) from bits [7, 7 + B)) must land every element where
// SwizzledTile's layout put it, for every k-step of the tile.
#include <catch2/catch.hpp>

#include <cstdint>

#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/wgmma_tile.hpp"

using namespace tessera;
using arch::sm90::WgmmaDescriptor;
using arch::sm90::WgmmaSwizzle;

namespace {

// The byte address the tensor cores read for element (row, k) of the operand (k within the
// k-step the descriptor starts at; K-major, swizzled).
std::uint32_t model_address(WgmmaDescriptor d, int row, int k_bytes) {
  int const span = arch::sm90::swizzle_bytes(d.swizzle());
  std::uint32_t const a = d.start_address() + std::uint32_t(row / 8) * d.sbo_bytes() + std::uint32_t(row % 8 * span + k_bytes);
  int const bits = span == 128 ? 3 : span == 64 ? 2 : 1;
  std::uint32_t const mask = ((1u << bits) - 1u) << 4;
  return a ^ ((a >> 3) & mask);  // bits [4, 4 + B) ^= bits [7, 7 + B)
}

template <class T, int Rows, int Cols>
void check_tile(std::uint32_t base) {
  using Tile = tile::SwizzledTile<T, Rows, Cols>;
  constexpr int sz = int(sizeof(T));
  constexpr int k_step_bytes = 32;  // wgmma reads 32 bytes of K per row per instruction
  INFO(Rows << " x " << Cols << " elements of " << sz << " bytes at " << base);
  REQUIRE(base % tile::WgmmaKMajor<Tile>::pattern_bytes == 0);
  auto const layout = Tile::layout();
  WgmmaDescriptor const d0 = tile::k_major_descriptor<Tile>(base);
  for (int step = 0; step < Cols * sz / k_step_bytes; ++step) {
    WgmmaDescriptor const d = d0.advanced(std::uint32_t(step * k_step_bytes));
    for (int row = 0; row < Rows; ++row)
      for (int kb = 0; kb < k_step_bytes; kb += sz) {
        int const col = (step * k_step_bytes + kb) / sz;
        std::uint32_t const expected = base + std::uint32_t(layout(row, col)) * sz;
        REQUIRE(model_address(d, row, kb) == expected);
      }
  }
}

}  // namespace

TEST_CASE("K-major swizzled tiles and their wgmma descriptors address the same bytes", "[tile][sm90][wgmma]") {
  check_tile<bfloat16_t, 64, 64>(0);        // 128-byte rows: BK = 64 for 16-bit types
  check_tile<bfloat16_t, 128, 64>(0x8000);
  check_tile<half_t, 256, 64>(0x4000);
  check_tile<bfloat16_t, 128, 32>(0x2000);  // 64-byte rows
  check_tile<bfloat16_t, 64, 16>(0x100);    // 32-byte rows (one k-step)
  check_tile<float, 64, 32>(0x400);       // tf32: 128-byte rows
  check_tile<float, 128, 16>(0x1000);
  check_tile<std::int8_t, 64, 128>(0x400);  // 8-bit types: 128-byte rows
  check_tile<std::int8_t, 128, 64>(0x200);
}

TEST_CASE("the K-major descriptor's fields", "[tile][sm90][wgmma]") {
  using T128 = tile::SwizzledTile<bfloat16_t, 128, 64>;
  using T64 = tile::SwizzledTile<bfloat16_t, 128, 32>;
  using T32 = tile::SwizzledTile<bfloat16_t, 128, 16>;
  STATIC_REQUIRE(tile::k_major_descriptor<T128>(0x400).swizzle() == WgmmaSwizzle::k128B);
  STATIC_REQUIRE(tile::k_major_descriptor<T128>(0x400).sbo_bytes() == 1024);
  STATIC_REQUIRE(tile::k_major_descriptor<T64>(0x400).swizzle() == WgmmaSwizzle::k64B);
  STATIC_REQUIRE(tile::k_major_descriptor<T64>(0x400).sbo_bytes() == 512);
  STATIC_REQUIRE(tile::k_major_descriptor<T32>(0x400).swizzle() == WgmmaSwizzle::k32B);
  STATIC_REQUIRE(tile::k_major_descriptor<T32>(0x400).sbo_bytes() == 256);
  STATIC_REQUIRE(tile::k_major_descriptor<T128>(0x400).lbo_bytes() == 16);
  STATIC_REQUIRE(tile::WgmmaKMajor<T128>::pattern_bytes == 1024);
}

namespace {

// The byte address the tensor cores read for element (mn, k) of an MN-major operand (k within the
// k-step the descriptor starts at): the PTX ISA's canonical MN-major layout with a span-byte
// swizzle -- span / element_bytes-element MN blocks LBO apart, K rows span bytes apart in groups of
// 8 that are SBO apart, MN contiguous -- then the same address swizzle as for K-major tiles.
std::uint32_t model_address_mn(WgmmaDescriptor d, int mn, int k, int element_bytes) {
  int const span = arch::sm90::swizzle_bytes(d.swizzle()), block = span / element_bytes;
  std::uint32_t const a = d.start_address() + std::uint32_t(mn / block) * d.lbo_bytes() + std::uint32_t(k / 8) * d.sbo_bytes() +
                          std::uint32_t(k % 8 * span + mn % block * element_bytes);
  int const bits = span == 128 ? 3 : span == 64 ? 2 : 1;
  return a ^ ((a >> 3) & (((1u << bits) - 1u) << 4));
}

template <class T, int MN, int K, int BlockMN = 64>
void check_mn_tile(std::uint32_t base) {
  using Tile = tile::MnMajorTile<T, MN, K, BlockMN>;
  INFO(MN << " x " << K << " MN-major, blocks of " << BlockMN << ", at " << base);
  REQUIRE(base % Tile::pattern_bytes == 0);
  WgmmaDescriptor const d0 = tile::mn_major_descriptor<Tile>(base);
  for (int step = 0; step < K / 16; ++step) {
    WgmmaDescriptor const d = d0.advanced(std::uint32_t(step) * Tile::k_step_bytes);
    for (int mn = 0; mn < MN; ++mn)
      for (int k = 0; k < 16; ++k) {
        std::uint32_t const expected = base + std::uint32_t(Tile::offset(mn, step * 16 + k)) * std::uint32_t(sizeof(T));
        REQUIRE(model_address_mn(d, mn, k, int(sizeof(T))) == expected);
      }
  }
}

}  // namespace

TEST_CASE("MN-major tiles and their wgmma descriptors address the same bytes", "[tile][sm90][wgmma]") {
  check_mn_tile<bfloat16_t, 64, 64>(0);
  check_mn_tile<bfloat16_t, 128, 64>(0x8000);
  check_mn_tile<half_t, 256, 64>(0x4000);
  check_mn_tile<bfloat16_t, 192, 32>(0x400);
  check_mn_tile<bfloat16_t, 96, 128, 32>(0x200);  // 64-byte rows (attention's V at head dim 96)
  check_mn_tile<half_t, 160, 176, 32>(0x1000);
  check_mn_tile<bfloat16_t, 48, 64, 16>(0x100);   // 32-byte rows
  STATIC_REQUIRE(tile::mn_major_descriptor<tile::MnMajorTile<bfloat16_t, 96, 128, 32>>(0x400).swizzle() == WgmmaSwizzle::k64B);
  STATIC_REQUIRE(tile::mn_major_descriptor<tile::MnMajorTile<bfloat16_t, 96, 128, 32>>(0x400).sbo_bytes() == 512);
  STATIC_REQUIRE(tile::MnMajorTile<bfloat16_t, 96, 128, 32>::lbo_bytes == 8192);
  STATIC_REQUIRE(tile::MnMajorTile<bfloat16_t, 128, 64>::lbo_bytes == 8192);
  STATIC_REQUIRE(tile::mn_major_descriptor<tile::MnMajorTile<bfloat16_t, 128, 64>>(0x400).sbo_bytes() == 1024);
  STATIC_REQUIRE(tile::mn_major_descriptor<tile::MnMajorTile<bfloat16_t, 128, 64>>(0x400).swizzle() == WgmmaSwizzle::k128B);
}
