// The Hopper attention kernel (FlashAttention-3's design): persistent and warp-specialized.
// Warpgroup 0's first thread walks the block's tiles of queries and loads each one's Q, then its
// visited blocks' K and V through two rings of stages (attention/sm90/loader.hpp), V a block behind
// K as the consumers read them; the consumer warpgroups each own 64 of a tile's queries and run
// attention/sm90/mainloop.hpp on them, taking turns on the tensor cores, then store O and the LSE.
// The tiles' order (attention/tile_order.hpp): a head's tiles together, so that they share its K
// and V in L2, or the longest first where the chain limits the keys (causal).
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/sm90/epilogue.hpp"
#include "tessera/attention/sm90/loader.hpp"
#include "tessera/attention/sm90/mainloop.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/attention/sm90/transpose_v.hpp"
#include "tessera/attention/tile_order.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Params {
  typename Loader<Cfg>::Params load;
  typename Cfg::Chain chain;
  int batch, heads, group, q_len, k_len, q_blocks;  // (variable lengths: the longest sequences')
  float scale;                                      // the scores': the softmax scale (fp8: times Q's and K's scales)
  float v_scale = 1.0f;                             // fp8: V's scale
  Strides o_strides;
  typename Cfg::Output* o;
  float* lse;                                       // null: not written
  int const *cu_q = nullptr, *cu_k = nullptr;       // variable lengths: batch + 1 offsets each
  std::int64_t total_q = 0, total_k = 0;            // variable lengths: the packed tokens (LSE's row: total_q)
  TESSERA_HD TileOrder order() const { return {q_blocks, heads, batch, Cfg::Chain::limits_keys, cu_q, Cfg::BQ}; }
  TESSERA_HD int tiles() const { return order().tiles(); }
};

template <class Cfg>
struct Kernel {
  using S = Storage<Cfg>;
  using Main = Mainloop<Cfg>;
  static constexpr int BQ = Cfg::BQ, BKV = Cfg::BKV, Stages = Cfg::stages, Consumers = Cfg::consumers;
  static constexpr int smem_bytes = int(sizeof(S));
  static_assert(sizeof(S) <= std::size_t(Cfg::smem_bytes + (Cfg::q_stages - 1) * Cfg::q_bytes),
                "attention::sm90::Kernel: the shared memory outgrew Config::smem_bytes's count; update the count");

  // A tile's sequences: batch entry c.batch's (variable lengths: at its offsets in the tokens of
  // batch entry 0).
  TESSERA_DEVICE static TileInfo tile(Params<Cfg> const& p, TileCoord const& c) {
    if (p.cu_q == nullptr) return TileInfo{c.batch, c.head, c.head / p.group, c.q_block * BQ, p.q_len, p.k_len, c.batch, 0, 0};
    // (Lengths clipped to the longest the problem states and the tokens it holds: offsets that
    // break Problem::variable_lengths's contract leave rows unwritten, never write past O or LSE.)
    int const q_start = p.cu_q[c.batch], k_start = p.cu_k[c.batch];
    int const q_len = min(min(p.cu_q[c.batch + 1] - q_start, p.q_len), int(max(std::int64_t(0), p.total_q - q_start)));
    int const k_len = min(min(p.cu_k[c.batch + 1] - k_start, p.k_len), int(max(std::int64_t(0), p.total_k - k_start)));
    return TileInfo{c.batch, c.head, c.head / p.group, c.q_block * BQ, q_len, k_len, 0, q_start, k_start};
  }
  TESSERA_DEVICE static BlockRange range(Params<Cfg> const& p, TileInfo const& t) {
    int const q1 = t.q0 + BQ < t.q_len ? t.q0 + BQ : t.q_len;
    return block_range(p.chain, Block{t.b, t.h, t.q0, q1, 0, t.k_len, t.q_len, t.k_len}, BKV);
  }

  TESSERA_DEVICE static void run(Params<Cfg> const& p, S& s) {
    int const tid = threadIdx.x;
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    if (tid == 0) {
      Loader<Cfg>::prefetch(p.load);
      kp.init(Consumers);
      vp.init(Consumers);
      if constexpr (Cfg::fp8) typename S::Pipe(s.raw_barriers).init(1);  // freed by the producer
      for (int i = 0; i < S::QStages; ++i) {
        arch::mbarrier_init(arch::smem_address(&s.q_full[i]), 1);
        arch::mbarrier_init(arch::smem_address(&s.q_empty[i]), Consumers);
      }
      if constexpr (Cfg::turns) pipeline::Turns(s.turns).init(4);
      arch::fence_mbarrier_init();
    }
    __syncthreads();
    pipeline::run_roles<Cfg::producer_registers, Cfg::consumer_registers>(tid / 128, [&] { produce(p, s, tid); }, [&](int c) { consume(p, s, c, tid % 128); });
  }

  // Thread 0 loads; with fp8 every producer thread also transposes each stage of V (V lands a
  // block ahead of its transposition: load_v's position runs one ahead of pos then).
  TESSERA_DEVICE static void produce(Params<Cfg> const& p, S& s, int tid) {
    if (!Cfg::fp8 && tid != 0) return;
    typename S::Pipe const kp(s.k_barriers), vp(s.v_barriers);
    // Q's stages and phases count the tiles that have keys (iq): a tile without any loads nothing,
    // and its consumers wait for nothing (its O is 0). With two Q stages (Config::q_stages), the
    // next tile's Q loads while this one runs.
    int pos = 0, iq = 0;
    TileOrder const order = p.order();
    TileOrder::Cursor at;
    for (int j = 0; order.next(blockIdx.x, gridDim.x, j, at); ++j) {
      TileInfo const t = tile(p, at.tile);
      BlockRange const r = range(p, t);
      if (r.size() == 0) continue;
      if (tid == 0) {
        int const qs = iq % S::QStages;
        std::uint32_t const q_full = arch::smem_address(&s.q_full[qs]);
        if (iq >= S::QStages) arch::mbarrier_wait(arch::smem_address(&s.q_empty[qs]), std::uint32_t((iq / S::QStages - 1) & 1));
        arch::mbarrier_arrive_expect_tx(q_full, S::q_bytes);
        Loader<Cfg>::load_q(s, p.load, qs, q_full, t.mb, t.h, t.q_start + t.q0);
      }
      ++iq;
      auto const load_k = [&](int n, int i) {
        Loader<Cfg>::load_k(s, p.load, i % Stages, kp.producer_acquire(i, S::k_bytes), t.mb, t.hk, t.k_start + n * BKV);
      };
      auto const load_v = [&](int n, int i) {
        std::uint64_t* const bars = [&] {
          if constexpr (Cfg::fp8) return s.raw_barriers;  // (V^T's are the transposition's)
          else return s.v_barriers;
        }();
        Loader<Cfg>::load_v(s, p.load, i % Stages, typename S::Pipe(bars).producer_acquire(i, S::v_bytes), t.mb, t.hk, t.k_start + n * BKV);
      };
      if constexpr (Cfg::fp8) {
        if (tid == 0) load_k(r.first, pos), load_v(r.first, pos);
        for (int n = r.first + 1; n < r.last; ++n, ++pos) {
          if (tid == 0) load_k(n, pos + 1), load_v(n, pos + 1);
          TransposeV<Cfg>::run(s, pos, tid);
        }
        TransposeV<Cfg>::run(s, pos++, tid);
      } else {
        load_k(r.first, pos);
        for (int n = r.first + 1; n < r.last; ++n, ++pos) {
          load_k(n, pos + 1);
          load_v(n - 1, pos);
        }
        load_v(r.last - 1, pos++);
      }
    }
  }

  // A consumer walks its tiles' blocks as one sequence: first() on its first block, next() on
  // each later one of a tile (issued with the previous block's P V), last() for the final P V.
  // Between tiles, where Config::across_tiles, cross() issues the tile's last P V with the next
  // tile's first S and writes the tile's O under that S (its LSE before); elsewhere a tile ends
  // with last() and its epilogue, and the next starts with first().
  TESSERA_DEVICE static void consume(Params<Cfg> const& p, S& s, int c, int thread) {
    float const scale_log2 = Main::natural ? kLog2e : p.scale * kLog2e;
    auto const fresh = [&] { return typename Main::Softmax(scale_log2, Cfg::fp8 ? 8.0f : 0.0f); };
    Main m{s, p.chain, p.scale, c, thread, {pipeline::Turns(s.turns), c}};
    // The next tile with keys, its Q landed (tiles without: O = 0 and LSE = -inf as they pass).
    int iq = 0, j = 0;
    TileOrder const order = p.order();
    TileOrder::Cursor at;
    auto const next_tile = [&](typename Main::Tile& a) {
      while (order.next(blockIdx.x, gridDim.x, j++, at)) {
        TileInfo const t = tile(p, at.tile);
        BlockRange const r = range(p, t);
        if (r.size() == 0) {
          Epilogue<Cfg>::write_empty(t, c, thread, Store{p, t});
          continue;
        }
        a = Main::tile(t, r, iq++, c);
        return true;
      }
      return false;
    };
    auto const lse = [&](typename Main::Tile const& a, typename Main::Softmax const& sm) {
      return Epilogue<Cfg>::lse(sm, a.t, c, thread, Store{p, a.t}, p.v_scale);
    };
    auto const write = [&](typename Main::Tile const& a, auto const& k) { Epilogue<Cfg>::write(s, a.qs, m.o, k, a.t, c, thread, Store{p, a.t}); };
    typename Main::Tile a;
    if (!next_tile(a)) return;
    auto sm = fresh();
    int pos = 0, n = a.r.first;
    m.first(a, n, pos, sm);
    for (;;) {
      if (n + 1 < a.r.last) {
        auto const factor = m.next(a, n + 1, ++pos, n > a.r.first, sm);
        tile::transform_rows(m.o, [&](float x, int i) { return x * factor[i]; });
        ++n;
        continue;
      }
      if constexpr (Cfg::across_tiles) {  // a's last P V with the next tile's first S, a's O under that S
        typename Main::Tile b;
        if (!next_tile(b)) break;
        auto const k = lse(a, sm);
        sm = fresh();
        m.cross(b, b.r.first, ++pos, n > a.r.first, sm, [&] { write(a, k); });
        a = b, n = b.r.first;
      } else {
        m.last(pos++, n > a.r.first);
        write(a, lse(a, sm));
        if (!next_tile(a)) return;
        sm = fresh();
        m.first(a, n = a.r.first, pos, sm);
      }
    }
    m.last(pos, n > a.r.first);
    write(a, lse(a, sm));
  }

  // O and the LSE of a tile to memory (attention/sm90/epilogue.hpp's Store).
  struct Store {
    Params<Cfg> const& p;
    TileInfo const& t;
    TESSERA_DEVICE void operator()(int q, int col, std::uint32_t pair) const {
      *reinterpret_cast<std::uint32_t*>(p.o + p.o_strides.offset(t.mb, t.q_start + q, t.h) + col) = pair;
    }
    // Whether a TMA box of the 64 rows from row0 holds only this tile's rows (variable
    // lengths: the next sequence's follow; fixed: the map's extent clips).
    TESSERA_DEVICE bool staged(int row0) const { return p.cu_q == nullptr || t.q0 + row0 + 64 <= t.q_len; }
    TESSERA_DEVICE void tma(int j, int row0, std::uint32_t smem) const {
      arch::sm90::tma_store_4d(&p.load.o, 64 * j, t.q_start + t.q0 + row0, t.h, t.mb, smem);
    }
    TESSERA_DEVICE void lse(int q, float value) const {  // Problem::lse_offset
      if (p.lse == nullptr) return;
      if (p.cu_q != nullptr) p.lse[t.h * p.total_q + t.q_start + q] = value;
      else p.lse[(std::int64_t(t.b) * p.heads + t.h) * t.q_len + q] = value;
    }
  };
};

// The kernel's body needs sm_90a (wgmma, setmaxnreg); built for another target it is a marker
// (a static shared variable the host reads to refuse the launch), as the GEMM's sm90 kernel is.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) attention_kernel(__grid_constant__ Params<Cfg> const p) {
#if defined(TESSERA_ARCH_SM90A)
  extern __shared__ __align__(1024) char smem[];
  Kernel<Cfg>::run(p, *reinterpret_cast<Storage<Cfg>*>(smem));
#elif TESSERA_DEVICE_PASS
  (void)p;
  __shared__ int built_without_sm90a;
  asm volatile("st.shared.u32 [%0], 0;\n" ::"r"(arch::smem_address(&built_without_sm90a)) : "memory");
  TESSERA_UNREACHABLE("the sm90 attention kernel needs sm_90a: build with CMAKE_CUDA_ARCHITECTURES=90a");
#endif
}

}  // namespace tessera::attention::sm90
