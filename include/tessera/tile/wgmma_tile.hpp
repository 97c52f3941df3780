// The wgmma shared-memory descriptors of the tiles an operand is staged in.
//
// K-major: a swizzled tile (tile/smem_layout.hpp) of Rows of M (or N) by Cols of K, each row one
// 32-, 64- or 128-byte swizzle span. SwizzledTile's XOR pattern is then exactly wgmma's (16-byte
// chunks of a row permuted by the low bits of the row index), so the tensor cores read the tile
// that cp.async or TMA wrote.
//
//   auto desc = tile::k_major_descriptor<Tile>(smem_address(tile_base));   // k-step 0
//   desc.advanced(ks * 16 * sizeof(T))                                       // k-step ks (16 bytes x 2)
//
// MN-major (16-bit types): MnMajorTile<T, MN, K> is MN / 64 blocks of 64 MN elements (one
// 128-byte swizzle span) by K rows, each a SwizzledTile<T, K, 64> -- what a TMA box of
// 64 x K elements of a column-major A (or row-major B) writes with the 128-byte swizzle. The
// descriptor steps between the blocks with the leading byte offset (K x 128 bytes) and between
// groups of 8 K rows with the stride byte offset (1024 bytes); a k-step of 16 K rows advances the
// start by 2048 bytes.
//
//   auto desc = tile::mn_major_descriptor<Tile>(smem_address(tile_base));  // k-step 0
//   desc.advanced(ks * 2048)                                                 // k-step ks
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

// An MN-major operand tile: MN / BlockMN blocks, each K rows of BlockMN contiguous MN elements
// (BlockMN 64: 128-byte rows and the 128-byte swizzle; 32: 64-byte rows and the 64-byte swizzle;
// 16: 32 and 32), the blocks one after the other. The PTX ISA's canonical MN-major layouts: the
// blocks LBO apart, K rows one block row apart in groups of 8 that are SBO apart.
template <class T, int MN, int K, int BlockMN = 64>
struct MnMajorTile {
  static_assert(sizeof(T) == 2, "tile::MnMajorTile: wgmma reads MN-major operands of 16-bit types only; use bfloat16_t or half_t "
                                "(stage tf32 and 8-bit operands K-major)");
  static_assert(BlockMN == 64 || BlockMN == 32 || BlockMN == 16,
                "tile::MnMajorTile: a block is one 128-, 64- or 32-byte swizzle span of MN; use BlockMN = 64, 32 or 16");
  static_assert(MN % BlockMN == 0 && K % 16 == 0,
                "tile::MnMajorTile: MN must be whole BlockMN-element blocks and K whole 16-row k-steps; use MN = 64, 128, "
                "192 or 256 (or a smaller BlockMN) and K = 64");
  using Block = SwizzledTile<T, K, BlockMN>;
  static constexpr int blocks = MN / BlockMN;
  static constexpr int block_elements = Block::size;
  static constexpr int size = MN * K;
  static constexpr int row_bytes = BlockMN * int(sizeof(T));
  static constexpr arch::sm90::WgmmaSwizzle swizzle = row_bytes == 128 ? arch::sm90::WgmmaSwizzle::k128B
                                                      : row_bytes == 64 ? arch::sm90::WgmmaSwizzle::k64B
                                                                        : arch::sm90::WgmmaSwizzle::k32B;
  // (mn, k) -> element offset.
  TESSERA_HD static constexpr int offset(int mn, int k) {
    return (mn / BlockMN) * block_elements + int(Block::layout()(k, mn % BlockMN));
  }
  static constexpr std::uint32_t lbo_bytes = std::uint32_t(block_elements * int(sizeof(T)));  // between MN blocks
  static constexpr std::uint32_t sbo_bytes = 8 * row_bytes;                                   // between 8-row K groups
  static constexpr std::uint32_t k_step_bytes = 16 * row_bytes;                               // 16 K rows
  static constexpr std::uint32_t pattern_bytes = 8 * row_bytes;                               // the base's alignment
};

template <class Tile>
TESSERA_HD constexpr arch::sm90::WgmmaDescriptor mn_major_descriptor(std::uint32_t smem_address) {
  return arch::sm90::WgmmaDescriptor::make(smem_address, Tile::lbo_bytes, Tile::sbo_bytes, Tile::swizzle);
}

}  // namespace tessera::tile
