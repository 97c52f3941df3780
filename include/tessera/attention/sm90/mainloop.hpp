// One consumer warpgroup's work in the Hopper attention kernel, a block of keys at a time: for
// each visited block of a tile of queries, S = Q K^T (wgmma SS over the head dimension), the score
// chain where the block needs it (attention/block_range.hpp), the online softmax
// (attention/softmax.hpp), O rescaled, P to registers and O += P V (wgmma RS). The consumer owns
// 64 of the tile's query rows; the kernel (attention/sm90/kernel.hpp) walks its tiles' blocks with
// first(), next(), cross() and last() and writes O and the LSE (attention/sm90/epilogue.hpp).
//
// The GEMMs overlap the softmax (FlashAttention-3's two overlaps):
//   inside a consumer   next() issues block n's S = Q K_n^T together with the previous block's
//                       O += P V, and block n's softmax runs while P V is still on the tensor
//                       cores (the O rescale waits for it: O *= 2^(m_{n-1} - m_n) after P V).
//   between tiles       where Config::across_tiles, cross() issues a tile's last P V and the next
//                       tile's first S together, and the tile's epilogue runs under that S.
//   between consumers   with Consumers<2, true>, the two take turns issuing (pipeline::Turns, every
//                       block): one's softmax runs under the other's GEMMs. (Without turns the
//                       consumers drift into a similar alternation; turns measured 1-3% slower.)
// Registers: S (BKV / 2 floats), P (BKV / 4 words) and O (Dv / 2 floats) are live together.
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/fp8_layout.hpp"
#include "tessera/attention/softmax.hpp"
#include "tessera/attention/sm90/params.hpp"  // TileInfo
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Mainloop {
  using E = typename Cfg::Element;
  using Chain = typename Cfg::Chain;
  using S = Storage<Cfg>;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BKV = Cfg::BKV, Stages = Cfg::stages;
  using SAcc = tile::WgmmaAccum<float, BKV, 1>;
  using OAcc = tile::WgmmaAccum<float, Cfg::Dvp, 1>;  // (columns past Dv: zeros, not stored)
  using MmaS = arch::sm90::Wgmma<BKV, E, E, float, arch::sm90::Major::K, arch::sm90::Major::K>;
  using MmaO = arch::sm90::Wgmma<Cfg::Dvp, E, E, float, arch::sm90::Major::K, Cfg::fp8 ? arch::sm90::Major::K : arch::sm90::Major::MN>;
  static constexpr int s_steps = (D + MmaS::K - 1) / MmaS::K, pv_steps = BKV / MmaO::K;
  using Softmax = OnlineSoftmax<SAcc::rows_per_thread>;
  using Factor = typename Softmax::RowArray;
  // P as P V's A operand: 16-bit pairs (tile::to_a_operand), or fp8 quads (attention/fp8_layout.hpp).
  struct Fp8Frag {
    std::uint32_t regs[1][pv_steps][4];
  };
  using PFrag = std::conditional_t<Cfg::fp8, Fp8Frag, decltype(tile::to_a_operand<std::conditional_t<Cfg::fp8, bfloat16_t, E>>(SAcc{}))>;
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

  // A consumer's view of a tile: the tile, its visited blocks, its Q's stage and the phase of
  // that stage's barrier Q lands on, the consumer's rows. (iq: the tile's count among the tiles
  // with keys, as the producer counts them.)
  struct Tile {
    TileInfo t;
    BlockRange r;
    int qs;
    std::uint32_t q_phase;
    Block rows;
  };
  TESSERA_DEVICE static Tile tile(TileInfo const& t, BlockRange r, int iq, int c) {
    int const q0 = t.q0 + 64 * c, q1 = q0 + 64 < t.q_len ? q0 + 64 : t.q_len;
    return {t, r, iq % S::QStages, std::uint32_t((iq / S::QStages) & 1), Block{t.b, t.h, q0, q1, 0, t.k_len, t.q_len, t.k_len}};
  }

  S& s;
  Chain const& chain;
  float scale;
  int c, thread;
  Turn turn;
  OAcc o;     // the tile's O, unnormalized
  SAcc sacc;  // the block's scores, then its p
  PFrag p;    // the previous block's P, P V's A operand

  // Tile a's first block n at ring position pos, alone (a consumer's first, or every tile's
  // where tiles are not overlapped): S, the chain and the softmax (sm: the tile's, fresh), P.
  TESSERA_DEVICE void first(Tile const& a, int n, int pos, Softmax& sm) {
    typename S::Pipe const kp(s.k_barriers);
    arch::mbarrier_wait(arch::smem_address(&s.q_full[a.qs]), a.q_phase);
    kp.consumer_wait(pos);
    turn.take();
    issue_s(a.qs, pos % Stages);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<0>();
    (void)softmax(a, n, pos, sm);
    p = to_p(sacc);
  }

  // Block n of tile a at ring position pos, issued with the previous block's P V (position pos - 1;
  // accumulate: onto O, else O = P V, that block being its tile's first). The softmax (sm: tile a's)
  // runs under P V; returns the factor by which O must then be rescaled.
  TESSERA_DEVICE Factor next(Tile const& a, int n, int pos, bool accumulate, Softmax& sm) {
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    kp.consumer_wait(pos);
    turn.take();
    issue_s(a.qs, pos % Stages);
    vp.consumer_wait(pos - 1);
    issue_pv((pos - 1) % Stages, accumulate);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<1>();
    Factor const factor = softmax(a, n, pos, sm);
    arch::sm90::wgmma_wait_group<0>();
    pv_done(pos - 1);
    p = to_p(sacc);
    return factor;
  }

  // From one tile to the next (Config::across_tiles): the previous tile's last P V (ring position
  // pos - 1; accumulate as in next()) issued, then tile a's first block n at pos (its Q waited for
  // in between: with one Q stage it loads while P V runs); once P V is done, epilogue() writes the
  // previous tile's O while S runs, then the chain and the softmax (sm: a's, fresh), P.
  template <class Epilogue>
  TESSERA_DEVICE void cross(Tile const& a, int n, int pos, bool accumulate, Softmax& sm, Epilogue&& epilogue) {
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    vp.consumer_wait(pos - 1);
    turn.take();
    issue_pv((pos - 1) % Stages, accumulate);
    arch::mbarrier_wait(arch::smem_address(&s.q_full[a.qs]), a.q_phase);
    kp.consumer_wait(pos);
    issue_s(a.qs, pos % Stages);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<1>();
    pv_done(pos - 1);
    epilogue();
    arch::sm90::wgmma_wait_group<0>();
    (void)softmax(a, n, pos, sm);
    p = to_p(sacc);
  }

  // The last block's P V (ring position pos).
  TESSERA_DEVICE void last(int pos, bool accumulate) {
    typename S::Pipe const vp(s.v_barriers);
    vp.consumer_wait(pos);
    turn.take();
    issue_pv(pos % Stages, accumulate);
    turn.pass(thread);
    arch::sm90::wgmma_wait_group<0>();
    pv_done(pos);
  }

 private:
  // S of tile a's block n (ring position pos) landed: K's stage released (and Q's after a's last
  // block), the chain and the softmax on it (sm: a's); returns the factor O must be rescaled by.
  TESSERA_DEVICE Factor softmax(Tile const& a, int n, int pos, Softmax& sm) {
    arch::sm90::wgmma_fence_operands(sacc.regs[0]);
    release_k(a, pos, n == a.r.last - 1);
    apply_chain(chain, scale, a.rows, n, BKV, sacc, thread);
    return sm.step(sacc);
  }
  // The P V at ring position pos done: O and P are the registers' again, V's stage released.
  TESSERA_DEVICE void pv_done(int pos) {
    arch::sm90::wgmma_fence_operands(o.regs[0]);
    fence_p();
    if (thread == 0) typename S::Pipe(s.v_barriers).consumer_release(pos);
  }
  TESSERA_DEVICE void issue_s(int qs, int stage) {
    arch::sm90::wgmma_fence();
    TESSERA_UNROLL
    for (int ks = 0; ks < s_steps; ++ks) {
      if (ks == 0) MmaS::ss_first(sacc.regs[0], s.q_desc(qs, 64 * c, ks), s.k_desc(stage, ks));
      else MmaS::ss(sacc.regs[0], s.q_desc(qs, 64 * c, ks), s.k_desc(stage, ks), true);
    }
    arch::sm90::wgmma_commit_group();
  }
  TESSERA_DEVICE void issue_pv(int stage, bool accumulate) {
    arch::sm90::wgmma_fence();
    TESSERA_UNROLL
    for (int ks = 0; ks < pv_steps; ++ks) MmaO::rs(o.regs[0], p.regs[0][ks], s.v_desc(stage, ks), accumulate || ks > 0);
    arch::sm90::wgmma_commit_group();
  }
  // K's stage at pos read; on a's last block Q's too (after the S wgmma, which every warp of the
  // consumer issues: no warp can still be waiting for the tile's Q then), unless O is staged in
  // Q's stage (Epilogue releases it after O's store).
  TESSERA_DEVICE void release_k(Tile const& a, int pos, bool last) const {
    if (thread != 0) return;
    typename S::Pipe(s.k_barriers).consumer_release(pos);
    if (last && !Cfg::staged_o) arch::mbarrier_arrive(arch::smem_address(&s.q_empty[a.qs]));
  }
  // P's registers stay P's until the P V wgmma that reads them is waited for.
  TESSERA_DEVICE void fence_p() {
    TESSERA_UNROLL
    for (int ks = 0; ks < pv_steps; ++ks) arch::sm90::wgmma_fence_operands(p.regs[0][ks]);
  }

  TESSERA_DEVICE static PFrag to_p(SAcc const& sacc) {
    if constexpr (Cfg::fp8) {
      Fp8Frag p;
      TESSERA_UNROLL
      for (int ks = 0; ks < pv_steps; ++ks) {
        TESSERA_UNROLL
        for (int r = 0; r < 4; ++r) {
          auto const v = [&](int i) { return sacc.regs[0][fp8::p_value(ks, r, i)]; };
          p.regs[0][ks][r] = pack_e4m3(v(0), v(1)) | pack_e4m3(v(2), v(3)) << 16;
        }
      }
      return p;
    } else {
      return tile::to_a_operand<E>(sacc);
    }
  }

  // Two floats as e4m3 (round to nearest, saturating), a in the low byte.
  TESSERA_DEVICE static std::uint32_t pack_e4m3(float a, float b) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
    std::uint16_t h;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(b), "f"(a));
    return h;
#else
    return std::uint32_t(float8_e4m3_t(a).bits()) | std::uint32_t(float8_e4m3_t(b).bits()) << 8;
#endif
  }
};

}  // namespace tessera::attention::sm90
