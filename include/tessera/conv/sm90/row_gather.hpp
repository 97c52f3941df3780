// The Hopper convolution's gathered A tile: the producer warpgroup's 128 threads copy a k-tile's
// BM rows (GEMM rows: pixels) of 64 channels (128 bytes) with cp.async, each row read from the
// walked tensor at its pixel's coordinate through the k-tile's tap, zero-filled where that lies in
// the padding or the row lies past M. The copies land in the K-major stage layout TMA would write
// (128-byte swizzle: chunk j of row r at r 128 + 16 (j ^ r mod 8)), which wgmma reads after the
// consumers' proxy fence (pipeline::TmaPipeline with GenericWrites).
//
// Why not TMA im2col: on the H100 an im2col box of 128 pixels took about 1.6 us a k-tile against
// about 0.65 us for the GEMM's tiled k-tile of three times the bytes (docs/performance.md, the
// first conv runs), so the loads, not the tensor cores, set the speed of every 3 x 3 layer.
//
//   RowGather<BM, T> rows(thread);              // thread: 0..127 of the producer warpgroup
//   rows.start(walk, first_row);                // at each new work unit: its rows' pixels
//   rows.copy(walk, stage_a, tensor, tap, channel);   // each k-tile
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/config.hpp"

namespace tessera::conv::sm90 {

// Where GEMM row `row` reads through tap offset `tap` (per dimension: 0 depth, 1 height, 2 width):
// pixel(row) over `rows_extent` (image n, coordinates o), then the walked tensor's coordinate
// o stride + shift + tap, inside when 0 <= it < extent (else padding: zero). Fprop walks X
// (rows_extent Z, P, Q; shift -pad_before); Dgrad walks dY with the flipped filter (rows_extent
// D, H, W; stride 1; shift pad_before - dilation (filter - 1)).
struct GatherWalk {
  Array<int, 3> rows_extent, extent, stride, shift;
  int channels;  // of the walked tensor: a pixel's pitch
  int rows;      // M: rows at or past it are zero
};

template <int BM, class T>
struct RowGather {
  static constexpr int Threads = 128, Chunks = 8, rows = BM * Chunks / Threads;  // this thread's rows
  static_assert(BM % 16 == 0 && sizeof(T) == 2, "conv::sm90::RowGather: rows of 64 16-bit channels, BM a multiple of 16");
  static constexpr int kOutside = 1 << 29;  // a depth coordinate no tap brings inside: a row past M

  int chunk;          // this thread's 16-byte chunk of each row (8 channels)
  int row0;           // its first row; the others are 16 apart
  std::uint32_t dst;  // its first row's chunk in a stage (the swizzle is the same for all its rows)
  int off[rows];      // each row's tap-0 pixel as an element offset (channel 0; negative in the padding)
  int hw[rows];       // its tap-0 height and width coordinates, 16 bits each
  int d[rows];        // its tap-0 depth coordinate (kOutside past M)

  TESSERA_DEVICE explicit RowGather(int thread)
      : chunk(thread % Chunks), row0(thread / Chunks), dst(std::uint32_t(row0 * 128 + ((chunk ^ (row0 % 8)) << 4))) {}

  // The rows of the unit whose first row is `first`.
  // (32-bit: a tensor has fewer than 2^31 elements, so its pixels fewer than 2^31 too.)
  TESSERA_DEVICE void start(GatherWalk const& g, int first) {
    TESSERA_UNROLL
    for (int i = 0; i < rows; ++i) {
      int const row = first + row0 + 16 * i;
      int q = row;
      int c[3];
      TESSERA_UNROLL
      for (int dim = 2; dim >= 0; --dim) {
        c[dim] = (q % g.rows_extent[dim]) * g.stride[dim] + g.shift[dim];
        q /= g.rows_extent[dim];
      }
      off[i] = (((q * g.extent[0] + c[0]) * g.extent[1] + c[1]) * g.extent[2] + c[2]) * g.channels;
      hw[i] = int(std::uint32_t(c[1]) << 16 | (std::uint32_t(c[2]) & 0xFFFFu));
      d[i] = row < g.rows ? c[0] : kOutside;
    }
  }

  // This thread's copies of a k-tile into the stage at shared address `stage`: each row's pixel
  // through `tap` (tap position x dilation per dimension), channels channel + 8 chunk ...
  TESSERA_DEVICE void copy(GatherWalk const& g, std::uint32_t stage, T const* tensor, Array<int, 3> const& tap, int channel) const {
    int const shift = ((tap[0] * g.extent[1] + tap[1]) * g.extent[2] + tap[2]) * g.channels + channel + chunk * 8;
    TESSERA_UNROLL
    for (int i = 0; i < rows; ++i) {
      int const z = d[i] + tap[0], h = (hw[i] >> 16) + tap[1], w = int(short(hw[i] & 0xFFFF)) + tap[2];
      bool const inside = unsigned(z) < unsigned(g.extent[0]) && unsigned(h) < unsigned(g.extent[1]) && unsigned(w) < unsigned(g.extent[2]);
      arch::cp_async_zfill<16>(stage + dst + std::uint32_t(i * 16 * 128), inside ? tensor + (off[i] + shift) : tensor, inside ? 16 : 0);
    }
  }
};

}  // namespace tessera::conv::sm90
