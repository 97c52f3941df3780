// The sm80 attention kernel (FlashAttention-2's design; mma.sync, ldmatrix, cp.async, so it runs
// on sm_80 and every later NVIDIA GPU, the H100 included). One block per tile of BQ queries of
// one query head of one batch entry: grid (query blocks, heads, batch), the query blocks in
// reverse so that the longest tiles of a causal mask start first. Each of the Warps warps owns 16
// of the tile's queries; the block shares the K and V ring. The tile's visited blocks of keys come
// from its score chain (attention/block_range.hpp: blocks every query would mask are never loaded
// or computed); a tile that sees no key stores O = 0 and LSE = -inf.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/sm80/loader.hpp"
#include "tessera/attention/sm80/mainloop.hpp"
#include "tessera/attention/sm80/storage.hpp"
#include "tessera/attention/tile_grid.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
using Params = TileGridParams<Cfg>;

template <class Cfg>
struct Kernel {
  using S = Storage<Cfg>;
  using Main = Mainloop<Cfg>;
  static constexpr int BQ = Cfg::BQ, BKV = Cfg::BKV;
  static constexpr int smem_bytes = int(sizeof(S));
  static_assert(smem_bytes == Cfg::smem_bytes, "attention::sm80::Kernel: shared-memory accounting differs from the Config's");

  TESSERA_DEVICE static void run(Params<Cfg> const& p, S& s) {
    int const tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int const q0 = int(gridDim.x - 1 - blockIdx.x) * BQ, h = int(blockIdx.y), b = int(blockIdx.z);
    int const q_len = p.load.q_len, k_len = p.load.k_len;
    auto const end = [&](int q) { return q < q_len ? q : q_len; };
    BlockRange const r = block_range(p.chain, Block{b, h, q0, end(q0 + BQ), 0, k_len, q_len, k_len}, BKV);
    Block const rows{b, h, q0 + 16 * warp, end(q0 + 16 * warp + 16), 0, k_len, q_len, k_len};  // this warp's
    typename Main::OAcc o{};
    typename Main::Softmax sm(chain_scale_log2<typename Cfg::Chain>(p.scale));
    if (r.size() > 0) Main::run(s, Loader<Cfg>(p.load, b, h, h / p.group, q0), p.chain, p.scale, rows, r, tid, o, sm);
    struct Store {
      Params<Cfg> const& p;
      int b, h, q_len;
      TESSERA_DEVICE void operator()(int q, int col, std::uint32_t pair) const {
        *reinterpret_cast<std::uint32_t*>(p.o + p.o_strides.offset(b, q, h) + col) = pair;
      }
      TESSERA_DEVICE void lse(int q, float value) const {
        if (p.lse != nullptr) p.lse[(std::int64_t(b) * p.heads + h) * q_len + q] = value;
      }
    };
    Main::finish(o, sm, rows, lane, Store{p, b, h, q_len});
  }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) attention_kernel(__grid_constant__ Params<Cfg> const p) {
  extern __shared__ __align__(1024) char smem[];
  Kernel<Cfg>::run(p, *reinterpret_cast<Storage<Cfg>*>(smem));
}

}  // namespace tessera::attention::sm80
