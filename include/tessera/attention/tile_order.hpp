// The order in which a persistent grid walks an attention problem's tiles (a tile: BQ queries of
// one head of one batch entry). Block i of a grid of G takes the tiles of its turns j = 0, 1, ...:
//
//   natural order    tile j G + i, tiles numbered query block fastest, then head, then batch entry:
//                    a head's tiles run at the same time and share its K and V in L2. Every tile
//                    visits the same keys (no chain stage limits them), so any order balances.
//   longest first    (a chain whose stages limit the keys, as Causal: a tile's work grows with its
//                    query block) odd turns run the grid backwards (block i takes tile
//                    j G + G - 1 - i), so that the block that took a turn's longest tile takes the
//                    next turn's shortest, and the tiles are numbered
//                      - where 4 q_blocks <= G: as in the natural order, the query blocks from the
//                        last: a turn spans four heads or more, whose tiles share K and V in L2;
//                      - else: head and batch entry fastest, query block slowest from the last: a
//                        turn spans a few query blocks of every head (whose K and V are long:
//                        tiles that run together still share them), the longest tiles first.
//                    (Query blocks fastest with 4 q_blocks > G gave the busiest block 1.57 times
//                    the mean work at 16k queries of 128 and 16 heads on 132 blocks: a block's
//                    tiles stepped through the query blocks 4 at a time, 132 = 4 mod 128; query
//                    blocks slowest at 1k made every tile of a turn read its own head's K and V,
//                    0.82 times the natural order's speed, measured on the H100.)
//
// Variable lengths (cu_seqlens_q): batch entry b has ceil(len_b / BQ) query blocks; tiles are
// numbered batch entry by batch entry as in the natural order (query blocks from the last where
// longest first). A block finds its tiles' batch entries with a cursor that only moves forward
// (its tiles' numbers grow), reading each entry's length once: O(batch) reads a block in all.
//
//   TileOrder const order{q_blocks, heads, batch, longest_first};    // fixed lengths
//   TileOrder::Cursor at;
//   for (int j = 0; order.next(blockIdx.x, gridDim.x, j, at); ++j) { TileCoord t = at.tile; ... }
#pragma once

#include "tessera/core/config.hpp"

namespace tessera::attention {

struct TileCoord {
  int batch, head, q_block;
};

struct TileOrder {
  int q_blocks, heads, batch;  // q_blocks: the longest sequence's (variable lengths)
  bool longest_first;
  int const* cu_seqlens_q = nullptr;  // variable lengths: batch + 1 offsets
  int bq = 0;                         // queries a tile (variable lengths)

  // A block's place in the order: its tile, and (variable lengths) the batch entry its tiles have
  // reached, whose tiles are numbered from `first`.
  struct Cursor {
    TileCoord tile{};
    int b = 0, first = 0;
  };

  // The tiles of fixed lengths (variable lengths: at most this many).
  TESSERA_HD constexpr int tiles() const { return q_blocks * heads * batch; }
  // The tile number block `block` of a grid of `grid` takes in its turn j (-1 past the last of
  // fixed lengths).
  TESSERA_HD constexpr int at(int block, int grid, int j) const {
    int const w = j * grid + (longest_first && j % 2 == 1 ? grid - 1 - block : block);
    return w < tiles() ? w : -1;
  }
  // Tile w's coordinates (fixed lengths) in a grid of `grid` blocks.
  TESSERA_HD constexpr TileCoord coord(int w, int grid) const {
    if (longest_first && 4 * q_blocks > grid) {
      int const rows = heads * batch, hb = w % rows;
      return {hb / heads, hb % heads, q_blocks - 1 - w / rows};
    }
    int const rest = w / q_blocks, m = w % q_blocks;
    return {rest / heads, rest % heads, longest_first ? q_blocks - 1 - m : m};
  }
  // Moves `c` to the tile of turn j of `block` (j counted up from 0 with the same cursor);
  // false past the last tile.
  TESSERA_HD bool next(int block, int grid, int j, Cursor& c) const {
    int const w = at(block, grid, j);
    if (w < 0) return false;
    if (cu_seqlens_q == nullptr) {
      c.tile = coord(w, grid);
      return true;
    }
    for (;; ++c.b) {
      if (c.b >= batch) return false;
      int const blocks = (cu_seqlens_q[c.b + 1] - cu_seqlens_q[c.b] + bq - 1) / bq, count = blocks * heads;
      if (w < c.first + count) {
        int const local = w - c.first, m = local % blocks;
        c.tile = {c.b, local / blocks, longest_first ? blocks - 1 - m : m};
        return true;
      }
      c.first += count;
    }
  }
};

}  // namespace tessera::attention
