// MfmaAccumT: a wavefront's f32 accumulators of MFMA 32 x 32 atoms (arch/gfx9/mfma.hpp) that
// compute a transposed product, Sᵀ = K Qᵀ (N / 32 atoms stacked along M: N keys by 32 queries),
// seen as the product itself: 32 rows (queries) by N columns (keys). So that code written over a
// fragment's rows (attention::OnlineSoftmax, attention/block_scores.hpp) runs on AMD too, with the
// same operations as tile::MmaAccum's: the map, elementwise maps that see (row, col), row
// reductions, and the conversion to the B operand of the next MFMA (P Vᵀ computed as Oᵀ = Vᵀ Pᵀ).
//
//   using S = tile::MfmaAccumT<64>;                      // 32 queries x 64 keys: two atoms of Sᵀ
//   S s{};                                               // zeros
//   Gfx9_32x32x8_F32BF16BF16F32::fma(s.regs[a], k_frag, q_frag, s.regs[a]);   // keys 32 a ..
//   tile::transform(s, lane, [&](float x, int row, int col) { ... });         // row: query, col: key
//   auto m = tile::row_max(s);                           // m[0]: row lane % 32, over both half-waves
//   auto p = tile::to_b_operand<bfloat16_t>(s);          // p.regs[t]: Pᵀ's B operand, keys 8 t ..
//
// The map, from atom/mma_gfx9.hpp (the CDNA ISA's 32 x 32 accumulator layout): D(i, j) lies at lane
// j + 32 ((i / 4) % 2), value 4 (i / 8) + i % 4. With i a key and j a query, lane l holds query
// row l % 32 and, of atom a (value v = 16 a + u), the key
//     col = 32 a + 8 (u / 4) + 4 (l / 32) + u % 4:
// one row per lane, its columns split between lanes l and l ^ 32 (tile::HalfWaveLanes).
//
// The B operand of the 32 x 32 x 8 MFMA with 16-bit B: B(k, j) at lane j + 32 (k / 4), value k % 4.
// For Pᵀ (k: keys, j: queries), k-step t (keys 8 t .. 8 t + 7) needs at lane l the keys
// 8 t + 4 (l / 32) + e, e < 4: values 4 t + e of the same lane. The conversion is elementwise,
// with no data exchanged between lanes (as tile::MmaAccum's C -> A).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tessera/core/array.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/row_reduce.hpp"

namespace tessera::tile {

template <int N>
struct MfmaAccumT {
  static_assert(N >= 32 && N <= 256 && N % 32 == 0, "tile::MfmaAccumT: N must be 32 to 256 in steps of 32 (32 x 32 atoms); use such a width");
  using value_type = float;
  static constexpr int threads = 64;
  static constexpr int rows = 32;
  static constexpr int cols = N;
  static constexpr int atoms = N / 32;
  static constexpr int values = N / 2;  // elements per lane
  static constexpr int rows_per_thread = 1;
  static constexpr int values_per_row = N / 2;

  float regs[atoms][16];  // atom a's accumulators: Gfx9_32x32x8_*F32::fma's C and D

  // ---- the map (lane 0..63; a block's threadIdx.x works too: taken mod 64) ----
  TESSERA_HD static constexpr int row(int lane, int) { return lane % 32; }
  TESSERA_HD static constexpr int col(int lane, int v) { return 32 * (v / 16) + 8 * ((v % 16) / 4) + 4 * ((lane % 64) / 32) + v % 4; }
  TESSERA_HD static constexpr int local_row_of(int) { return 0; }
  TESSERA_HD static constexpr int local_row(int lane, int) { return lane % 32; }

  TESSERA_HD constexpr float& at(int v) { return regs[v / 16][v % 16]; }
  TESSERA_HD constexpr float const& at(int v) const { return regs[v / 16][v % 16]; }
};

// The registers of the B operand of the 32 x 32 x 8 MFMA with 16-bit B (T = half_t or bfloat16_t),
// KSteps k-steps of 8: regs[t] is Gfx9_32x32x8_*::BRegisters of k-step t.
template <class T, int KSteps>
struct MfmaBOperand {
  using value_type = T;
  static constexpr int k_steps = KSteps;
  std::uint32_t regs[KSteps][2];
};

template <class T>
inline constexpr bool is_mfma_accum_t = false;
template <int N>
inline constexpr bool is_mfma_accum_t<MfmaAccumT<N>> = true;

// ---- elementwise maps ----------------------------------------------------------------------------

// f(value, row, col) for each element (value: the register, writable unless the fragment is const).
template <class Frag, std::convertible_to<int> Thread, class F>
  requires is_mfma_accum_t<std::remove_cvref_t<Frag>>
TESSERA_HD void for_each(Frag&& frag, Thread lane, F&& f) {
  using A = std::remove_cvref_t<Frag>;
  TESSERA_UNROLL
  for (int v = 0; v < A::values; ++v) f(frag.at(v), A::row(int(lane), v), A::col(int(lane), v));
}

template <int N, std::convertible_to<int> Thread, class F>
TESSERA_HD void transform(MfmaAccumT<N>& frag, Thread lane, F&& f) {
  for_each(frag, lane, [&](float& x, int row, int col) { x = float(f(x, row, col)); });
}

// value = f(value, 0): the lane's one row.
template <int N, class F>
TESSERA_HD void transform_rows(MfmaAccumT<N>& frag, F&& f) {
  TESSERA_UNROLL
  for (int v = 0; v < MfmaAccumT<N>::values; ++v) frag.at(v) = float(f(frag.at(v), 0));
}

// ---- row reductions (the lane's values, then lanes l and l ^ 32) ----------------------------------

template <int N, class Op>
TESSERA_HD Array<float, 1> thread_row_reduce(MfmaAccumT<N> const& frag, float init, Op op) {
  Array<float, 1> out;
  out[0] = init;
  TESSERA_UNROLL
  for (int v = 0; v < MfmaAccumT<N>::values; ++v) out[0] = op(out[0], frag.at(v));
  return out;
}
template <int N, class Shfl = ShflXor>
TESSERA_HD Array<float, 1> row_max(MfmaAccumT<N> const& frag, Shfl shfl = {}) {
  Array<float, 1> m = thread_row_reduce(frag, -__builtin_inff(), MaxOp{});
  HalfWaveLanes::allreduce(m, MaxOp{}, shfl);
  return m;
}
template <int N, class Shfl = ShflXor>
TESSERA_HD Array<float, 1> row_sum(MfmaAccumT<N> const& frag, Shfl shfl = {}) {
  Array<float, 1> s = thread_row_reduce(frag, 0.0f, SumOp{});
  HalfWaveLanes::allreduce(s, SumOp{}, shfl);
  return s;
}

// ---- to the B operand of the next MFMA (Pᵀ of Oᵀ = Vᵀ Pᵀ) ------------------------------------------

// The accumulators as 16-bit B registers (round to nearest even): k-step t is keys 8 t .. 8 t + 7,
// register r values 4 t + 2 r (low) and 4 t + 2 r + 1.
template <class T, int N>
TESSERA_HD MfmaBOperand<T, N / 8> to_b_operand(MfmaAccumT<N> const& frag) {
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>,
                "tile::to_b_operand: the 32 x 32 x 8 MFMA reads B as f16 or bf16; use to_b_operand<half_t> or to_b_operand<bfloat16_t>");
  MfmaBOperand<T, N / 8> b;
  TESSERA_UNROLL
  for (int t = 0; t < N / 8; ++t) {
    TESSERA_UNROLL
    for (int r = 0; r < 2; ++r) b.regs[t][r] = pack_pair<T>(frag.at(4 * t + 2 * r), frag.at(4 * t + 2 * r + 1));
  }
  return b;
}

}  // namespace tessera::tile
