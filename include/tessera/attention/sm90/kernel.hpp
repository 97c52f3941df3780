// The Hopper attention kernel (FlashAttention-3's design): persistent and warp-specialized.
// Warpgroup 0's first thread walks the block's tiles of queries and loads each one's Q, then its
// visited blocks' K and V through two rings of stages (attention/sm90/loader.hpp), V a block behind
// K as the consumers read them; the consumer warpgroups each own 64 of a tile's queries and run
// attention/sm90/mainloop.hpp on them, taking turns on the tensor cores, then store O and the LSE.
// The tiles' order (attention/tile_order.hpp): a head's tiles together, so that they share its K
// and V in L2, or the longest first where the chain limits the keys (causal). The parameters and
// what they say about a tile: attention/sm90/params.hpp.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/sm90/epilogue.hpp"
#include "tessera/attention/sm90/loader.hpp"
#include "tessera/attention/sm90/mainloop.hpp"
#include "tessera/attention/sm90/params.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/attention/sm90/transpose_v.hpp"
#include "tessera/attention/tile_order.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Kernel {
  using S = Storage<Cfg>;
  using Main = Mainloop<Cfg>;
  static constexpr int BQ = Cfg::BQ, BKV = Cfg::BKV, Stages = Cfg::stages, Consumers = Cfg::consumers;
  static constexpr int smem_bytes = int(sizeof(S));
  static_assert(sizeof(S) <= std::size_t(Cfg::smem_bytes + (Cfg::q_stages - 1) * Cfg::q_bytes),
                "attention::sm90::Kernel: the shared memory outgrew Config::smem_bytes's count; update the count");

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
      TileInfo const t = p.tile(at.tile);
      BlockRange const r = p.range(t);
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

  // A consumer walks its tiles, and each tile's blocks in an inner loop: first() on a tile's first
  // block, next() on each later one (issued with the previous block's P V), last() for the final
  // P V. The next tile is found before the tile's last P V.
  // Between tiles, where Config::across_tiles, cross() issues the tile's last P V with the next
  // tile's first S and writes the tile's O under that S (its LSE before); elsewhere a tile ends
  // with last() and its epilogue, and the next starts with first().
  TESSERA_DEVICE static void consume(Params<Cfg> const& p, S& s, int c, int thread) {
    float const scale_log2 = Main::natural ? kLog2e : p.scale * kLog2e;
    auto const fresh = [&] { return typename Main::Softmax(scale_log2, Cfg::fp8 ? 8.0f : 0.0f); };
    Main m{s, p.chain, p.scale, c, thread, {pipeline::Turns(s.turns), c}};
    // The next tile with keys (tiles without: O = 0 and LSE = -inf as they pass); first() and
    // cross() wait for its Q.
    int iq = 0, j = 0;
    TileOrder const order = p.order();
    TileOrder::Cursor at;
    auto const next_tile = [&](typename Main::Tile& a) {
      while (order.next(blockIdx.x, gridDim.x, j++, at)) {
        TileInfo const t = p.tile(at.tile);
        BlockRange const r = p.range(t);
        if (r.size() == 0) {
          Epilogue<Cfg>::write_empty(t, c, thread, OutputStore<Cfg>{p, t});
          continue;
        }
        a = Main::tile(t, r, iq++, c);
        return true;
      }
      return false;
    };
    auto const lse = [&](typename Main::Tile const& a, typename Main::Softmax const& sm) {
      return Epilogue<Cfg>::lse(sm, a.t, c, thread, OutputStore<Cfg>{p, a.t}, p.v_scale);
    };
    auto const write = [&](typename Main::Tile const& a, auto const& k) { Epilogue<Cfg>::write(s, a.qs, m.o, k, a.t, c, thread, OutputStore<Cfg>{p, a.t}); };
    typename Main::Tile a;
    if (!next_tile(a)) return;
    auto sm = fresh();
    int pos = 0;
    m.first(a, a.r.first, pos, sm);
    for (;;) {
      for (int n = a.r.first + 1; n < a.r.last; ++n) {
        auto const factor = m.next(a, n, ++pos, n - 1 > a.r.first, sm);
        tile::transform_rows(m.o, [&](float x, int i) { return x * factor[i]; });
      }
      bool const accumulate = a.r.size() > 1;  // (the last block's P V onto the earlier ones')
      typename Main::Tile b;
      if (!next_tile(b)) {
        m.last(pos, accumulate);
        write(a, lse(a, sm));
        return;
      }
      if constexpr (Cfg::across_tiles) {  // a's last P V with b's first S, a's O under that S
        auto const k = lse(a, sm);
        sm = fresh();
        m.cross(b, b.r.first, ++pos, accumulate, sm, [&] { write(a, k); });
      } else {
        m.last(pos++, accumulate);
        write(a, lse(a, sm));
        sm = fresh();
        m.first(b, b.r.first, pos, sm);
      }
      a = b;
    }
  }
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
