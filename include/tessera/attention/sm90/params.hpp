// The Hopper attention kernel's parameters (attention::Attention fills them) and what they say
// about a tile: its sequences (TileInfo; fixed or variable lengths), the blocks of keys it visits,
// and where its O and LSE go (OutputStore, which attention/sm90/epilogue.hpp writes through).
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm90/tma.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/sm90/loader.hpp"
#include "tessera/attention/tile_order.hpp"

namespace tessera::attention::sm90 {

// A tile of queries: BQ queries from q0 of head h of batch entry b, the sequences' lengths; in
// memory, its sequences start at positions q_start and k_start of batch entry mb (variable
// lengths: of the packed tokens, mb = 0; fixed: q_start = k_start = 0, mb = b).
struct TileInfo {
  int b, h, hk, q0, q_len, k_len;
  int mb, q_start, k_start;
};

template <class Cfg>
struct Params {
  typename Loader<Cfg>::Params load;
  typename Cfg::Chain chain;
  int batch, heads, group, q_len, k_len, q_blocks;  // (variable lengths: the longest sequences')
  float scale;                                      // the scores': the softmax scale (fp8: times Q's and K's scales)
  float v_scale = 1.0f;                             // fp8: V's scale
  Strides o_strides;
  typename Cfg::Output* o;
  float* lse;                                       // null: not written
  int const *cu_q = nullptr, *cu_k = nullptr;       // variable lengths: batch + 1 offsets each
  std::int64_t total_q = 0, total_k = 0;            // variable lengths: the packed tokens (LSE's row: total_q)
  TESSERA_HD TileOrder order() const { return {q_blocks, heads, batch, Cfg::Chain::limits_keys, cu_q, Cfg::BQ}; }
  TESSERA_HD int tiles() const { return order().tiles(); }

  // A tile's sequences: batch entry c.batch's (variable lengths: at its offsets in the tokens of
  // batch entry 0).
  TESSERA_DEVICE TileInfo tile(TileCoord const& c) const {
    if (cu_q == nullptr) return TileInfo{c.batch, c.head, c.head / group, c.q_block * Cfg::BQ, q_len, k_len, c.batch, 0, 0};
    // (Lengths clipped to the longest the problem states and the tokens it holds: offsets that
    // break Problem::variable_lengths's contract leave rows unwritten, never write past O or LSE.)
    int const q_start = cu_q[c.batch], k_start = cu_k[c.batch];
    int const ql = min(min(cu_q[c.batch + 1] - q_start, q_len), int(max(std::int64_t(0), total_q - q_start)));
    int const kl = min(min(cu_k[c.batch + 1] - k_start, k_len), int(max(std::int64_t(0), total_k - k_start)));
    return TileInfo{c.batch, c.head, c.head / group, c.q_block * Cfg::BQ, ql, kl, 0, q_start, k_start};
  }
  // The blocks of keys tile t visits.
  TESSERA_DEVICE BlockRange range(TileInfo const& t) const {
    int const q1 = t.q0 + Cfg::BQ < t.q_len ? t.q0 + Cfg::BQ : t.q_len;
    return block_range(chain, Block{t.b, t.h, t.q0, q1, 0, t.k_len, t.q_len, t.k_len}, Cfg::BKV);
  }
};

// Tile t's O and LSE to memory: pairs of O by the threads, O's boxes by TMA, the LSE a row at a time.
template <class Cfg>
struct OutputStore {
  Params<Cfg> const& p;
  TileInfo const& t;
  TESSERA_DEVICE void operator()(int q, int col, std::uint32_t pair) const {
    *reinterpret_cast<std::uint32_t*>(p.o + p.o_strides.offset(t.mb, t.q_start + q, t.h) + col) = pair;
  }
  // Whether a TMA box of the 64 rows from row0 holds only this tile's rows (variable lengths: the
  // next sequence's follow; fixed: the map's extent clips).
  TESSERA_DEVICE bool staged(int row0) const { return p.cu_q == nullptr || t.q0 + row0 + 64 <= t.q_len; }
  TESSERA_DEVICE void tma(int j, int row0, std::uint32_t smem) const {
    arch::sm90::tma_store_4d(&p.load.o, 64 * j, t.q_start + t.q0 + row0, t.h, t.mb, smem);
  }
  TESSERA_DEVICE void lse(int q, float value) const {  // Problem::lse_offset
    if (p.lse == nullptr) return;
    if (p.cu_q != nullptr) p.lse[t.h * p.total_q + t.q_start + q] = value;
    else p.lse[(std::int64_t(t.b) * p.heads + t.h) * t.q_len + q] = value;
  }
};

}  // namespace tessera::attention::sm90
