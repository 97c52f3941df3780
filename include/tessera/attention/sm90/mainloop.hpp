// One consumer warpgroup's work on a tile of queries in the Hopper attention kernel: for each
// visited block of keys, S = Q K^T (wgmma SS over the head dimension), the score chain where the
// block needs it (attention/block_range.hpp), the online softmax (attention/softmax.hpp), O
// rescaled, P to registers and O += P V (wgmma RS). Then the epilogue: O / l to the output and
// the LSE. The consumer owns 64 of the tile's query rows.
//
// The GEMMs overlap the softmax (FlashAttention-3's two overlaps):
//   inside a consumer   block n's S = Q K_n^T and the previous block's O += P_{n-1} V_{n-1} are
//                       issued together, and block n's softmax runs while P V is still on the
//                       tensor cores (its O rescale waits for it: O *= 2^(m_{n-1} - m_n) after P V);
//   between consumers   with Consumers<2, true>, the two take turns issuing (pipeline::Turns, every
//                       block): one's softmax runs under the other's GEMMs. (Without turns the
//                       consumers drift into a similar alternation; turns measured 1-3% slower.)
// Registers: S (BKV / 2 floats), P (BKV / 4 words) and O (Dv / 2 floats) are live together.
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/softmax.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::attention::sm90 {

// A tile of queries: BQ queries from q0 of head h of batch entry b, the sequences' lengths; in
// memory, its sequences start at positions q_start and k_start of batch entry mb (variable
// lengths: of the packed tokens, mb = 0; fixed: q_start = k_start = 0, mb = b).
struct TileInfo {
  int b, h, hk, q0, q_len, k_len;
  int mb, q_start, k_start;
};

template <class Cfg>
struct Mainloop {
  using E = typename Cfg::Element;
  using Chain = typename Cfg::Chain;
  using S = Storage<Cfg>;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BKV = Cfg::BKV, Stages = Cfg::stages;
  using SAcc = tile::WgmmaAccum<float, BKV, 1>;
  using OAcc = tile::WgmmaAccum<float, Cfg::Dvp, 1>;  // (columns past Dv: zeros, not stored)
  using MmaS = arch::sm90::Wgmma<BKV, E, E, float, arch::sm90::Major::K, arch::sm90::Major::K>;
  using MmaO = arch::sm90::Wgmma<Cfg::Dvp, E, E, float, arch::sm90::Major::K, arch::sm90::Major::MN>;
  using Softmax = OnlineSoftmax<SAcc::rows_per_thread>;
  using PFrag = decltype(tile::to_a_operand<E>(SAcc{}));
  // A chain that changes scores sees them in natural units (scale applied first); a chain of masks
  // sees them unscaled and the scale stays folded into the softmax's exponent.
  static constexpr bool natural = Chain::modifies;

  // The consumers' turns on the tensor cores (Consumers<2, true>).
  struct Turn {
    pipeline::Turns turns;
    int c, taken = 0;
    TESSERA_DEVICE void take() {
      if constexpr (Cfg::turns) turns.take(c, taken);
    }
    TESSERA_DEVICE void pass(int thread) const {
      if constexpr (Cfg::turns)
        if (thread % 32 == 0) turns.pass(c);
    }
  };

  // Blocks [r.first, r.last) (at least one) of tile t at ring positions pos, pos + 1, ... into o
  // and sm; Q's last read arrives on q_empty (after the last S wgmma, which every warp of the
  // consumer issues: no warp can still be waiting for this tile's Q then).
  TESSERA_DEVICE static void run(S& s, Chain const& chain, float scale, TileInfo const& t, BlockRange r, int& pos, int c, int thread,
                                 OAcc& o, Softmax& sm, Turn& turn) {
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    int const row0 = 64 * c;
    Block const rows{t.b, t.h, t.q0 + row0, t.q0 + row0 + 64 < t.q_len ? t.q0 + row0 + 64 : t.q_len, 0, t.k_len, t.q_len, t.k_len};
    auto const issue_s = [&](SAcc& acc, int stage) {
      arch::sm90::wgmma_fence();
      TESSERA_UNROLL
      for (int ks = 0; ks < (D + 15) / 16; ++ks) {
        if (ks == 0) MmaS::ss_first(acc.regs[0], s.q_desc(row0, ks), s.k_desc(stage, ks));
        else MmaS::ss(acc.regs[0], s.q_desc(row0, ks), s.k_desc(stage, ks), true);
      }
      arch::sm90::wgmma_commit_group();
    };
    auto const issue_pv = [&](PFrag const& p, int stage, bool accumulate) {
      arch::sm90::wgmma_fence();
      TESSERA_UNROLL
      for (int ks = 0; ks < BKV / 16; ++ks) MmaO::rs(o.regs[0], p.regs[0][ks], s.v_desc(stage, ks), accumulate || ks > 0);
      arch::sm90::wgmma_commit_group();
    };
    auto const release_k = [&](int at, bool last) {
      if (thread == 0) {
        kp.consumer_release(at);
        if (last) arch::mbarrier_arrive(arch::smem_address(&s.q_empty));
      }
    };
    // The first block: S alone.
    SAcc sacc;
    kp.consumer_wait(pos);
    turn.take();
    issue_s(sacc, pos % Stages);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<0>();
    arch::sm90::wgmma_fence_operands(sacc.regs[0]);
    release_k(pos, r.size() == 1);
    apply_chain(chain, scale, rows, r.first, BKV, sacc, thread);
    (void)sm.step(sacc);
    PFrag p = tile::to_a_operand<E>(sacc);
    // Each later block n: S_n and P_{n-1} V_{n-1} issued together, S_n's softmax under P V.
    for (int n = r.first + 1; n < r.last; ++n) {
      int const prev = pos++;
      kp.consumer_wait(pos);
      turn.take();
      issue_s(sacc, pos % Stages);
      vp.consumer_wait(prev);
      issue_pv(p, prev % Stages, n - 1 > r.first);
      turn.pass(thread);
      arch::sm90::wgmma_wait_group<1>();
      arch::sm90::wgmma_fence_operands(sacc.regs[0]);
      release_k(pos, n == r.last - 1);
      apply_chain(chain, scale, rows, n, BKV, sacc, thread);
      auto const factor = sm.step(sacc);
      arch::sm90::wgmma_wait_group<0>();
      arch::sm90::wgmma_fence_operands(o.regs[0]);
      fence_operands(p);
      if (thread == 0) vp.consumer_release(prev);
      tile::transform_rows(o, [&](float x, int i) { return x * factor[i]; });
      p = tile::to_a_operand<E>(sacc);
    }
    // The last block's P V.
    vp.consumer_wait(pos);
    turn.take();
    issue_pv(p, pos % Stages, r.size() > 1);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<0>();
    arch::sm90::wgmma_fence_operands(o.regs[0]);
    fence_operands(p);
    if (thread == 0) vp.consumer_release(pos);
    ++pos;
  }

  // O / l to `out` (rows past q_len dropped) and the LSE, for the consumer's rows of tile t. An
  // empty tile (no key to see: o and sm untouched) stores O = 0 and LSE = -inf.
  template <class Store>
  TESSERA_DEVICE static void finish(OAcc& o, Softmax const& sm, bool empty, TileInfo const& t, int c, int thread, Store&& store) {
    if (empty) {
      TESSERA_UNROLL
      for (int v = 0; v < OAcc::values; ++v) o.regs[0][v] = 0.0f;
    }
    auto const fin = sm.finish();
    TESSERA_UNROLL
    for (int v = 0; v < OAcc::values; v += 2) {
      int const i = OAcc::local_row_of(v);
      float const lo = o.regs[0][v] * fin.inverse[i], hi = o.regs[0][v + 1] * fin.inverse[i];
      int const q = t.q0 + 64 * c + OAcc::row(thread, v);
      int const col = OAcc::col(thread, v);
      if (q < t.q_len && (Cfg::Dvp == Dv || col < Dv)) store(q, col, epilogue::convert_output_packed<E>(lo, hi));
    }
    if (thread % 4 == 0) {
      TESSERA_UNROLL
      for (int i = 0; i < SAcc::rows_per_thread; ++i) {
        int const q = t.q0 + 64 * c + SAcc::local_row(thread, i);
        if (q < t.q_len) store.lse(q, fin.lse[i]);
      }
    }
  }

 private:
  // P's registers stay P's until the P V wgmma that reads them is waited for.
  TESSERA_DEVICE static void fence_operands(PFrag& p) {
    TESSERA_UNROLL
    for (int ks = 0; ks < BKV / 16; ++ks) arch::sm90::wgmma_fence_operands(p.regs[0][ks]);
  }
};

}  // namespace tessera::attention::sm90
