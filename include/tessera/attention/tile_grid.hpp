// The grid of the sm80 and gfx9 attention kernels: one block per tile of BQ queries of one query
// head of one batch entry, grid (query blocks, heads, batch), the query blocks in reverse (block x
// takes queries (gridDim.x - 1 - x) BQ ..: a causal mask's longest tiles start first). What a
// problem must be for it: fixed lengths (the tiles of a variable-length batch would need a table),
// at most 65535 heads and batch entries (grid y and z).
//
//   TESSERA_RETURN_IF_ERROR(attention::check_tile_grid(problem, "the sm80 kernel"));
//   attention::TileGridParams<Cfg> params = attention::TileGridParams<Cfg>::make(problem, q, k, v, o, lse, chain);
#pragma once

#include <string>

#include "tessera/attention/problem.hpp"
#include "tessera/core/status.hpp"

namespace tessera::attention {

// The tensors a kernel of this grid reads (its loader's parameters): Q, K, V and their strides.
template <class E>
struct QkvTensors {
  E const* q;
  E const* k;
  E const* v;
  Strides qs, ks, vs;
  int q_len, k_len;
};

// Such a kernel's parameters.
template <class Cfg>
struct TileGridParams {
  using E = typename Cfg::Element;
  QkvTensors<E> load;
  typename Cfg::Chain chain;
  int heads, group;  // query heads, query heads per K/V head
  float scale;       // the softmax scale
  Strides o_strides;
  E* o;
  float* lse;  // null: not written

  static TileGridParams make(Problem const& p, E const* q, E const* k, E const* v, E* o, float* lse, typename Cfg::Chain const& chain) {
    return {{q, k, v, p.q, p.k, p.v, p.seqlen_q, p.seqlen_k}, chain, p.heads, p.group(), p.softmax_scale(), p.o, o, lse};
  }
};

inline Status check_tile_grid(Problem const& p, char const* kernel) {
  if (p.variable())
    return Status::not_supported(std::string("attention::Attention: variable lengths (cu_seqlens) are not in ") + kernel +
                                 " yet; run each sequence as a batch of one");
  if (p.heads > 65535 || p.batch > 65535)
    return Status::not_supported(std::string("attention::Attention: ") + kernel +
                                 " takes at most 65535 heads and 65535 batch entries (its grid's y and z); split the batch or the heads "
                                 "into several calls");
  return Status::success();
}

}  // namespace tessera::attention
