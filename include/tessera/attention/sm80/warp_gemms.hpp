// One warp's two GEMMs in the sm80 attention kernel, on its 16 query rows: S = Q K^T (16 x BKV,
// k = the head dimension) and O += P V (16 x Dv, k = the block's BKV keys), with mma.sync
// m16n8k16 and fragments read from attention/sm80/storage.hpp's swizzled blocks by ldmatrix:
//   Q  A operand, K-major: ldmatrix.x4 per k-step (rows 16 w .., 16 columns);
//   K  B operand, K-major (a key's head dimension is contiguous, B "col"): ldmatrix.x4 per pair of
//      n8 atoms (16 keys) and k-step;
//   V  B operand, MN-major (a key's row of V is P V's k, its columns are n): ldmatrix.x4.trans
//      per 16 keys and pair of n8 atoms (x2.trans for a last single atom when Dv / 8 is odd);
//   P  A operand straight from S's registers (tile::to_a_operand: the m16n8 C -> A identity).
// Q is read into registers once per tile where the head dimension is at most 128 (32 registers),
// and from shared memory per block above that (the O accumulators need the registers there).
//
//   WarpGemms<Cfg> g(smem, warp, lane);
//   g.load_q();                                 // once Q has landed (a no-op when Q is re-read)
//   SAcc s = g.scores(stage);                   // S of the block in ring stage `stage`
//   g.accumulate(o, tile::to_a_operand<E>(s), stage);
//
// Addresses: a lane's ldmatrix row is fixed, so its chunk of a k-step is its first address XOR the
// k-step's 32-byte column offset (the swizzle XORs the chunk index with the row's low 3 bits, and
// the blocks are 128-byte aligned), and moving by 16 rows, a 64-column block or a stage adds a
// constant; the XORs of the unrolled steps are loop-invariant (12 registers at most).
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm80/mma.hpp"
#include "tessera/attention/sm80/storage.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/mma_accum.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
struct WarpGemms {
  using E = typename Cfg::Element;
  using S = Storage<Cfg>;
  using Mma = std::conditional_t<std::is_same_v<E, bfloat16_t>, arch::Sm80_16x8x16_F32BF16BF16F32_TN, arch::Sm80_16x8x16_F32F16F16F32_TN>;
  static constexpr int BKV = Cfg::BKV, Dv = Cfg::Dv;
  static constexpr int qk_steps = (Cfg::D + 15) / 16;  // k-steps of Q K^T (columns past D are zeros)
  static constexpr bool q_in_registers = qk_steps <= 8;
  using SAcc = tile::MmaAccum<BKV>;
  using OAcc = tile::MmaAccum<Dv>;
  using P = tile::MmaAOperand<E, BKV / 16>;

  // A lane's ldmatrix addresses, as byte offsets from its matrix (host-tested): the lane's row and
  // chunk at k-step 0 (first), then k-step ks, key block j of 16 and ring stage `stage`.
  //   Q  (x4: rows 16 w + 0..7, 8..15 at k 0..7, then k 8..15)       q_first(w, l), q_at(first, ks)
  //   K  (x4: keys 0..7 at k 0..7, 8..15; keys 8..15 at k 0..7, 8..15) k_first(l), k_at(first, stage, ks, j)
  //   V  (x4.trans: keys 0..7, 8..15 of columns 0..7; then 8..15)     v_first(l), v_at(first, stage, ks, j)
  TESSERA_HD static constexpr std::uint32_t q_first(int warp, int lane) {
    return S::template offset<S::BQ>(16 * warp + lane % 8 + 8 * ((lane / 8) % 2), 8 * (lane / 16));
  }
  TESSERA_HD static constexpr std::uint32_t k_first(int lane) { return S::template offset<BKV>(lane % 8 + 8 * (lane / 16), 8 * ((lane / 8) % 2)); }
  TESSERA_HD static constexpr std::uint32_t v_first(int lane) { return S::template offset<BKV>(lane % 8 + 8 * ((lane / 8) % 2), 8 * (lane / 16)); }
  TESSERA_HD static constexpr std::uint32_t q_at(std::uint32_t first, int ks) {
    return (first ^ std::uint32_t(32 * (ks % 4))) + std::uint32_t((ks / 4) * S::q_block_bytes);
  }
  TESSERA_HD static constexpr std::uint32_t k_at(std::uint32_t first, int stage, int ks, int j) {
    return (first ^ std::uint32_t(32 * (ks % 4))) + std::uint32_t(stage * S::k_stage_bytes + (ks / 4) * S::kv_block_bytes + j * 16 * S::row_bytes);
  }
  TESSERA_HD static constexpr std::uint32_t v_at(std::uint32_t first, int stage, int ks, int j) {
    return (first ^ std::uint32_t(32 * (j % 4))) + std::uint32_t(stage * S::v_stage_bytes + (j / 4) * S::kv_block_bytes + ks * 16 * S::row_bytes);
  }

  std::uint32_t q_base, k_base, v_base;  // the lane's first addresses (shared window)
  std::uint32_t q_regs[q_in_registers ? qk_steps : 1][4];

  TESSERA_DEVICE WarpGemms(S& s, int warp, int lane)
      : q_base(arch::smem_address(&s.q[0][0]) + q_first(warp, lane)),
        k_base(arch::smem_address(&s.k[0][0][0]) + k_first(lane)),
        v_base(arch::smem_address(&s.v[0][0][0]) + v_first(lane)) {}

  // Q's fragments into registers (where it stays there), after Q has landed.
  TESSERA_DEVICE void load_q() {
    if constexpr (q_in_registers) {
      TESSERA_UNROLL
      for (int ks = 0; ks < qk_steps; ++ks) arch::ldmatrix_x4(q_regs[ks], q_at(q_base, ks));
    }
  }

  // S = Q K^T for the keys in ring stage `stage`.
  TESSERA_DEVICE SAcc scores(int stage) const {
    SAcc s{};
    TESSERA_UNROLL
    for (int ks = 0; ks < qk_steps; ++ks) {
      std::uint32_t a[4];
      if constexpr (q_in_registers) a[0] = q_regs[ks][0], a[1] = q_regs[ks][1], a[2] = q_regs[ks][2], a[3] = q_regs[ks][3];
      else arch::ldmatrix_x4(a, q_at(q_base, ks));
      TESSERA_UNROLL
      for (int j = 0; j < BKV / 16; ++j) {
        std::uint32_t b[4];
        arch::ldmatrix_x4(b, k_at(k_base, stage, ks, j));
        Mma::fma(s.regs[2 * j], a, {b[0], b[1]}, s.regs[2 * j]);
        Mma::fma(s.regs[2 * j + 1], a, {b[2], b[3]}, s.regs[2 * j + 1]);
      }
    }
    return s;
  }

  // O += P V for the values in ring stage `stage`.
  TESSERA_DEVICE void accumulate(OAcc& o, P const& p, int stage) const {
    TESSERA_UNROLL
    for (int ks = 0; ks < BKV / 16; ++ks) {
      TESSERA_UNROLL
      for (int j = 0; j < Dv / 16; ++j) {
        std::uint32_t b[4];
        arch::ldmatrix_x4_trans(b, v_at(v_base, stage, ks, j));
        Mma::fma(o.regs[2 * j], p.regs[ks], {b[0], b[1]}, o.regs[2 * j]);
        Mma::fma(o.regs[2 * j + 1], p.regs[ks], {b[2], b[3]}, o.regs[2 * j + 1]);
      }
      if constexpr (Dv % 16 != 0) {
        std::uint32_t b[2];
        arch::ldmatrix_x2_trans(b, v_at(v_base, stage, ks, Dv / 16));
        Mma::fma(o.regs[Dv / 8 - 1], p.regs[ks], b, o.regs[Dv / 8 - 1]);
      }
    }
  }
};

}  // namespace tessera::attention::sm80
