// Shared-memory tile layouts: a Rows x Cols tile whose Cols dimension is contiguous, with its
// 16-byte chunks XOR-swizzled so that reading one 16-byte chunk from each of 8 consecutive rows
// (ldmatrix), or writing consecutive chunks (cp.async), touches every bank once.
//
// With E = 16 / sizeof(T) elements per chunk and rows of Cols * sizeof(T) bytes:
//   Swizzle<B, log2 E, S>, B = log2 of the chunks per row (at most 3: 8 chunks span all 32 banks),
//   S = max(3, log2(Cols / E)): the chunk index is XORed with the row bits that sit above 128 bytes.
// Examples for 16-bit T: 32 columns (64-byte rows) -> Swizzle<2,3,3>; 64 -> Swizzle<3,3,3>;
// 128 (256-byte rows) -> Swizzle<3,3,4>.
#pragma once

#include <bit>

#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/swizzle.hpp"

namespace tessera::tile {

template <class T, int Rows, int Cols>
struct SwizzledTile {
  static constexpr int elements_per_chunk = 16 / int(sizeof(T));
  static_assert(16 % sizeof(T) == 0, "SwizzledTile: the element size must divide 16 bytes; use 1, 2, 4, 8 or 16-byte types");
  static_assert(Cols % elements_per_chunk == 0 && std::has_single_bit(unsigned(Cols)),
                "SwizzledTile: the contiguous extent must be a power of two and a whole number of 16-byte chunks; "
                "use 16-byte multiples such as 32 or 64 elements of a 16-bit type");
  static constexpr int chunks_per_row = Cols / elements_per_chunk;
  static constexpr int base = std::countr_zero(unsigned(elements_per_chunk));
  static constexpr int bits = std::countr_zero(unsigned(chunks_per_row)) < 3 ? std::countr_zero(unsigned(chunks_per_row)) : 3;
  static constexpr int shift = std::countr_zero(unsigned(chunks_per_row)) > 3 ? std::countr_zero(unsigned(chunks_per_row)) : 3;
  using swizzle_type = Swizzle<bits, base, shift>;

  // How many low bits of the row index the swizzle reads: adding a multiple of 2^swizzle_row_bits
  // rows to a coordinate adds rows * Cols to its offset, unswizzled (address arithmetic relies on it).
  static constexpr int log2_cols = std::countr_zero(unsigned(Cols));
  static constexpr int swizzle_row_bits = base + shift + bits - log2_cols > 0 ? base + shift + bits - log2_cols : 0;

  // (row, col) -> element offset.
  TESSERA_HD static constexpr auto layout() {
    return composition(swizzle_type{}, make_layout(make_tuple(Int<Rows>{}, Int<Cols>{}), make_tuple(Int<Cols>{}, _1{})));
  }
  static constexpr int size = Rows * Cols;
};

}  // namespace tessera::tile
