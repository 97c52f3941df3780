// The gfx9 attention kernel's loads: Q of a tile and each block of keys' K and V, from global
// memory into registers (buffer loads: pipeline::LdsTileCopy, zeros past the sequence and past the
// head dimension) and from there into LDS, in tiles of 64 columns: Q and K as they are (K-major,
// read back as MFMA fragments by pipeline::MfmaFragmentRead), V transposed (Vᵀ: 64 of V's columns
// as rows of BKV keys, so that a lane reads its 4 keys of one column as 8 bytes).
//
//   Loader<Cfg>::K k;  k.load(params, b, hk, k0, tid);  ...  k.store(buffer, tid);   // K's tiles
//   Loader<Cfg>::V v;  v.load(params, b, hk, k0, tid);  ...  v.store(buffer, tid);   // then Vᵀ's
// An LDS buffer holds one block: K's d_blocks tiles (BKV x 64), then Vᵀ's dv_blocks (64 x BKV).
// tessera-header: hip-only
#pragma once

#include "tessera/attention/problem.hpp"
#include "tessera/attention/tile_grid.hpp"
#include "tessera/core/config.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"

namespace tessera::attention::gfx9 {

template <class Cfg>
struct Loader {
  using E = typename Cfg::Element;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BQ = Cfg::BQ, BKV = Cfg::BKV, Threads = Cfg::threads;
  static constexpr int d_blocks = Cfg::Dp / 64, dv_blocks = Cfg::Dvp / 64;
  using QCopy = pipeline::LdsTileCopy<E, BQ, 64, Threads, true, true>;    // 64 columns of Q
  using KCopy = pipeline::LdsTileCopy<E, BKV, 64, Threads, true, true>;   // of K
  using VCopy = pipeline::LdsTileCopy<E, 64, BKV, Threads, false, true>;  // 64 columns of V, as rows of Vᵀ
  static constexpr int q_tile = BQ * 64, k_tile = BKV * 64, v_tile = 64 * BKV;  // elements of a tile
  static constexpr int buffer = d_blocks * k_tile + dv_blocks * v_tile;        // one block's K, then Vᵀ

  using Params = QkvTensors<E>;

  // Queries q0 .. q0 + BQ - 1 of head h, batch entry b.
  struct Q {
    QCopy c[d_blocks];
    TESSERA_DEVICE void load(Params const& p, int b, int h, int q0, int tid) {
      int const rows = p.q_len - q0;
      E const* const src = p.q + p.qs.offset(b, q0, h);
      TESSERA_UNROLL
      for (int j = 0; j < d_blocks; ++j)
        c[j].load(src + 64 * j, p.qs.seq, QCopy::extent(rows, D - 64 * j, p.qs.seq), 0, 0, rows, D - 64 * j, tid);
    }
    TESSERA_DEVICE void store(E* lds, int tid) const {
      TESSERA_UNROLL
      for (int j = 0; j < d_blocks; ++j) c[j].store(lds + j * q_tile, tid);
    }
  };
  // Keys k0 .. k0 + BKV - 1 of K/V head hk.
  struct K {
    KCopy c[d_blocks];
    TESSERA_DEVICE void load(Params const& p, int b, int hk, int k0, int tid) {
      int const rows = p.k_len - k0;
      E const* const src = p.k + p.ks.offset(b, k0, hk);
      TESSERA_UNROLL
      for (int j = 0; j < d_blocks; ++j)
        c[j].load(src + 64 * j, p.ks.seq, KCopy::extent(rows, D - 64 * j, p.ks.seq), 0, 0, rows, D - 64 * j, tid);
    }
    TESSERA_DEVICE void store(E* buf, int tid) const {
      TESSERA_UNROLL
      for (int j = 0; j < d_blocks; ++j) c[j].store(buf + j * k_tile, tid);
    }
  };
  struct V {
    VCopy c[dv_blocks];
    TESSERA_DEVICE void load(Params const& p, int b, int hk, int k0, int tid) {
      int const rows = p.k_len - k0;
      E const* const src = p.v + p.vs.offset(b, k0, hk);
      TESSERA_UNROLL
      for (int j = 0; j < dv_blocks; ++j)
        c[j].load(src + 64 * j, p.vs.seq, VCopy::extent(Dv - 64 * j, rows, p.vs.seq), 0, 0, Dv - 64 * j, rows, tid);
    }
    TESSERA_DEVICE void store(E* buf, int tid) const {
      TESSERA_UNROLL
      for (int j = 0; j < dv_blocks; ++j) c[j].store(buf + d_blocks * k_tile + j * v_tile, tid);
    }
  };
};

}  // namespace tessera::attention::gfx9
