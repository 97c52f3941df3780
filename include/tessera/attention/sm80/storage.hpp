// The sm80 attention kernel's shared memory: the query tile and the ring of K and V stages, as one
// struct (attention/sm80/kernel.hpp). Each matrix is stored in blocks of 64 head-dimension columns
// (the head dimension rounded up to 64), each block a tile::SwizzledTile<E, rows, 64>: 128-byte
// rows whose 16-byte chunks are XOR-swizzled by the row's low 3 bits, so that the cp.async writes
// of 8 consecutive chunks and the ldmatrix reads of one chunk from 8 consecutive rows each touch
// every bank once. Q and K are read as they are stored (K-major: the head dimension is the MMAs'
// k); V is read transposed (ldmatrix.trans: the keys are P V's k).
//
//   Storage<Cfg>::offset<Rows>(row, col)   // byte offset of element (row, col) in a matrix of Rows rows
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/tile/smem_layout.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
struct Storage {
  using E = typename Cfg::Element;
  static constexpr int BQ = Cfg::BQ, BKV = Cfg::BKV, Stages = Cfg::stages;
  static constexpr int d_blocks = Cfg::Dp / 64, dv_blocks = Cfg::Dvp / 64;
  static constexpr int row_bytes = 64 * int(sizeof(E));  // one block's row: 128 bytes
  static_assert(row_bytes == 128, "attention::sm80::Storage: a block's row is 128 bytes of 16-bit elements");
  static constexpr int q_block_bytes = BQ * row_bytes, kv_block_bytes = BKV * row_bytes;
  static constexpr int k_stage_bytes = d_blocks * kv_block_bytes, v_stage_bytes = dv_blocks * kv_block_bytes;

  alignas(128) E q[d_blocks][BQ * 64];
  alignas(128) E k[Stages][d_blocks][BKV * 64];
  alignas(128) E v[Stages][dv_blocks][BKV * 64];

  // The byte offset of element (row, col) (col a multiple of 8: a 16-byte chunk) in a matrix of
  // Rows rows stored this way: tile::SwizzledTile<E, Rows, 64>'s offset in block col / 64.
  template <int Rows>
  TESSERA_HD static constexpr std::uint32_t offset(int row, int col) {
    using Block = tile::SwizzledTile<E, Rows, 64>;
    return std::uint32_t((col / 64) * Rows * row_bytes + int(Block::layout()(row, col % 64)) * int(sizeof(E)));
  }
};

}  // namespace tessera::attention::sm80
