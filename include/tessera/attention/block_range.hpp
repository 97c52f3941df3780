// The blocks of keys a tile of queries visits, from its score chain (attention/score_chain.hpp):
// blocks of BKV keys (block n: keys [n BKV, (n + 1) BKV)) from the one holding the chain's first
// visible key to the one holding its last, so that blocks every query of the tile would mask are
// never loaded or computed; each visited block's kind says whether the chain must run on it
// (kPartial) or it may run unmasked (kFull; still through the chain where a stage modifies
// scores). The producer and the consumers walk the same range, so they agree on the blocks.
//
//   BlockRange const r = block_range(chain, Block{b, h, q0, q1, 0, k_len, q_len, k_len}, BKV);
//   for (int n = r.first; n < r.last; ++n) { BlockKind k = block_kind(chain, tile, n, BKV); ... }
//
// Keys past k_len in the last block are the kernel's to mask (they are not keys of the sequence);
// block_kind counts that block partial.
#pragma once

#include "tessera/attention/coord.hpp"
#include "tessera/core/config.hpp"

namespace tessera::attention {

struct BlockRange {
  int first, last;  // blocks [first, last)
  TESSERA_HD constexpr int size() const { return last > first ? last - first : 0; }
};

template <class Chain>
TESSERA_HD BlockRange block_range(Chain const& chain, Block const& tile, int bkv) {
  if (tile.q1 <= tile.q0) return {0, 0};
  KeyRange const keys = chain.keys(tile);
  if (keys.empty()) return {0, 0};
  return {keys.lo / bkv, (keys.hi + bkv - 1) / bkv};
}

// Block n of `tile`'s queries: kSkip, kPartial (the chain masks some of it, or it runs past k_len)
// or kFull.
template <class Chain>
TESSERA_HD BlockKind block_kind(Chain const& chain, Block const& tile, int n, int bkv) {
  int const k0 = n * bkv, k1 = k0 + bkv;
  Block b = tile;
  b.k0 = k0;
  b.k1 = k1 < tile.k_len ? k1 : tile.k_len;
  BlockKind const kind = chain.block(b);
  return kind == BlockKind::kFull && k1 > tile.k_len ? BlockKind::kPartial : kind;
}

}  // namespace tessera::attention
