// Online softmax (FlashAttention's) over the rows of a score fragment: tile::WgmmaAccum (sm90),
// tile::MmaAccum (sm80), tile::MfmaAccumT (gfx9), or any fragment with rows_per_thread and
// tile::row_max, transform_rows and thread_row_reduce over its local rows. The scores of a query row arrive a block of keys at a
// time; each block's row maximum updates the running maximum m, the block's scores become
// p = 2^(s c - m) in place (c: the scale in log2 units), and what was accumulated before (the
// output O and the row sums l) is multiplied by 2^(m_old - m_new). At the end, O / l is the
// softmax-weighted sum and m / log2(e) + ln(l) the log-sum-exp.
//
//   attention::OnlineSoftmax<Acc::rows_per_thread> sm(scale * log2e);   // per consumer thread
//   auto const factor = sm.step(s);        // s (scores, -inf where masked) becomes p
//   tile::transform_rows(o, [&](float x, int r) { return x * factor[r]; });   // rescale O (if not first)
//   ... O += P V ...
//   auto const fin = sm.finish();          // fin.inverse[r]: 1 / l (0 for a row that saw nothing),
//                                          // fin.lse[r]: natural-log LSE (-inf for such a row)
//
// Masked scores are -infinity; a row whose scores are all masked so far keeps m = -infinity and
// its p = 0 (the maximum used in the exponent is 0 then, never -inf - -inf). Row sums stay
// thread-local until finish() reduces them over the quad (tile::row_max's note).
#pragma once

#include <cmath>
#include <cstddef>

#include "tessera/core/array.hpp"
#include "tessera/core/config.hpp"
#include "tessera/tile/mfma_accum.hpp"
#include "tessera/tile/mma_accum.hpp"
#include "tessera/tile/row_reduce.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::attention {

inline constexpr float kLog2e = 1.4426950408889634f;

// 2^x: the special function unit's approximation on NVIDIA devices (ex2.approx.ftz: relative
// error about 2^-22, and 2^-inf = 0), the library's elsewhere.
TESSERA_HD float exp2_fast(float x) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#elif TESSERA_DEVICE_PASS
  return exp2f(x);
#else
  return std::exp2(x);
#endif
}

template <int Rows>
struct SoftmaxResult {
  Array<float, std::size_t(Rows)> inverse;  // 1 / l, or 0 for a row that saw no key
  Array<float, std::size_t(Rows)> lse;      // natural log, -inf for such a row
};

// Lanes: the lanes that share a row (tile::QuadLanes for the NVIDIA fragments,
// tile::HalfWaveLanes for tile::MfmaAccumT), over which finish() sums the thread-local row sums.
template <int Rows, class Lanes = tile::QuadLanes>
struct OnlineSoftmax {
  using RowArray = Array<float, std::size_t(Rows)>;
  float scale_log2;  // the scores' scale times log2(e): 1 / sqrt(d) log2(e), or log2(e) for
                     // scores already in natural units (after a chain that modifies them)
  RowArray max;      // m: the running maximum of s scale_log2 per row (-inf: nothing seen yet)
  RowArray sum;      // l: this thread's part of the running sum of p per row
  float offset;      // p = 2^(s c - m + offset): 8 for fp8 P (FlashAttention-3's: values up to 256,
                     // e4m3's range rather than its subnormals), 0 otherwise; O / l is unchanged

  TESSERA_HD explicit OnlineSoftmax(float scale_log2_, float offset_ = 0.0f) : scale_log2(scale_log2_), offset(offset_) {
    TESSERA_UNROLL
    for (int r = 0; r < Rows; ++r) max[r] = -__builtin_inff(), sum[r] = 0.0f;
  }

  // The next block of scores s (a fragment of Rows rows per thread) becomes p; returns per row the
  // factor by which what was accumulated before must be multiplied (0 where nothing was).
  template <class Frag, class Shfl = tile::ShflXor>
  TESSERA_HD RowArray step(Frag& s, Shfl shfl = {}) {
    static_assert(Frag::rows_per_thread == Rows, "attention::OnlineSoftmax: Rows must be the fragment's rows_per_thread; use "
                                                 "OnlineSoftmax<Fragment::rows_per_thread>");
    RowArray block = tile::row_max(s, shfl), factor, bias;
    TESSERA_UNROLL
    for (int r = 0; r < Rows; ++r) {
      float const m = fmaxf(max[r], block[r] * scale_log2);
      // exp2(-inf - m) is 0; where m itself is still -inf, exp2 of anything minus 0.
      float const safe = m == -__builtin_inff() ? 0.0f : m;
      factor[r] = exp2_fast(max[r] - safe);
      max[r] = m;
      bias[r] = safe - offset;
      sum[r] *= factor[r];
    }
    tile::transform_rows(s, [&](float x, int r) { return exp2_fast(x * scale_log2 - bias[r]); });
    RowArray const part = tile::thread_row_reduce(s, 0.0f, tile::SumOp{});
    TESSERA_UNROLL
    for (int r = 0; r < Rows; ++r) sum[r] += part[r];
    return factor;
  }

  // After the last block: the quad's sums combined, 1 / l and the LSE per row.
  template <class Shfl = tile::ShflXor>
  TESSERA_HD SoftmaxResult<Rows> finish(Shfl shfl = {}) const {
    RowArray total = sum;
    Lanes::allreduce(total, tile::SumOp{}, shfl);
    SoftmaxResult<Rows> out;
    TESSERA_UNROLL
    for (int r = 0; r < Rows; ++r) {
      bool const empty = total[r] == 0.0f || max[r] == -__builtin_inff();
      out.inverse[r] = empty ? 0.0f : 1.0f / total[r];
      out.lse[r] = empty ? -__builtin_inff() : (max[r] + log2f(total[r]) - offset) / kLog2e;
    }
    return out;
  }
};

}  // namespace tessera::attention
