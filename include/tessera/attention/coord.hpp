// Where a score lands, and the blocks of scores a kernel works on: the vocabulary the mask and
// score stages (attention/score_chain.hpp) and the kernels share.
//
//   attention::Coord c{batch, head, q, k, q_len, k_len};   // score of query q and key k
//   attention::Block b{batch, head, q0, q1, k0, k1, q_len, k_len};  // queries [q0, q1) x keys [k0, k1)
//
// Positions count from each sequence's start; q_len and k_len are the lengths of this batch
// entry's sequences (they differ per entry in a variable-length batch), which alignments such
// as bottom-right causal need.
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"

namespace tessera::attention {

struct Coord {
  int batch;
  int head;  // the query head
  int q;     // query position in its sequence
  int k;     // key position in its sequence
  int q_len, k_len;
};

// A block of scores: queries [q0, q1) against keys [k0, k1) of one batch entry and head.
struct Block {
  int batch, head;
  int q0, q1, k0, k1;
  int q_len, k_len;
};

// What a stage (or a chain) does to a whole block: masks every score (the block is skipped, not
// computed), masks some, or masks none.
enum class BlockKind : std::uint8_t { kSkip, kPartial, kFull };

// Keys [lo, hi) (hi <= lo: none).
struct KeyRange {
  int lo, hi;
  TESSERA_HD constexpr bool empty() const { return hi <= lo; }
};

}  // namespace tessera::attention
