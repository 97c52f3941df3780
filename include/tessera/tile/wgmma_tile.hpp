// The wgmma shared-memory descriptor of a swizzled tile (tile/smem_layout.hpp) that holds a
// K-major operand: Rows of M (or N) by Cols of K, each row one 32-, 64- or 128-byte swizzle span.
// SwizzledTile's XOR pattern is then exactly wgmma's (16-byte chunks of a row permuted by the low
// bits of the row index), so the tensor cores read the tile that cp.async or TMA wrote.
//
//   auto desc = tile::k_major_descriptor<Tile>(smem_address(tile_base));   // k-step 0
//   desc.advanced(ks * 16 * sizeof(T))                                       // k-step ks (16 bytes x 2)
#pragma once

#include <cstdint>

#include "tessera/arch/sm90/wgmma_desc.hpp"
#include "tessera/core/swizzle.hpp"
#include "tessera/tile/smem_layout.hpp"

namespace tessera::tile {

template <class Tile>
struct WgmmaKMajor;

template <class T, int Rows, int Cols>
struct WgmmaKMajor<SwizzledTile<T, Rows, Cols>> {
  static constexpr int row_bytes = Cols * int(sizeof(T));
  static_assert(row_bytes == 32 || row_bytes == 64 || row_bytes == 128,
                "tile::k_major_descriptor: a K-major wgmma tile's rows must be one 32-, 64- or 128-byte swizzle span; "
                "use BlockTile K = 16, 32 or 64 for 16-bit types (8, 16, 32 for tf32; 32, 64, 128 for 8-bit types)");
  static_assert(Rows % 8 == 0, "tile::k_major_descriptor: the tile's rows must be whole 8-row core-matrix groups; use a "
                               "multiple of 8 rows");
  static constexpr arch::sm90::WgmmaSwizzle swizzle = row_bytes == 128 ? arch::sm90::WgmmaSwizzle::k128B
                                                      : row_bytes == 64 ? arch::sm90::WgmmaSwizzle::k64B
                                                                        : arch::sm90::WgmmaSwizzle::k32B;
  // The pattern wgmma applies to byte addresses (Swizzle<B, 4, 3>), as SwizzledTile applies it to
  // element offsets: the same bits once scaled by the element size.
  using Swz = typename SwizzledTile<T, Rows, Cols>::swizzle_type;
  static_assert(!(row_bytes == 32 || row_bytes == 64 || row_bytes == 128) ||
                    (Swz::shift == 3 && (1 << Swz::bits) * 16 == row_bytes && (1 << Swz::base) * int(sizeof(T)) == 16),
                "tile::k_major_descriptor: the tile's swizzle is not wgmma's pattern for its row width");
  static constexpr std::uint32_t sbo_bytes = 8 * row_bytes;  // between 8-row groups (packed rows)
  static constexpr std::uint32_t pattern_bytes = 8 * row_bytes;  // the base must be aligned to this
};

template <class Tile>
TESSERA_HD constexpr arch::sm90::WgmmaDescriptor k_major_descriptor(std::uint32_t smem_address) {
  using W = WgmmaKMajor<Tile>;
  return arch::sm90::WgmmaDescriptor::make(smem_address, 16, W::sbo_bytes, W::swizzle);
}

}  // namespace tessera::tile
