// The sm80 attention kernel's loads: the query tile and each block of keys' K and V, from global
// memory into attention/sm80/storage.hpp's blocks by cp.async (16-byte chunks; every thread of
// the block takes a share). Rows past the sequence and columns past the head dimension arrive as
// zeros: a zero key row or value row adds nothing where the kernel masks the key, a zero column
// adds nothing to Q K^T (the k extent is the head dimension rounded up to 16, the MMA's k).
//
//   Loader<Cfg> ld(params, b, h, q0);                  // this tile's Q and its K/V head
//   ld.q(smem, tid);  ld.k(smem, stage, k0, tid);  ld.v(smem, stage, k0, tid);
//   arch::cp_async_commit();                           // the caller groups and waits
// tessera-header: cuda-only
#pragma once

#include <bit>
#include <cstdint>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/opaque.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/attention/problem.hpp"
#include "tessera/attention/sm80/storage.hpp"
#include "tessera/attention/tile_grid.hpp"
#include "tessera/core/config.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
struct Loader {
  using E = typename Cfg::Element;
  using S = Storage<Cfg>;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BQ = Cfg::BQ, BKV = Cfg::BKV, Threads = Cfg::threads;
  // The chunks of 8 columns the MMAs read: Q K^T's k extent (D rounded up to 16), V's columns.
  static constexpr int qk_chunks = (D + 15) / 16 * 2, v_chunks = Dv / 8;

  using Params = QkvTensors<E>;

  E const* q_head;  // row 0 of this tile's query head, key head
  E const* k_head;
  E const* v_head;
  std::int64_t q_stride, k_stride, v_stride;
  int q_rows, k_len;  // queries of the tile (from q0) that exist, keys of the sequence

  TESSERA_DEVICE Loader(Params const& p, int b, int h, int hk, int q0)
      : q_head(p.q + p.qs.offset(b, q0, h)),
        k_head(p.k + p.ks.offset(b, 0, hk)),
        v_head(p.v + p.vs.offset(b, 0, hk)),
        q_stride(p.qs.seq),
        k_stride(p.ks.seq),
        v_stride(p.vs.seq),
        q_rows(p.q_len - q0),
        k_len(p.k_len) {}

  TESSERA_DEVICE void q(S& s, int tid) const { copy<BQ, qk_chunks, Cfg::Dp>(arch::smem_address(&s.q[0][0]), q_head, q_stride, q_rows, D, tid); }
  // Keys k0 .. k0 + BKV - 1 into ring stage `stage`.
  TESSERA_DEVICE void k(S& s, int stage, int k0, int tid) const {
    copy<BKV, qk_chunks, Cfg::Dp>(arch::smem_address(&s.k[stage][0][0]), k_head + k0 * k_stride, k_stride, k_len - k0, D, tid);
  }
  TESSERA_DEVICE void v(S& s, int stage, int k0, int tid) const {
    copy<BKV, v_chunks, Cfg::Dvp>(arch::smem_address(&s.v[stage][0][0]), v_head + k0 * v_stride, v_stride, k_len - k0, Dv, tid);
  }

  // The copies' shape (host-tested): with a power-of-two number of chunks a row (`wide`, zero
  // chunks added up to it where the storage has them, as it has for head dimensions 72 and 96),
  // each thread copies one column of chunks (tid % wide) every `step` rows from row tid / wide <
  // step, and its copy `it` lands at slot(first, it, step): row r0 + it step's chunk is swizzled by
  // (r0 % 8) ^ ((it step) % 8), a constant XOR of the first one's.
  template <int Chunks>
  static constexpr int wide_chunks = int(std::bit_ceil(unsigned(Chunks)));
  template <int Chunks, int Stored>
  static constexpr bool regular = wide_chunks<Chunks> * 8 <= Stored && Threads % wide_chunks<Chunks> == 0;
  TESSERA_HD static constexpr std::uint32_t slot(std::uint32_t first, int it, int step) {
    return (first + std::uint32_t(it * step * S::row_bytes)) ^ std::uint32_t((it * step) % 8 * 16);
  }

 private:
  // Rows 0 .. Rows - 1 (`rows` of them exist, `stride` elements apart), chunks 0 .. Chunks - 1 of
  // each (`cols` columns exist) into the blocks at `dst` (128-byte aligned; Stored columns a row).
  template <int Rows, int Chunks, int Stored>
  TESSERA_DEVICE static void copy(std::uint32_t dst, E const* src, std::int64_t stride, int rows, int cols, int tid) {
    constexpr int wide = wide_chunks<Chunks>, step = Threads / wide;
    if constexpr (regular<Chunks, Stored>) {
      int const r0 = tid / wide, c = 8 * (tid % wide);
      if (step > Rows && r0 >= Rows) return;
      // Opaque to the optimizer: otherwise the products it * pitch are hoisted out of the kernel's
      // loop over blocks of keys, Rows / step 64-bit registers held across it (measured, sm_90a:
      // hd 256, 320 bytes of spills; hd 128, 253 registers, 172 with it).
      std::int64_t pitch = step * stride;
      arch::opaque(pitch);
      E const* const from = src + r0 * stride + c;
      std::uint32_t const to = dst + S::template offset<Rows>(r0, c);
      int const left = rows - r0;
      bool const col_in = c < cols;
      TESSERA_UNROLL
      for (int it = 0; it < (Rows + step - 1) / step; ++it) {
        bool const in = col_in && it * step < left;
        arch::cp_async_zfill<16>(slot(to, it, step), in ? from + it * pitch : src, in ? 16 : 0);
      }
    } else {
      int t = tid;
      arch::opaque(t);  // as above: the per-copy offsets stay in the loop
      constexpr int total = Rows * Chunks, iters = (total + Threads - 1) / Threads;
      TESSERA_UNROLL
      for (int it = 0; it < iters; ++it) {
        int const i = t + it * Threads;
        if (total % Threads != 0 && i >= total) break;
        int const r = i / Chunks, c = 8 * (i % Chunks);
        bool const in = r < rows && c < cols;
        arch::cp_async_zfill<16>(dst + S::template offset<Rows>(r, c), in ? src + r * stride + c : src, in ? 16 : 0);
      }
    }
  }
};

}  // namespace tessera::attention::sm80
