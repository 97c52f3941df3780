// One consumer warpgroup's work on a tile of queries in the Hopper attention kernel: for each
// visited block of keys, S = Q K^T (wgmma SS over the head dimension), the score chain where the
// block needs it (attention/block_range.hpp), the online softmax (attention/softmax.hpp), O
// rescaled, P to registers and O += P V (wgmma RS). Then the epilogue: O / l to the output and
// the LSE (attention/sm90/epilogue.hpp). The consumer owns 64 of the tile's query rows.
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
#include <type_traits>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/fp8_layout.hpp"
#include "tessera/attention/softmax.hpp"
#include "tessera/attention/sm90/storage.hpp"
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
  using MmaO = arch::sm90::Wgmma<Cfg::Dvp, E, E, float, arch::sm90::Major::K, Cfg::fp8 ? arch::sm90::Major::K : arch::sm90::Major::MN>;
  static constexpr int s_steps = (D + MmaS::K - 1) / MmaS::K, pv_steps = BKV / MmaO::K;
  using Softmax = OnlineSoftmax<SAcc::rows_per_thread>;
  // P as P V's A operand: 16-bit pairs (tile::to_a_operand), or fp8 quads (attention/fp8_layout.hpp).
  struct Fp8Frag {
    std::uint32_t regs[1][pv_steps][4];
  };
  using PFrag = std::conditional_t<Cfg::fp8, Fp8Frag, decltype(tile::to_a_operand<std::conditional_t<Cfg::fp8, bfloat16_t, E>>(SAcc{}))>;
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

  // Blocks [r.first, r.last) (at least one) of tile t (its Q in stage qs) at ring positions pos,
  // pos + 1, ... into o and sm; Q's last read arrives on q_empty[qs] (after the last S wgmma, which every warp of the
  // consumer issues: no warp can still be waiting for this tile's Q then).
  TESSERA_DEVICE static void run(S& s, Chain const& chain, float scale, TileInfo const& t, BlockRange r, int qs, int& pos, int c, int thread,
                                 OAcc& o, Softmax& sm, Turn& turn) {
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    int const row0 = 64 * c;
    Block const rows{t.b, t.h, t.q0 + row0, t.q0 + row0 + 64 < t.q_len ? t.q0 + row0 + 64 : t.q_len, 0, t.k_len, t.q_len, t.k_len};
    auto const issue_s = [&](SAcc& acc, int stage) {
      arch::sm90::wgmma_fence();
      TESSERA_UNROLL
      for (int ks = 0; ks < s_steps; ++ks) {
        if (ks == 0) MmaS::ss_first(acc.regs[0], s.q_desc(qs, row0, ks), s.k_desc(stage, ks));
        else MmaS::ss(acc.regs[0], s.q_desc(qs, row0, ks), s.k_desc(stage, ks), true);
      }
      arch::sm90::wgmma_commit_group();
    };
    auto const issue_pv = [&](PFrag const& p, int stage, bool accumulate) {
      arch::sm90::wgmma_fence();
      TESSERA_UNROLL
      for (int ks = 0; ks < pv_steps; ++ks) MmaO::rs(o.regs[0], p.regs[0][ks], s.v_desc(stage, ks), accumulate || ks > 0);
      arch::sm90::wgmma_commit_group();
    };
    auto const release_k = [&](int at, bool last) {
      if (thread == 0) {
        kp.consumer_release(at);
        if (last && !Cfg::staged_o) arch::mbarrier_arrive(arch::smem_address(&s.q_empty[qs]));  // (staged: after O's store)
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
    scores(chain, scale, t, rows, r.first, sacc, thread);
    (void)sm.step(sacc);
    PFrag p = to_p(sacc);
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
      scores(chain, scale, t, rows, n, sacc, thread);
      auto const factor = sm.step(sacc);
      arch::sm90::wgmma_wait_group<0>();
      arch::sm90::wgmma_fence_operands(o.regs[0]);
      fence_operands(p);
      if (thread == 0) vp.consumer_release(prev);
      tile::transform_rows(o, [&](float x, int i) { return x * factor[i]; });
      p = to_p(sacc);
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

 private:
  // P's registers stay P's until the P V wgmma that reads them is waited for.
  TESSERA_DEVICE static void fence_operands(PFrag& p) {
    TESSERA_UNROLL
    for (int ks = 0; ks < pv_steps; ++ks) arch::sm90::wgmma_fence_operands(p.regs[0][ks]);
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

  // The chain on block n's scores where it may mask or change them; keys past k_len masked
  // (attention/block_scores.hpp).
  TESSERA_DEVICE static void scores(Chain const& chain, float scale, TileInfo const&, Block const& rows, int n, SAcc& sacc, int thread) {
    apply_chain(chain, scale, rows, n, BKV, sacc, thread);
  }
};

}  // namespace tessera::attention::sm90
