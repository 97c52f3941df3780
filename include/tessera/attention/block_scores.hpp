// The score chain on one block of scores in a register fragment: the step between S = Q K^T and
// the online softmax that every attention kernel takes. The chain runs only where the block's
// kind needs it (attention/block_range.hpp: partial blocks, or every block when a stage modifies
// scores); keys past k_len are masked there too (they are no keys of the sequence).
//
//   apply_chain(chain, scale, rows, n, BKV, s, lane);    // s: block n's scores of the queries `rows`
//   OnlineSoftmax<...> sm(chain_scale_log2<Chain>(scale));
//
// A chain that changes scores sees them in natural units (x = scale q . k: the scale applied
// here, and the softmax's exponent takes log2(e) alone); a chain of masks sees them unscaled and
// the scale stays folded into the softmax's exponent (one FFMA per score, FlashAttention's).
// The fragment is any with tile::transform(frag, thread, f(x, row, col)) (tile::WgmmaAccum,
// tile::MmaAccum, tile::MfmaAccumT); its row r is query rows.q0 + r, its column c key n BKV + c.
#pragma once

#include <type_traits>

#include "tessera/attention/block_range.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/softmax.hpp"  // kLog2e
#include "tessera/core/config.hpp"
#include "tessera/tile/mfma_accum.hpp"
#include "tessera/tile/mma_accum.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::attention {

// Whether the chain sees scores in natural units (scale applied before it).
template <class Chain>
inline constexpr bool chain_sees_natural_units = Chain::modifies;

// The online softmax's scale in log2 units for this chain (OnlineSoftmax's scale_log2).
template <class Chain>
TESSERA_HD float chain_scale_log2(float scale) {
  return chain_sees_natural_units<Chain> ? kLog2e : scale * kLog2e;
}

// Block n (keys n bkv ..) of the scores s of the queries of `rows` (q0 .. q1 - 1 of its batch
// entry and head), through the chain where its kind needs it.
template <class Chain, class Frag, class Thread>
TESSERA_HD void apply_chain(Chain const& chain, float scale, Block const& rows, int n, int bkv, Frag& s, Thread thread) {
  constexpr bool natural = chain_sees_natural_units<Chain>;
  BlockKind const kind = block_kind(chain, rows, n, bkv);
  if (!natural && kind == BlockKind::kFull) return;
  int const k0 = n * bkv;
  tile::transform(s, thread, [&](float x, int row, int col) {
    Coord const at{rows.batch, rows.head, rows.q0 + row, k0 + col, rows.q_len, rows.k_len};
    if (at.k >= rows.k_len) return -__builtin_inff();
    return natural ? float(chain.score(x * scale, at)) : float(chain.score(x, at));
  });
}

// The same on the Hopper kernel's wgmma fragment, with what its layout allows (the other kernels'
// fragments take the form above until these paths have run on them):
//   - masks with exact key runs (Chain::exact_keys): a row masked by its run's two ends, two
//     compares a score against the values' constant columns, on partial blocks;
//   - modifiers beside exact masks (Chain::exact_masks): modify() on every score, the runs' ends on
//     partial blocks only;
//   - otherwise score() on each score, the compare with k_len on the last block only.
template <class Chain, int N, class Thread>
TESSERA_HD void apply_chain(Chain const& chain, float scale, Block const& rows, int n, int bkv, tile::WgmmaAccum<float, N, 1>& s,
                            Thread thread) {
  using Acc = tile::WgmmaAccum<float, N, 1>;
  constexpr bool natural = chain_sees_natural_units<Chain>;
  BlockKind const kind = block_kind(chain, rows, n, bkv);
  if (!natural && kind == BlockKind::kFull) return;
  int const k0 = n * bkv;
  if constexpr (Chain::exact_masks) {
    tile::transform(s, thread, [&](float x, int row, int col) {
      return float(chain.modify(x * scale, Coord{rows.batch, rows.head, rows.q0 + row, k0 + col, rows.q_len, rows.k_len}));
    });
    if (kind == BlockKind::kFull) return;
  }
  if constexpr (Chain::exact_keys || Chain::exact_masks) {
    int lo[Acc::rows_per_thread], hi[Acc::rows_per_thread];
    TESSERA_UNROLL
    for (int i = 0; i < Acc::rows_per_thread; ++i) {
      int const q = rows.q0 + Acc::local_row(int(thread), i);
      KeyRange const keys = chain.keys(Block{rows.batch, rows.head, q, q + 1, 0, rows.k_len, rows.q_len, rows.k_len});
      lo[i] = keys.lo - k0 - Acc::thread_col(int(thread));
      hi[i] = (keys.hi < rows.k_len ? keys.hi : rows.k_len) - k0 - Acc::thread_col(int(thread));
    }
    TESSERA_UNROLL
    for (int v = 0; v < Acc::values; ++v) {
      int const i = Acc::local_row_of(v), col = Acc::value_col(v);
      if (col < lo[i] || col >= hi[i]) s.regs[0][v] = -__builtin_inff();
    }
    return;
  }
  auto const apply = [&](auto tail) {
    tile::transform(s, thread, [&](float x, int row, int col) {
      Coord const at{rows.batch, rows.head, rows.q0 + row, k0 + col, rows.q_len, rows.k_len};
      if (decltype(tail)::value && at.k >= rows.k_len) return -__builtin_inff();
      return natural ? float(chain.score(x * scale, at)) : float(chain.score(x, at));
    });
  };
  if (k0 + bkv > rows.k_len) apply(std::true_type{});
  else apply(std::false_type{});
}

}  // namespace tessera::attention
