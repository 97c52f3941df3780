// Shared memory -> registers for the sm_80 MMA atoms, through ldmatrix.
//
// A tile in shared memory is "K-major" when K is its contiguous dimension (smem(mn, k)), else
// "MN-major" (smem(k, mn)). An MMA operand fragment covers 16 rows (A) or 16 columns (B, two
// atoms) by two 16-byte chunks of K; each ldmatrix 8x8 matrix is 8 rows of one chunk, which is
// why the K-major path serves every element size (16-bit, tf32, int8), while the transposing path
// (.trans) is 16-bit only.
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/core/config.hpp"

namespace tessera::atom {

// A fragment of one m16n8kK atom: rows m0..m0+15, K elements from k0, from a K-major smem tile.
// `offset(mn, k)` gives the element offset of a 16-byte-aligned chunk start in the tile.
template <class T, class Offset>
TESSERA_DEVICE void ldmatrix_a_k_major(std::uint32_t (&r)[4], T const* tile, Offset const& offset, int m0, int k0,
                                       int lane) {
  constexpr int E = 16 / int(sizeof(T));
  int const mn = m0 + (lane % 8) + 8 * ((lane / 8) % 2);
  int const k = k0 + E * (lane / 16);
  arch::ldmatrix_x4(r, arch::smem_address(tile + offset(mn, k)));
}

// The fragments of two adjacent n-atoms (columns n0..n0+15) from a K-major smem tile:
// registers 0-1 for atom n0, 2-3 for atom n0 + 8.
template <class T, class Offset>
TESSERA_DEVICE void ldmatrix_b_k_major(std::uint32_t (&r)[4], T const* tile, Offset const& offset, int n0, int k0,
                                       int lane) {
  constexpr int E = 16 / int(sizeof(T));
  int const mn = n0 + (lane % 8) + 8 * (lane / 16);
  int const k = k0 + E * ((lane / 8) % 2);
  arch::ldmatrix_x4(r, arch::smem_address(tile + offset(mn, k)));
}

// The same from MN-major tiles (16-bit elements), transposing with ldmatrix.trans;
// `offset(k, mn)` gives the element offset.
template <class T, class Offset>
TESSERA_DEVICE void ldmatrix_a_mn_major(std::uint32_t (&r)[4], T const* tile, Offset const& offset, int m0, int k0,
                                        int lane) {
  static_assert(sizeof(T) == 2, "ldmatrix_a_mn_major: ldmatrix.trans moves 16-bit elements; use the scalar path");
  int const k = k0 + (lane % 8) + 8 * (lane / 16);
  int const mn = m0 + 8 * ((lane / 8) % 2);
  arch::ldmatrix_x4_trans(r, arch::smem_address(tile + offset(k, mn)));
}

template <class T, class Offset>
TESSERA_DEVICE void ldmatrix_b_mn_major(std::uint32_t (&r)[4], T const* tile, Offset const& offset, int n0, int k0,
                                        int lane) {
  static_assert(sizeof(T) == 2, "ldmatrix_b_mn_major: ldmatrix.trans moves 16-bit elements; use the scalar path");
  int const k = k0 + (lane % 8) + 8 * ((lane / 8) % 2);
  int const mn = n0 + 8 * (lane / 16);
  arch::ldmatrix_x4_trans(r, arch::smem_address(tile + offset(k, mn)));
}

}  // namespace tessera::atom
