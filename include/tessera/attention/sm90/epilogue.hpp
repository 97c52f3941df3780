// The Hopper attention kernel's epilogue: a consumer's rows of O / l and their LSE to memory.
// Where Config::staged_o, O goes through shared memory and TMA: stmatrix writes the accumulator's
// 16 x 16 blocks into the consumer's rows of the tile's own Q stage (the tile no longer reads
// it; the same 128-byte swizzle as Q's 64-column blocks), one thread stores them with a 4-D TMA
// box and releases the Q stage once the store has read it (the next tile runs on the other Q
// stage meanwhile). Elsewhere, and for rows a box would carry past a variable-length sequence,
// the threads store pairs of O. The LSE: a thread of each quad, a value a row.
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/stmatrix.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/arch/sm90/wgmma.hpp"  // fence_proxy_async_shared
#include "tessera/attention/sm90/mainloop.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Epilogue {
  using Main = Mainloop<Cfg>;
  using S = Storage<Cfg>;
  using OAcc = typename Main::OAcc;
  using SAcc = typename Main::SAcc;
  using Softmax = typename Main::Softmax;
  static constexpr int Dv = Cfg::Dv;

  using RowScale = typename Softmax::RowArray;

  // The LSE of the consumer's rows of tile t to memory (store.lse); returns the factor of each
  // of the thread's rows of O: 1 / l (times fp8 V's scale v_scale; 0 for a row that saw no key).
  // It needs no O: the kernel may store it before the tile's last P V is done.
  template <class Store>
  TESSERA_DEVICE static RowScale lse(Softmax const& sm, TileInfo const& t, int c, int thread, Store&& store, float v_scale = 1.0f) {
    auto const fin = sm.finish();
    store_lse(fin.lse, t, c, thread, store);
    RowScale k;
    TESSERA_UNROLL
    for (int i = 0; i < SAcc::rows_per_thread; ++i) k[i] = fin.inverse[i] * v_scale;
    return k;
  }

  // O times k (lse()'s) of the consumer's rows of tile t (its Q in stage qs). Staged
  // (Config::staged_o, and store.staged(row0): its rows may take the TMA box) through Q's stage
  // and store.tma, else store(q, col, pair) a pair at a time for the rows below q_len. With
  // Config::staged_o the Q stage is released here, after O's store (else the mainloop released it
  // after the tile's last S).
  template <class Store>
  TESSERA_DEVICE static void write(S& s, int qs, OAcc const& o, RowScale const& k, TileInfo const& t, int c, int thread, Store&& store) {
    using Out = typename Cfg::Output;
    auto const pair = [&](int v) {
      float const scale = k[OAcc::local_row_of(v)];
      return epilogue::convert_output_packed<Out>(o.regs[0][v] * scale, o.regs[0][v + 1] * scale);
    };
    int const row0 = 64 * c;
    if constexpr (Cfg::staged_o) {
      if (store.staged(row0)) {
        // The accumulator's 16 x 16 blocks as stmatrix x4 (pairs 4 jp .. 4 jp + 3: rows g and g + 8 of
        // columns 16 jp and 16 jp + 8), into Q's 64-column blocks (the same 128-byte swizzle).
        int const lane = thread % 32, warp = thread / 32, m = lane / 8;
        TESSERA_UNROLL
        for (int jp = 0; jp < Cfg::Dvp / 16; ++jp) {
          int const row = row0 + 16 * warp + 8 * (m % 2) + lane % 8, col = 16 * jp + 8 * (m / 2);
          Out* const block = reinterpret_cast<Out*>(&s.q[qs][col / 64][0]);
          arch::sm90::stmatrix_x4(arch::smem_address(block + int(S::QBlock::layout()(row, col % 64))), pair(8 * jp), pair(8 * jp + 2),
                                  pair(8 * jp + 4), pair(8 * jp + 6));
        }
        arch::sm90::fence_proxy_async_shared();
        pipeline::consumer_barrier(c);
        if (thread == 0) {
          TESSERA_UNROLL
          for (int j = 0; j < (Cfg::Dvp + 63) / 64; ++j) store.tma(j, row0, arch::smem_address(&s.q[qs][j][0]) + std::uint32_t(row0 * 128));
          arch::sm90::tma_store_commit();
          arch::sm90::tma_store_wait_read<0>();
          arch::mbarrier_arrive(arch::smem_address(&s.q_empty[qs]));
        }
        return;
      }
    }
    TESSERA_UNROLL
    for (int v = 0; v < OAcc::values; v += 2) store_pair(t, c, thread, store, v, pair(v));
    if constexpr (Cfg::staged_o)
      if (thread == 0) arch::mbarrier_arrive(arch::smem_address(&s.q_empty[qs]));
  }

  // A tile without a key to see: O = 0 and LSE = -inf (its Q was never loaded). (A loop, not
  // unrolled: it may run between tiles, next to the previous tile's O.)
  template <class Store>
  TESSERA_DEVICE static void write_empty(TileInfo const& t, int c, int thread, Store&& store) {
    TESSERA_UNROLL_N(1)
    for (int v = 0; v < OAcc::values; v += 2) store_pair(t, c, thread, store, v, 0u);
    TESSERA_UNROLL_N(1)
    for (int i = 0; i < SAcc::rows_per_thread; ++i) store_lse_row(t, c, thread, store, i, -__builtin_inff());
  }

 private:
  template <class Lse, class Store>
  TESSERA_DEVICE static void store_lse(Lse const& lse, TileInfo const& t, int c, int thread, Store&& store) {
    TESSERA_UNROLL
    for (int i = 0; i < SAcc::rows_per_thread; ++i) store_lse_row(t, c, thread, store, i, lse[i]);
  }
  // Values v and v + 1 of the accumulator's (a pair of O) if below q_len and Dv.
  template <class Store>
  TESSERA_DEVICE static void store_pair(TileInfo const& t, int c, int thread, Store&& store, int v, std::uint32_t pair) {
    int const q = t.q0 + 64 * c + OAcc::row(thread, v), col = OAcc::col(thread, v);
    if (q < t.q_len && (Cfg::Dvp == Dv || col < Dv)) store(q, col, pair);
  }
  // Row i's LSE (of the rows of the accumulator's thread), by a thread of each quad.
  template <class Store>
  TESSERA_DEVICE static void store_lse_row(TileInfo const& t, int c, int thread, Store&& store, int i, float lse) {
    int const q = t.q0 + 64 * c + SAcc::local_row(thread, i);
    if (thread % 4 == 0 && q < t.q_len) store.lse(q, lse);
  }
};

}  // namespace tessera::attention::sm90
