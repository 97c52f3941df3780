// Global -> shared memory copy of one tile, as cp.async vectors where alignment allows.
//
// The tile is Rows x Cols with Cols contiguous both in global memory (leading dimension ld) and in
// the shared tile. Elements outside the matrix (row >= rows or col >= cols) are written as zeros,
// so that residue tiles need no special case downstream: the zeros add nothing to the product.
#pragma once

#include <bit>
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

// The same copy with each thread's addresses computed once: a thread always copies the same
// column of vectors (Threads is a multiple of the vectors per row), every Threads / per_row rows,
// so its source advances by a pointer increment and its destination is a fixed offset per stage.
// Used by the GEMM mainloop, once per k-tile.
template <int Rows, int Cols, int Threads, int VecBytes, class T, class Tile>
struct TileCopy {
  static constexpr int E = VecBytes / int(sizeof(T));
  static constexpr int per_row = Cols / E;
  static constexpr int row_step = Threads / per_row;  // rows between a thread's vectors
  static constexpr int iters = (Rows + row_step - 1) / row_step;
  static constexpr bool applicable = VecBytes >= 4 && Threads % per_row == 0 &&
                                     Tile::swizzle_row_bits <= std::countr_zero(unsigned(row_step > 0 ? row_step : 1));

  T const* src;            // this thread's first vector in global memory
  std::int64_t row_pitch;  // elements between its vectors (row_step rows)
  std::uint32_t dst;       // byte offset of its first vector in a stage
  int row, col;            // global coordinate of its first vector
  int tile_row;            // its first vector's row within the tile

  TESSERA_DEVICE TileCopy(T const* gmem, std::int64_t ld, int row0, int col0, int tid) {
    int const r = tid / per_row, c = (tid % per_row) * E;
    tile_row = r;
    row = row0 + r;
    col = col0 + c;
    src = gmem + row * ld + col;
    row_pitch = row_step * ld;
    dst = std::uint32_t(Tile::layout()(r, c)) * sizeof(T);
  }

  // Copies the tile at the current position into the stage at shared address `stage`. The
  // caller guarantees that a vector lies wholly inside or wholly outside the matrix (the
  // contiguous extent is a multiple of the vector). Vectors past the K extent become zeros: they
  // meet the other operand's in-bounds values in the product. Vectors past the M (or N) extent
  // are skipped: they feed only outputs outside the matrix, which are never stored, so what the
  // stage holds there does not matter. KAlongCols: K is the contiguous (column) dimension.
  // Each source address is the base plus a multiple of the row pitch, not a chained pointer:
  // a chained pointer would make each copy wait until the previous one has read its address.
  template <bool KAlongCols>
  TESSERA_DEVICE void copy(std::uint32_t stage, int rows, int cols) const {
    bool const col_in = col < cols;
    TESSERA_UNROLL
    for (int it = 0; it < iters; ++it) {
      if (Rows % row_step != 0 && tile_row + it * row_step >= Rows) break;
      bool const row_in = row + it * row_step < rows;
      arch::cp_async_guarded<VecBytes>(stage + dst + std::uint32_t(it * row_step * Cols * int(sizeof(T))),
                                       src + it * row_pitch, KAlongCols ? row_in : col_in,
                                       KAlongCols ? !col_in : !row_in);
    }
  }

  // Moves to the next tile: dr rows and dc columns further (one of them is the k-tile's extent).
  TESSERA_DEVICE void advance(int dr, int dc, std::int64_t ld) {
    row += dr;
    col += dc;
    src += dr * ld + dc;
  }
};

}  // namespace tessera::pipeline
