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

  // O / l and the LSE of the consumer's rows of tile t (its Q in stage qs), an empty tile (no key
  // to see: o and sm untouched) O = 0 and LSE = -inf. O: staged (Config::staged_o, a tile that
  // had keys, and store.staged(row0): its rows may take the TMA box) through Q's stage and
  // store.tma, else store(q, col, pair) a pair at a time for the rows below q_len; then Q's
  // stage is released.
  // (v_scale: fp8 V's scale, 1 otherwise.)
  template <class Store>
  TESSERA_DEVICE static void write(S& s, int qs, OAcc& o, Softmax const& sm, bool empty, TileInfo const& t, int c, int thread,
                                    Store&& store, float v_scale = 1.0f) {
    auto const fin = sm.finish();
    using Out = typename Cfg::Output;
    auto const pair = [&](int v) {  // (an empty tile's o holds the last tile's values: zeros written)
      int const i = OAcc::local_row_of(v);
      return empty ? 0u : epilogue::convert_output_packed<Out>(o.regs[0][v] * (fin.inverse[i] * v_scale), o.regs[0][v + 1] * (fin.inverse[i] * v_scale));
    };
    int const row0 = 64 * c;
    if constexpr (Cfg::staged_o) {
      if (!empty && store.staged(row0)) {
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
        store_lse(fin, t, c, thread, store);
        return;
      }
    }
    TESSERA_UNROLL
    for (int v = 0; v < OAcc::values; v += 2) {
      int const q = t.q0 + row0 + OAcc::row(thread, v), col = OAcc::col(thread, v);
      if (q < t.q_len && (Cfg::Dvp == Dv || col < Dv)) store(q, col, pair(v));
    }
    if constexpr (Cfg::staged_o)
      if (!empty && thread == 0) arch::mbarrier_arrive(arch::smem_address(&s.q_empty[qs]));
    store_lse(fin, t, c, thread, store);
  }

 private:
  template <class Fin, class Store>
  TESSERA_DEVICE static void store_lse(Fin const& fin, TileInfo const& t, int c, int thread, Store&& store) {
    if (thread % 4 != 0) return;
    TESSERA_UNROLL
    for (int i = 0; i < SAcc::rows_per_thread; ++i) {
      int const q = t.q0 + 64 * c + SAcc::local_row(thread, i);
      if (q < t.q_len) store.lse(q, fin.lse[i]);
    }
  }

};

}  // namespace tessera::attention::sm90
