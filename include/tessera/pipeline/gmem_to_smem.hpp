// Global -> shared memory copy of one tile, as cp.async vectors where alignment allows.
//
// The tile is Rows x Cols with Cols contiguous both in global memory (leading dimension ld) and in
// the shared tile. Elements outside the matrix (row >= rows or col >= cols) are written as zeros,
// so that residue tiles need no special case downstream: the zeros add nothing to the product.
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/core/config.hpp"

namespace tessera::pipeline {

// VecBytes: 16 (the fast path: ld and the base pointer 16-byte aligned), 8 or 4 (narrower cp.async),
// or sizeof(T) for 16-bit elements at odd alignment (plain loads and stores).
template <int Rows, int Cols, int Threads, int VecBytes, class T, class Offset>
TESSERA_DEVICE void copy_tile(T* smem, Offset const& offset, T const* gmem, std::int64_t ld, int row0, int col0, int rows,
                              int cols, int tid) {
  static_assert(VecBytes % sizeof(T) == 0, "copy_tile: the vector width must be a whole number of elements");
  constexpr int E = VecBytes / int(sizeof(T));
  static_assert(Cols % E == 0, "copy_tile: the tile's contiguous extent must be a multiple of the vector width");
  constexpr int per_row = Cols / E;
  constexpr int total = Rows * per_row;
  // Vector copies unroll fully (a few per thread); element copies would unroll into hundreds of
  // live registers, so they stay a loop.
TESSERA_UNROLL_N(VecBytes >= 4 ? (total + Threads - 1) / Threads : 1)
  for (int it = 0; it < (total + Threads - 1) / Threads; ++it) {
    int const i = tid + it * Threads;
    if (total % Threads != 0 && i >= total) break;
    int const r = i / per_row;
    int const c = (i % per_row) * E;
    int const gr = row0 + r;
    int const gc = col0 + c;
    int const left = cols - gc;
    int const valid = gr < rows ? (left < 0 ? 0 : (left > E ? E : left)) : 0;
    T const* src = valid > 0 ? gmem + gr * ld + gc : gmem;  // a valid address even when nothing is read
    T* dst = smem + offset(r, c);
    if constexpr (VecBytes >= 4) {
      arch::cp_async_zfill<VecBytes>(arch::smem_address(dst), src, valid * int(sizeof(T)));
    } else {
      *dst = valid > 0 ? *src : T{};
    }
  }
}

}  // namespace tessera::pipeline
