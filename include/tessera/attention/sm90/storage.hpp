// The Hopper attention kernel's shared memory: the query tile, the K and V rings and their
// barriers, as one struct (attention/sm90/kernel.hpp), at the head dimensions rounded up to whole
// spans (Config::Dp, Dvp). Q and K are K-major (the head dimension contiguous): blocks of one
// 128-byte span of columns (64 16-bit, 128 8-bit), each a tile::SwizzledTile of 128-byte rows,
// which a TMA box of a span x rows fills. 16-bit V is the B operand of P V, N-major (its head
// dimension contiguous): tile::MnMajorTile blocks of 64 of V's columns by BKV keys (of 32, with
// the 64-byte swizzle, where Dv is not whole 64-column spans: Config::v_span). fp8 V lands as
// it is stored (raw: 128-column spans by BKV keys) and the producer writes V^T (K-major: Dv rows
// of 128 k-slots, attention/fp8_layout.hpp's order) for the consumers.
//
//   wgmma descriptors: q_desc(qs, row0, ks) (Q stage qs: rows row0 .. row0 + 63, k-step ks of the head dim),
//   k_desc(stage, ks) (all BKV keys), v_desc(stage, ks) (k-step ks of the keys, all of V's columns)
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/pipeline/tma_pipeline.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/tile/smem_layout.hpp"
#include "tessera/tile/wgmma_tile.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Storage {
  using E = typename Cfg::Element;
  static constexpr int D = Cfg::Dp, Dv = Cfg::Dvp, BQ = Cfg::BQ, BKV = Cfg::BKV, Stages = Cfg::stages, Span = Cfg::span;
  using QBlock = tile::SwizzledTile<E, BQ, Span>;   // one 128-byte span of Q's head-dim columns
  using KBlock = tile::SwizzledTile<E, BKV, Span>;  // of K's
  using VTile = tile::MnMajorTile<E, Dv, BKV, Cfg::v_span>;  // 16-bit V as P V's B: Dv columns x BKV keys
  using RawBlock = tile::SwizzledTile<E, BKV, 128>;  // fp8: 128 of V's columns as loaded, BKV keys
  using VtBlock = tile::SwizzledTile<E, Dv, 128>;    // fp8: V^T as P V's B (K-major): 128 keys' slots
  using Pipe = pipeline::TmaPipeline<Stages, 1>;
  static constexpr int q_block = QBlock::size, k_block = KBlock::size;

  struct V16 {
    alignas(1024) E v[Stages][VTile::size];
  };
  struct V8 {
    alignas(1024) E raw[Stages][Dv / 128][RawBlock::size];
    alignas(1024) E vt[Stages][BKV / 128][VtBlock::size];
  };

  static constexpr int QStages = Cfg::q_stages;
  alignas(1024) E q[QStages][D / Span][q_block];
  alignas(1024) E k[Stages][D / Span][k_block];
  std::conditional_t<Cfg::fp8, V8, V16> v;
  std::uint64_t k_barriers[Pipe::barrier_bytes / 8], v_barriers[Pipe::barrier_bytes / 8];  // (fp8: of V^T)
  std::uint64_t raw_barriers[Pipe::barrier_bytes / 8];  // fp8: raw V landed; transposed (the producer's)
  std::uint64_t q_full[QStages], q_empty[QStages];  // Q landed; every consumer's last read of it done
  std::uint64_t turns[pipeline::Turns::barrier_bytes / 8];  // the consumers' turns (attention/sm90/mainloop.hpp)

  static constexpr int q_bytes = D / Span * q_block * int(sizeof(E)), k_bytes = D / Span * k_block * int(sizeof(E)),
                       v_bytes = BKV * Dv * int(sizeof(E));  // (fp8: of raw V)

  // k-step ks (32 bytes of the head dim: 16 16-bit or 32 8-bit columns) of Q's rows row0 .. row0 + 63.
  TESSERA_DEVICE std::uint64_t q_desc(int qs, int row0, int ks) const {
    std::uint32_t const base = arch::smem_address(&q[qs][ks / 4][0]) + std::uint32_t(row0 * 128);
    return tile::k_major_descriptor<QBlock>(base).advanced(std::uint32_t((ks % 4) * 32)).bits;
  }
  TESSERA_DEVICE std::uint64_t k_desc(int stage, int ks) const {
    return tile::k_major_descriptor<KBlock>(arch::smem_address(&k[stage][ks / 4][0])).advanced(std::uint32_t((ks % 4) * 32)).bits;
  }
  // k-step ks of P V: 16 keys (16-bit V) or 32 k-slots of V^T (fp8).
  TESSERA_DEVICE std::uint64_t v_desc(int stage, int ks) const {
    if constexpr (Cfg::fp8) {
      return tile::k_major_descriptor<VtBlock>(arch::smem_address(&v.vt[stage][ks / 4][0])).advanced(std::uint32_t((ks % 4) * 32)).bits;
    } else {
      return tile::mn_major_descriptor<VTile>(arch::smem_address(&v.v[stage][0])).advanced(std::uint32_t(ks) * VTile::k_step_bytes).bits;
    }
  }
};

}  // namespace tessera::attention::sm90
