// The sm80 attention kernel's loop over a tile's blocks of keys (FlashAttention-2's design): K
// and V of each block through a cp.async ring of Stages stages (attention/sm80/loader.hpp), and in
// each warp, on its 16 query rows: S = Q K^T (attention/sm80/warp_gemms.hpp), the score chain where
// the block's kind needs it (attention/block_scores.hpp), the online softmax (attention/
// softmax.hpp), O rescaled, P from S's registers and O += P V. Then the epilogue: O / l to the
// output, the LSE.
//
// The ring: block i's K and V are two commit groups, Stages - 1 blocks ahead of the one being
// computed (Q rides with the first K). Each block waits for its K, then a barrier: every warp is
// done with block i - 1, whose stage then receives block i + Stages - 1 while S, the chain and the
// softmax run; then waits for its V, a barrier (the other threads' copies are visible), P V.
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/softmax.hpp"
#include "tessera/attention/sm80/loader.hpp"
#include "tessera/attention/sm80/storage.hpp"
#include "tessera/attention/sm80/warp_gemms.hpp"
#include "tessera/core/config.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/tile/mma_accum.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
struct Mainloop {
  using E = typename Cfg::Element;
  using Chain = typename Cfg::Chain;
  using S = Storage<Cfg>;
  using Gemms = WarpGemms<Cfg>;
  using OAcc = typename Gemms::OAcc;
  using Softmax = OnlineSoftmax<OAcc::rows_per_thread>;
  static constexpr int BKV = Cfg::BKV, Stages = Cfg::stages;

  // Blocks r.first .. r.last - 1 (at least one) of the tile whose queries `load` reads; `rows`:
  // this warp's queries. Leaves O (unnormalised) and the softmax's state.
  TESSERA_DEVICE static void run(S& s, Loader<Cfg> const& load, Chain const& chain, float scale, Block const& rows, BlockRange r,
                                 int tid, OAcc& o, Softmax& sm) {
    int const blocks = r.size(), lane = tid % 32;
    auto const request = [&](int i) {  // block i's K and V into its stage, as two groups
      if (i < blocks) load.k(s, i % Stages, (r.first + i) * BKV, tid);
      arch::cp_async_commit();
      if (i < blocks) load.v(s, i % Stages, (r.first + i) * BKV, tid);
      arch::cp_async_commit();
    };
    load.q(s, tid);
    TESSERA_UNROLL
    for (int i = 0; i < Stages - 1; ++i) request(i);
    Gemms g(s, tid / 32, lane);
    for (int i = 0; i < blocks; ++i) {
      int const stage = i % Stages, n = r.first + i;
      arch::cp_async_wait<2 * Stages - 3>();  // block i's K (and Q)
      arch::sync_threads();                   // ... visible; every warp done with block i - 1
      request(i + Stages - 1);
      if (i == 0) g.load_q();
      auto sacc = g.scores(stage);
      apply_chain(chain, scale, rows, n, BKV, sacc, lane);
      auto const factor = sm.step(sacc);
      if (i > 0) tile::transform_rows(o, [&](float x, int row) { return x * factor[row]; });
      auto const p = tile::to_a_operand<E>(sacc);
      arch::cp_async_wait<2 * Stages - 2>();  // block i's V
      arch::sync_threads();
      g.accumulate(o, p, stage);
    }
  }

  // O / l and the LSE of this warp's rows (rows.q0 ..; those past q_len dropped): store(q, col,
  // pair) and store.lse(q, value). A warp that saw no key (o zero, sm untouched) stores O = 0 and
  // LSE = -inf.
  template <class Store>
  TESSERA_DEVICE static void finish(OAcc const& o, Softmax const& sm, Block const& rows, int lane, Store&& store) {
    auto const fin = sm.finish();
    TESSERA_UNROLL
    for (int v = 0; v < OAcc::values; v += 2) {
      int const i = OAcc::local_row_of(v), q = rows.q0 + OAcc::row(lane, v);
      if (q < rows.q_len)
        store(q, OAcc::col(lane, v), epilogue::convert_output_packed<E>(o.at(v) * fin.inverse[i], o.at(v + 1) * fin.inverse[i]));
    }
    if (lane % 4 == 0) {
      TESSERA_UNROLL
      for (int i = 0; i < OAcc::rows_per_thread; ++i) {
        int const q = rows.q0 + OAcc::local_row(lane, i);
        if (q < rows.q_len) store.lse(q, fin.lse[i]);
      }
    }
  }
};

}  // namespace tessera::attention::sm80
