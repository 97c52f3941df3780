// WgmmaAccum: the accumulator fragment of one warpgroup's wgmma m64nNk16 (arch/sm90/wgmma.hpp),
// MHalves (1 or 2) m64 instructions stacked into a 64 x N or 128 x N tile, with its (thread, value)
// -> (row, col) map as constexpr functions (host-tested), elementwise maps that see coordinates,
// row reductions across the quad of threads that share a row, and the conversion to the A operand
// of a following wgmma RS (attention's P V).
//
//   using Acc = tile::WgmmaAccum<float, 128, 2>;          // 128 x 128 f32: two m64 halves
//   using Mma = arch::sm90::Wgmma<128, bfloat16_t, bfloat16_t, float>;
//   Acc s;                                                // an aggregate of registers, nothing else
//   Mma::ss_first(s.regs[mh], desc_a(mh), desc_b);        // each half is one Mma's accumulators
//   int const t = threadIdx.x % 128;                      // the thread in its warpgroup
//   tile::transform(s, t, [&](float x, int row, int col) { return col <= row ? x : -INFINITY; });
//   auto m = tile::row_max(s);                            // m[r]: row Acc::local_row(t, r), whole row
//   tile::transform_rows(s, [&](float x, int r) { return exp2f(x - m[r]); });
//   auto p = tile::to_a_operand<bfloat16_t>(s);           // p.regs[mh][ks]: one k-step of A
//   MmaPV::rs(o.regs[mh], p.regs[mh][ks], desc_v(ks), true);
//
// The map, from the PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16" (section
// 9.7.15.5.1.1.1 in ISA 9.1), figure "WGMMA .m64nNk16 register fragment layout for accumulator
// matrix D" (anchor #wgmma-64n16-d). Thread t = 32 w + 4 g + q of the warpgroup (warp w, groupID
// g = lane / 4, threadID_in_group q = lane % 4) holds, of half mh, value v = 4 j + 2 h + e
// (j < N / 8; h, e < 2) at
//     row = 64 mh + 16 w + g + 8 h,        col = 8 j + 2 q + e.
// Warp w owns rows 16 w .. 16 w + 15 of each half; the four threads of a quad (same g) share
// their rows, so a row reduction is a reduction over the thread's values, then xor-shuffles 1, 2.
// Values are elements: f32 accumulators have one per register (N / 2 per half); f16 accumulators
// pack two (N / 4 registers per half), value v in register v / 2, the low half for even v (the
// ISA's table lists d0 .. d(N/2 - 1) low to high in N / 4 .f16x2 registers, one figure for both).
// A flat value index counts the halves one after the other: v_flat = values_per_half * mh + v.
//
// The A operand of wgmma RS with 16-bit A ("Multiplicand A in registers", figure "WGMMA .m64nNk16
// register fragment layout for matrix A", #wgmma-64n16-a): per m64 half and 16-wide k-step,
// four .f16x2 registers holding a0 .. a7; register r holds a(2r) (low) and a(2r+1) at
//     row = 16 w + g + 8 (r % 2),          k = 8 (r / 2) + 2 q + e   (e = 0 low, 1 high),
// so register r of k-step s is exactly the accumulator values 8 s + 2 r, 8 s + 2 r + 1 of the
// same thread: the conversion is elementwise, with no data exchanged between threads (CUTLASS
// writes the same fact as `ALayout_64x16 = CLayout_64x16`).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tessera/core/array.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/row_reduce.hpp"  // ShflXor, MaxOp, SumOp, quad_allreduce

namespace tessera::tile {

template <class Acc, int N, int MHalves = 1>
struct WgmmaAccum {
  static constexpr bool f32 = std::is_same_v<Acc, float>;
  static constexpr bool valid_n = N >= 8 && N <= 256 && N % 8 == 0;
  static_assert(f32 || std::is_same_v<Acc, half_t>,
                "tile::WgmmaAccum: the accumulator type must be wgmma's .f32 or .f16; use float or half_t");
  static_assert(valid_n, "tile::WgmmaAccum: N must be 8 to 256 in steps of 8 (wgmma's n); use such a tile width");
  static_assert(MHalves == 1 || MHalves == 2,
                "tile::WgmmaAccum: a warpgroup's tile is one or two m64 halves; use MHalves = 1 (64 rows) or 2 (128 rows)");

  using value_type = Acc;
  using Reg = std::conditional_t<f32, float, std::uint32_t>;  // arch::sm90::Wgmma<N, ., ., Acc>::Reg
  static constexpr int threads = 128;
  static constexpr int m_halves = MHalves;
  static constexpr int rows = 64 * MHalves;
  static constexpr int cols = N;
  static constexpr int values_per_half = valid_n ? N / 2 : 4;  // elements per thread of one m64 half
  static constexpr int values = MHalves * values_per_half;     // elements per thread
  static constexpr int values_per_reg = f32 ? 1 : 2;
  static constexpr int regs_per_half = values_per_half / values_per_reg;  // arch::sm90::Wgmma<...>::regs
  static constexpr int rows_per_thread = 2 * MHalves;          // local rows r = 2 mh + h
  static constexpr int values_per_row = values / rows_per_thread;  // N / 4

  Reg regs[MHalves][regs_per_half];

  // ---- the map (thread: 0..127 in the warpgroup; a block's threadIdx.x works too: taken mod 128) ----

  // The thread's part: row 16 w + g, column 2 q.
  TESSERA_HD static constexpr int thread_row(int thread) { return 16 * ((thread / 32) % 4) + (thread % 32) / 4; }
  TESSERA_HD static constexpr int thread_col(int thread) { return 2 * (thread % 4); }
  // The value's part (flat v): row 64 mh + 8 h, column 8 j + e. Constants in unrolled loops.
  TESSERA_HD static constexpr int value_row(int v) { return 64 * (v / values_per_half) + 8 * ((v / 2) % 2); }
  TESSERA_HD static constexpr int value_col(int v) { return 8 * ((v % values_per_half) / 4) + v % 2; }
  TESSERA_HD static constexpr int row(int thread, int v) { return thread_row(thread) + value_row(v); }
  TESSERA_HD static constexpr int col(int thread, int v) { return thread_col(thread) + value_col(v); }
  // The same by (half, value of the half).
  TESSERA_HD static constexpr int row(int thread, int mh, int v) { return row(thread, values_per_half * mh + v); }
  TESSERA_HD static constexpr int col(int thread, int mh, int v) { return col(thread, values_per_half * mh + v); }

  // The thread's rows_per_thread rows: value v (flat) lies in local row 2 mh + h, which is row
  // thread_row(thread) + local_row_offset(r).
  TESSERA_HD static constexpr int local_row_of(int v) { return 2 * (v / values_per_half) + (v / 2) % 2; }
  TESSERA_HD static constexpr int local_row_offset(int r) { return 64 * (r / 2) + 8 * (r % 2); }
  TESSERA_HD static constexpr int local_row(int thread, int r) { return thread_row(thread) + local_row_offset(r); }

  // The map as a layout: (thread, value) -> row + rows * col, modes ((q, g, w), (e, h, j, mh)).
  TESSERA_HD static constexpr auto tv_layout() {
    return make_layout(make_tuple(make_tuple(_4{}, _8{}, _4{}), make_tuple(_2{}, _2{}, Int<N / 8>{}, Int<MHalves>{})),
                       make_tuple(make_tuple(Int<2 * rows>{}, _1{}, _16{}), make_tuple(Int<rows>{}, _8{}, Int<8 * rows>{}, Int<64>{})));
  }

  // ---- elements (v: value of half mh) ----

  TESSERA_HD constexpr Acc get(int mh, int v) const {
    if constexpr (f32) {
      return regs[mh][v];
    } else {
      return Acc::from_bits(static_cast<std::uint16_t>(regs[mh][v / 2] >> (16 * (v % 2))));
    }
  }
  TESSERA_HD constexpr void set(int mh, int v, Acc x) {
    if constexpr (f32) {
      regs[mh][v] = x;
    } else {
      int const shift = 16 * (v % 2);
      regs[mh][v / 2] = (regs[mh][v / 2] & ~(0xFFFFu << shift)) | (std::uint32_t(x.bits()) << shift);
    }
  }
  // The element as float (exact for both types).
  TESSERA_HD constexpr float get_float(int mh, int v) const {
    if constexpr (f32) {
      return regs[mh][v];
    } else {
      return decode_float_portable<format::Binary16>(get(mh, v).bits());
    }
  }
  // f32 accumulators: the register itself.
  TESSERA_HD constexpr float& at(int mh, int v)
    requires(f32)
  {
    return regs[mh][v];
  }
  TESSERA_HD constexpr float const& at(int mh, int v) const
    requires(f32)
  {
    return regs[mh][v];
  }
};

// The registers of the A operand of wgmma RS with 16-bit A (T = half_t or bfloat16_t), for
// MHalves m64 halves and KSteps k-steps of 16: pass regs[mh][ks] to Wgmma::rs.
template <class T, int KSteps, int MHalves = 1>
struct WgmmaAOperand {
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>,
                "tile::WgmmaAOperand: wgmma RS with k16 reads A as f16 or bf16 pairs; use half_t or bfloat16_t");
  using value_type = T;
  static constexpr int k_steps = KSteps;
  static constexpr int m_halves = MHalves;

  std::uint32_t regs[MHalves][KSteps][4];

  // Element e (0: low half, 1: high) of register r of k-step s, half mh, in thread `thread`:
  // row (of the 64 MHalves rows) and k (of the 16 KSteps columns).
  TESSERA_HD static constexpr int row(int thread, int mh, int r) {
    return 64 * mh + 16 * ((thread / 32) % 4) + (thread % 32) / 4 + 8 * (r % 2);
  }
  TESSERA_HD static constexpr int k(int thread, int s, int r, int e) { return 16 * s + 8 * (r / 2) + 2 * (thread % 4) + e; }
};


// ---- elementwise maps ----------------------------------------------------------------------------

template <class T>
inline constexpr bool is_wgmma_accum = false;
template <class Acc, int N, int MHalves>
inline constexpr bool is_wgmma_accum<WgmmaAccum<Acc, N, MHalves>> = true;

// f(value, row, col) for each element. On a mutable fragment in place: value is the register (f32)
// or, for f16, a half_t written back after the call; on a const one, read only. `thread` as in
// the map (0..127, or threadIdx.x).
template <class Frag, std::convertible_to<int> Thread, class F>
  requires is_wgmma_accum<std::remove_cvref_t<Frag>>
TESSERA_HD void for_each(Frag&& frag, Thread thread, F&& f) {
  using A = std::remove_cvref_t<Frag>;
  constexpr bool writable = !std::is_const_v<std::remove_reference_t<Frag>>;
  int const r0 = A::thread_row(int(thread)), c0 = A::thread_col(int(thread));
  TESSERA_UNROLL
  for (int mh = 0; mh < A::m_halves; ++mh) {
    TESSERA_UNROLL
    for (int v = 0; v < A::values_per_half; ++v) {
      int const fv = A::values_per_half * mh + v, row = r0 + A::value_row(fv), col = c0 + A::value_col(fv);
      if constexpr (A::f32) {
        f(frag.regs[mh][v], row, col);
      } else if constexpr (!writable) {
        f(frag.get(mh, v), row, col);
      } else {
        typename A::value_type x = frag.get(mh, v);
        f(x, row, col);
        frag.set(mh, v, x);
      }
    }
  }
}

// value = f(value, row, col) for each element (f returns something convertible to Acc).
template <class Acc, int N, int MHalves, std::convertible_to<int> Thread, class F>
TESSERA_HD void transform(WgmmaAccum<Acc, N, MHalves>& frag, Thread thread, F&& f) {
  for_each(frag, thread, [&](Acc& x, int row, int col) { x = Acc(f(x, row, col)); });
}

// value = f(value, r) with r the thread's local row (0 .. rows_per_thread - 1, as the row
// reductions index their results): the step after a reduction, e.g. exp(x - max[r]) or o * s[r].
template <class Acc, int N, int MHalves, class F>
TESSERA_HD void transform_rows(WgmmaAccum<Acc, N, MHalves>& frag, F&& f) {
  using A = WgmmaAccum<Acc, N, MHalves>;
  TESSERA_UNROLL
  for (int mh = 0; mh < MHalves; ++mh) {
    TESSERA_UNROLL
    for (int v = 0; v < A::values_per_half; ++v) {
      int const r = A::local_row_of(A::values_per_half * mh + v);
      if constexpr (A::f32) {
        frag.regs[mh][v] = float(f(frag.regs[mh][v], r));
      } else {
        frag.set(mh, v, Acc(f(frag.get(mh, v), r)));
      }
    }
  }
}

// ---- row reductions ------------------------------------------------------------------------------

template <int MHalves>
using RowValues = Array<float, std::size_t(2 * MHalves)>;  // one float per local row of a thread

// This thread's part: out[r] = init op (its values of local row r, in value order).
template <class Acc, int N, int MHalves, class Op>
TESSERA_HD RowValues<MHalves> thread_row_reduce(WgmmaAccum<Acc, N, MHalves> const& frag, float init, Op op) {
  using A = WgmmaAccum<Acc, N, MHalves>;
  RowValues<MHalves> out;
  TESSERA_UNROLL
  for (int r = 0; r < A::rows_per_thread; ++r) out[r] = init;
  TESSERA_UNROLL
  for (int mh = 0; mh < MHalves; ++mh) {
    TESSERA_UNROLL
    for (int v = 0; v < A::values_per_half; ++v) {
      int const r = A::local_row_of(A::values_per_half * mh + v);
      out[r] = op(out[r], frag.get_float(mh, v));
    }
  }
  return out;
}

// The maximum (sum) of each of the thread's rows over the whole tile width, the same in the four
// threads of a quad: result[r] is row WgmmaAccum::local_row(thread, r). The shuffle is the warp's
// (ShflXor) unless one is given; all 32 lanes of the warp must take part.
// For online softmax, keep a running sum thread-local (thread_row_reduce with the old sum as init)
// and reduce it over the quad once at the end: quad-reducing a running sum every step would add
// the old sum four times.
template <class Acc, int N, int MHalves, class Shfl = ShflXor>
TESSERA_HD RowValues<MHalves> row_max(WgmmaAccum<Acc, N, MHalves> const& frag, Shfl shfl = {}) {
  RowValues<MHalves> m = thread_row_reduce(frag, -__builtin_inff(), MaxOp{});
  quad_allreduce(m, MaxOp{}, shfl);
  return m;
}

template <class Acc, int N, int MHalves, class Shfl = ShflXor>
TESSERA_HD RowValues<MHalves> row_sum(WgmmaAccum<Acc, N, MHalves> const& frag, Shfl shfl = {}) {
  RowValues<MHalves> s = thread_row_reduce(frag, 0.0f, SumOp{});
  quad_allreduce(s, SumOp{}, shfl);
  return s;
}

// ---- to the A operand of a following wgmma RS ------------------------------------------------------

// The accumulators as 16-bit A registers (round to nearest even; f16 accumulators to half_t are
// copied as they are): k-step s of half mh is columns 16 s .. 16 s + 15 of that half, register r
// values 8 s + 2 r (low) and 8 s + 2 r + 1.
template <class T, class Acc, int N, int MHalves>
TESSERA_HD auto to_a_operand(WgmmaAccum<Acc, N, MHalves> const& frag) {
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>,
                "tile::to_a_operand: wgmma RS with k16 reads A as f16 or bf16 pairs; use to_a_operand<half_t> or "
                "to_a_operand<bfloat16_t>");
  static_assert(N % 16 == 0, "tile::to_a_operand: an A operand is whole k-steps of 16 columns; use an accumulator "
                             "N that is a multiple of 16");
  constexpr bool valid = (std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>) && N % 16 == 0;
  constexpr int k_steps = N >= 16 ? N / 16 : 1;
  WgmmaAOperand<std::conditional_t<valid, T, half_t>, k_steps, MHalves> a;  // (one error, not two)
  if constexpr (valid) {
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh) {
      TESSERA_UNROLL
      for (int s = 0; s < k_steps; ++s) {
        TESSERA_UNROLL
        for (int r = 0; r < 4; ++r) {
          int const v = 8 * s + 2 * r;
          if constexpr (std::is_same_v<Acc, half_t> && std::is_same_v<T, half_t>) {
            a.regs[mh][s][r] = frag.regs[mh][v / 2];
          } else {
            a.regs[mh][s][r] = pack_pair<T>(frag.get_float(mh, v), frag.get_float(mh, v + 1));
          }
        }
      }
    }
  }
  return a;
}

}  // namespace tessera::tile
