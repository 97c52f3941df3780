// MmaAccum: the f32 accumulators of one warp's row of mma.sync m16n8 atoms (arch/sm80/mma.hpp),
// a 16 x N tile as N / 8 atoms side by side, with its (lane, value) -> (row, col) map as constexpr
// functions (host-tested), elementwise maps that see coordinates, row reductions across the quad
// of lanes that share a row, and the conversion to the A operand of a following m16n8k16
// (attention's P V on sm80). The same operations as tile::WgmmaAccum's, so that code written
// over a fragment's rows (attention::OnlineSoftmax) runs on both.
//
//   using Acc = tile::MmaAccum<64>;                       // 16 x 64 f32: 8 atoms of 16 x 8
//   Acc s{};                                              // zeros
//   Sm80_16x8x16_F32BF16BF16F32_TN::fma(s.regs[j], a, b[j], s.regs[j]);   // atom j: columns 8 j ..
//   int const lane = threadIdx.x % 32;
//   tile::transform(s, lane, [&](float x, int row, int col) { return col <= row ? x : -INFINITY; });
//   auto m = tile::row_max(s);                            // m[r]: row Acc::local_row(lane, r), whole row
//   auto p = tile::to_a_operand<bfloat16_t>(s);           // p.regs[ks]: k-step ks of an A operand
//
// The map, from the PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type", figure
// "MMA .m16n8k16 fragment layout for accumulator matrix C/D": lane l = 4 g + q (groupID g,
// threadID_in_group q) holds of atom j the registers c0 .. c3, value v = 4 j + 2 h + e (h, e < 2)
// at
//     row = g + 8 h,        col = 8 j + 2 q + e.
// This is warp 0's part of tile::WgmmaAccum<float, N, 1> in the same value order (the wgmma D
// fragment repeats the m16n8 pattern per warp), so its two rows are the lane's rows g and g + 8
// and a row reduction is the lane's values, then xor-shuffles 1, 2.
//
// The A operand of m16n8k16 with 16-bit A (figure "MMA .m16n8k16 fragment layout for matrix A"):
// register r of a k-step holds a(2r) (low) and a(2r + 1) at
//     row = g + 8 (r % 2),      k = 8 (r / 2) + 2 q + e,
// so register r of k-step s (columns 16 s .. 16 s + 15) is exactly values 8 s + 2 r and
// 8 s + 2 r + 1 of the same lane: elementwise, no data exchanged between lanes (FlashAttention-2's
// convert_layout_acc_Aregs).
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
struct MmaAccum {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "tile::MmaAccum: N must be 8 to 256 in steps of 8 (m16n8 atoms); use such a width");
  using value_type = float;
  static constexpr int threads = 32;
  static constexpr int rows = 16;
  static constexpr int cols = N;
  static constexpr int atoms = N / 8;
  static constexpr int values = N / 2;               // elements per lane
  static constexpr int rows_per_thread = 2;          // local rows r = h: rows g and g + 8
  static constexpr int values_per_row = N / 4;

  float regs[atoms][4];  // atom j's c0 .. c3: Sm80_16x8x16_*F32*::fma's C and D

  // ---- the map (lane 0..31; a block's threadIdx.x works too: taken mod 32) ----
  TESSERA_HD static constexpr int thread_row(int lane) { return (lane % 32) / 4; }
  TESSERA_HD static constexpr int thread_col(int lane) { return 2 * (lane % 4); }
  TESSERA_HD static constexpr int value_row(int v) { return 8 * ((v / 2) % 2); }
  TESSERA_HD static constexpr int value_col(int v) { return 8 * (v / 4) + v % 2; }
  TESSERA_HD static constexpr int row(int lane, int v) { return thread_row(lane) + value_row(v); }
  TESSERA_HD static constexpr int col(int lane, int v) { return thread_col(lane) + value_col(v); }
  TESSERA_HD static constexpr int local_row_of(int v) { return (v / 2) % 2; }
  TESSERA_HD static constexpr int local_row(int lane, int r) { return thread_row(lane) + 8 * r; }

  TESSERA_HD constexpr float& at(int v) { return regs[v / 4][v % 4]; }
  TESSERA_HD constexpr float const& at(int v) const { return regs[v / 4][v % 4]; }
};

// The registers of the A operand of mma.sync m16n8k16 with 16-bit A (T = half_t or bfloat16_t),
// KSteps k-steps of 16: regs[ks] is Sm80_16x8x16_*::ARegisters of k-step ks.
template <class T, int KSteps>
struct MmaAOperand {
  using value_type = T;
  static constexpr int k_steps = KSteps;
  std::uint32_t regs[KSteps][4];
};

template <class T>
inline constexpr bool is_mma_accum = false;
template <int N>
inline constexpr bool is_mma_accum<MmaAccum<N>> = true;

// ---- elementwise maps ----------------------------------------------------------------------------

// f(value, row, col) for each element (value: the register, writable unless the fragment is const).
template <class Frag, std::convertible_to<int> Thread, class F>
  requires is_mma_accum<std::remove_cvref_t<Frag>>
TESSERA_HD void for_each(Frag&& frag, Thread lane, F&& f) {
  using A = std::remove_cvref_t<Frag>;
  int const r0 = A::thread_row(int(lane)), c0 = A::thread_col(int(lane));
  TESSERA_UNROLL
  for (int v = 0; v < A::values; ++v) f(frag.at(v), r0 + A::value_row(v), c0 + A::value_col(v));
}

// value = f(value, row, col) for each element.
template <int N, std::convertible_to<int> Thread, class F>
TESSERA_HD void transform(MmaAccum<N>& frag, Thread lane, F&& f) {
  for_each(frag, lane, [&](float& x, int row, int col) { x = float(f(x, row, col)); });
}

// value = f(value, r), r the lane's local row (as the row reductions index their results).
template <int N, class F>
TESSERA_HD void transform_rows(MmaAccum<N>& frag, F&& f) {
  TESSERA_UNROLL
  for (int v = 0; v < MmaAccum<N>::values; ++v) frag.at(v) = float(f(frag.at(v), MmaAccum<N>::local_row_of(v)));
}

// ---- row reductions (tile::WgmmaAccum's, over the lane's two rows) --------------------------------

// This lane's part: out[r] = init op (its values of local row r, in value order).
template <int N, class Op>
TESSERA_HD Array<float, 2> thread_row_reduce(MmaAccum<N> const& frag, float init, Op op) {
  Array<float, 2> out;
  out[0] = out[1] = init;
  TESSERA_UNROLL
  for (int v = 0; v < MmaAccum<N>::values; ++v) out[MmaAccum<N>::local_row_of(v)] = op(out[MmaAccum<N>::local_row_of(v)], frag.at(v));
  return out;
}

// The maximum (sum) of each of the lane's rows over the whole width, the same in the four lanes of
// a quad; every lane of the warp takes part.
template <int N, class Shfl = ShflXor>
TESSERA_HD Array<float, 2> row_max(MmaAccum<N> const& frag, Shfl shfl = {}) {
  Array<float, 2> m = thread_row_reduce(frag, -__builtin_inff(), MaxOp{});
  quad_allreduce(m, MaxOp{}, shfl);
  return m;
}
template <int N, class Shfl = ShflXor>
TESSERA_HD Array<float, 2> row_sum(MmaAccum<N> const& frag, Shfl shfl = {}) {
  Array<float, 2> s = thread_row_reduce(frag, 0.0f, SumOp{});
  quad_allreduce(s, SumOp{}, shfl);
  return s;
}

// ---- to the A operand of a following m16n8k16 ------------------------------------------------------

// The accumulators as 16-bit A registers (round to nearest even): k-step s is columns 16 s ..
// 16 s + 15, register r values 8 s + 2 r (low) and 8 s + 2 r + 1.
template <class T, int N>
TESSERA_HD MmaAOperand<T, (N >= 16 ? N / 16 : 1)> to_a_operand(MmaAccum<N> const& frag) {
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>,
                "tile::to_a_operand: m16n8k16 reads A as f16 or bf16 pairs; use to_a_operand<half_t> or to_a_operand<bfloat16_t>");
  static_assert(N % 16 == 0, "tile::to_a_operand: an A operand is whole k-steps of 16 columns; use an MmaAccum N that is a multiple of 16");
  MmaAOperand<T, (N >= 16 ? N / 16 : 1)> a;  // (one error, not two)
  TESSERA_UNROLL
  for (int s = 0; s < N / 16; ++s) {
    TESSERA_UNROLL
    for (int r = 0; r < 4; ++r) a.regs[s][r] = pack_pair<T>(frag.at(8 * s + 2 * r), frag.at(8 * s + 2 * r + 1));
  }
  return a;
}

}  // namespace tessera::tile
