// The gfx9 attention kernel (AMD CDNA2 / CDNA3, built with hipcc; MFMA 32 x 32 x 8): FlashAttention-
// 2's loop from the same pieces as the NVIDIA kernels (the problem, the chain and its block ranges,
// attention/block_scores.hpp, the online softmax), on the transposed products that keep P in
// registers: each wavefront owns 32 queries and computes Sᵀ = K Qᵀ (keys by queries), whose
// accumulators are, lane for lane, the B operand of Oᵀ += Vᵀ Pᵀ (tile::MfmaAccumT). One block per
// tile of BQ = 32 Warps queries of one head of one batch entry (grid: query blocks, heads, batch;
// the query blocks in reverse, longest causal tiles first).
//
// LDS: two buffers of one block's K and Vᵀ (attention/gfx9/loader.hpp). While the MFMAs use one,
// the next block travels from global memory into registers (K during S, V during the softmax and
// P V) and is written into the other, one barrier per block (the GEMM's gfx9 mainloop). Q passes
// through the second buffer into registers (the B fragments of Sᵀ) before the first block.
// tessera-header: hip-only
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/arch/gfx9/mfma.hpp"
#include "tessera/arch/opaque.hpp"
#include "tessera/attention/block_range.hpp"
#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/coord.hpp"
#include "tessera/attention/gfx9/loader.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/softmax.hpp"
#include "tessera/attention/tile_grid.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"
#include "tessera/tile/mfma_accum.hpp"

namespace tessera::attention::gfx9 {

template <class Cfg>
using Params = TileGridParams<Cfg>;

template <class Cfg>
struct Kernel {
  using E = typename Cfg::Element;
  using Chain = typename Cfg::Chain;
  using L = Loader<Cfg>;
  using Op = std::conditional_t<std::is_same_v<E, bfloat16_t>, arch::Gfx9_32x32x8_F32BF16BF16F32, arch::Gfx9_32x32x8_F32F16F16F32>;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BQ = Cfg::BQ, BKV = Cfg::BKV, d_blocks = L::d_blocks, buffer = L::buffer;
  using SAcc = tile::MfmaAccumT<BKV>;                  // Sᵀ: 32 queries x BKV keys
  using OAcc = tile::MfmaAccumT<(Dv + 31) / 32 * 32>;  // Oᵀ: 32 queries x Dv columns
  using Softmax = OnlineSoftmax<1, tile::HalfWaveLanes>;
  using QRead = pipeline::MfmaFragmentRead<E, BQ, 64>;
  using KRead = pipeline::MfmaFragmentRead<E, BKV, 64>;
  static constexpr int lds_bytes = 2 * buffer * int(sizeof(E));
  static_assert(lds_bytes == Cfg::smem_bytes, "attention::gfx9::Kernel: LDS accounting differs from the Config's");
  static constexpr int qk_pairs = (D + 15) / 16;  // Q Kᵀ's chunk pairs (16 columns; those past D are zeros: skipped)

  TESSERA_DEVICE static void run(Params<Cfg> const& p, E* lds) {
    int const tid = int(threadIdx.x), lane = tid % 64, wave = tid / 64;
    int const b = int(blockIdx.z), h = int(blockIdx.y), hk = h / p.group, q0 = int(gridDim.x - 1 - blockIdx.x) * BQ;
    int const q_len = p.load.q_len, k_len = p.load.k_len;
    auto const end = [&](int q) { return q < q_len ? q : q_len; };
    BlockRange const r = block_range(p.chain, Block{b, h, q0, end(q0 + BQ), 0, k_len, q_len, k_len}, BKV);
    Block const rows{b, h, q0 + 32 * wave, end(q0 + 32 * wave + 32), 0, k_len, q_len, k_len};  // this wavefront's
    OAcc o{};
    Softmax sm(chain_scale_log2<Chain>(p.scale));
    if (r.size() > 0) {
      pipeline::Vec16 qf[d_blocks][4];  // Qᵀ's B fragments: chunk pair p of 64-column block j
      {
        typename L::Q q;
        typename L::K k;
        typename L::V v;
        q.load(p.load, b, h, q0, tid);
        k.load(p.load, b, hk, r.first * BKV, tid);
        v.load(p.load, b, hk, r.first * BKV, tid);
        q.store(lds + buffer, tid);
        k.store(lds, tid);
        v.store(lds, tid);
        __syncthreads();
        TESSERA_UNROLL
        for (int j = 0; j < d_blocks; ++j)
          TESSERA_UNROLL
          for (int pr = 0; pr < 4; ++pr)
            if (4 * j + pr < qk_pairs) qf[j][pr] = QRead::read(lds + buffer + j * L::q_tile, lane, 32 * wave, pr);
        __syncthreads();  // Q's staging is the second buffer, which the next block fills
      }
      // The next block's K travels during S, its V during the softmax and P V (one of them in
      // registers at a time: at head dim 256 both would spill).
      for (int i = 0; i < r.size(); ++i) {
        // Opaque to the optimizer (arch/opaque.hpp): otherwise every LDS and global offset derived
        // from them is hoisted out of this loop and held in registers across it.
        int tid_i = tid, lane_i = lane;
        arch::opaque(tid_i);
        arch::opaque(lane_i);
        E* const buf = lds + (i % 2) * buffer;
        E* const other = lds + (1 - i % 2) * buffer;  // its last readers passed the previous barrier
        bool const next = i + 1 < r.size();
        int const k0 = (r.first + i + 1) * BKV;
        typename L::K k;
        if (next) k.load(p.load, b, hk, k0, tid_i);
        SAcc s = scores(buf, qf, lane_i);
        if (next) k.store(other, tid_i);
        typename L::V v;
        if (next) v.load(p.load, b, hk, k0, tid_i);
        apply_chain(p.chain, p.scale, rows, r.first + i, BKV, s, lane);
        auto const factor = sm.step(s);
        if (i > 0) tile::transform_rows(o, [&](float x, int) { return x * factor[0]; });
        accumulate(o, tile::to_b_operand<E>(s), buf + d_blocks * L::k_tile, lane_i);
        if (next) v.store(other, tid_i);
        __syncthreads();
      }
    }
    finish(p, b, h, o, sm, rows, lane);
  }

  // Sᵀ = K Qᵀ for the keys in the buffer `buf`: both operands' 16-byte chunks hold two k-steps,
  // read the same way (pipeline::MfmaFragmentRead), so each MFMA sums over the same columns.
  TESSERA_DEVICE static SAcc scores(E const* buf, pipeline::Vec16 const (&qf)[d_blocks][4], int lane) {
    SAcc s{};
    TESSERA_UNROLL
    for (int j = 0; j < d_blocks; ++j)
      TESSERA_UNROLL
      for (int pr = 0; pr < 4; ++pr) {
        if (4 * j + pr >= qk_pairs) continue;
        TESSERA_UNROLL
        for (int a = 0; a < SAcc::atoms; ++a) {
          pipeline::Vec16 const kf = KRead::read(buf + j * L::k_tile, lane, 32 * a, pr);
          TESSERA_UNROLL
          for (int st = 0; st < 2; ++st) {
            std::uint32_t const ka[2] = {kf.w[2 * st], kf.w[2 * st + 1]}, qb[2] = {qf[j][pr].w[2 * st], qf[j][pr].w[2 * st + 1]};
            Op::fma(s.regs[a], ka, qb, s.regs[a]);
          }
        }
      }
    return s;
  }

  // Oᵀ += Vᵀ Pᵀ: k-step t (keys 8 t ..) of Vᵀ's row (column of V) d = 32 m + lane % 32 is the lane's
  // 4 keys 8 t + 4 (lane / 32) .. of that row: 8 bytes of the swizzled tile.
  TESSERA_DEVICE static void accumulate(OAcc& o, tile::MfmaBOperand<E, BKV / 8> const& pt, E const* vt, int lane) {
    using VTile = typename L::VCopy::Tile;
    TESSERA_UNROLL
    for (int t = 0; t < BKV / 8; ++t)
      TESSERA_UNROLL
      for (int m = 0; m < OAcc::atoms; ++m) {
        int const row = 32 * m + lane % 32;
        std::uint32_t a[2];
        std::memcpy(a, vt + (row / 64) * L::v_tile + int(VTile::layout()(row % 64, 8 * t)) + 4 * (lane / 32), sizeof a);
        Op::fma(o.regs[m], a, pt.regs[t], o.regs[m]);
      }
  }

  // O / l (4 consecutive columns a store) and the LSE of the wavefront's queries (rows.q0 ..).
  TESSERA_DEVICE static void finish(Params<Cfg> const& p, int b, int h, OAcc const& o, Softmax const& sm, Block const& rows, int lane) {
    auto const fin = sm.finish();
    int const q = rows.q0 + lane % 32;
    if (q >= rows.q_len) return;
    E* const out = p.o + p.o_strides.offset(b, q, h);
    TESSERA_UNROLL
    for (int v = 0; v < OAcc::values; v += 4) {
      int const col = OAcc::col(lane, v);
      if (col >= Dv) continue;
      std::uint32_t const w[2] = {epilogue::convert_output_packed<E>(o.at(v) * fin.inverse[0], o.at(v + 1) * fin.inverse[0]),
                                  epilogue::convert_output_packed<E>(o.at(v + 2) * fin.inverse[0], o.at(v + 3) * fin.inverse[0])};
      std::memcpy(out + col, w, sizeof w);
    }
    if (lane < 32 && p.lse != nullptr) p.lse[(std::int64_t(b) * p.heads + h) * rows.q_len + q] = fin.lse[0];
  }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads) attention_kernel(Params<Cfg> const p) {
  __shared__ __attribute__((aligned(16))) typename Cfg::Element lds[Kernel<Cfg>::lds_bytes / sizeof(typename Cfg::Element)];
  Kernel<Cfg>::run(p, lds);
}

}  // namespace tessera::attention::gfx9
