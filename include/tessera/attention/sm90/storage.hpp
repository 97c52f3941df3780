// The Hopper attention kernel's shared memory: the query tile, the K and V rings and their
// barriers, as one struct (attention/sm90/kernel.hpp), at the head dimensions rounded up to 64
// (Config::Dp, Dvp). Q and K are K-major (the head dimension contiguous): D / 64 blocks of 64 columns, each a tile::SwizzledTile of 128-byte rows, which a
// TMA box of 64 x rows fills; V is the B operand of P V, N-major (its head dimension contiguous):
// tile::MnMajorTile blocks of 64 of V's columns by BKV keys.
//
//   wgmma descriptors: q_desc(s, row0, ks) (rows row0 .. row0 + 63, k-step ks of the head dim),
//   k_desc(stage, ks) (all BKV keys), v_desc(stage, ks) (keys 16 ks .. 16 ks + 15, all of V's columns)
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
  static constexpr int D = Cfg::Dp, Dv = Cfg::Dvp, BQ = Cfg::BQ, BKV = Cfg::BKV, Stages = Cfg::stages;
  using QBlock = tile::SwizzledTile<E, BQ, 64>;   // 64 of Q's head-dim columns
  using KBlock = tile::SwizzledTile<E, BKV, 64>;  // 64 of K's
  using VTile = tile::MnMajorTile<E, Dv, BKV>;    // V as P V's B: Dv columns x BKV keys
  using Pipe = pipeline::TmaPipeline<Stages, 1>;
  static constexpr int q_block = QBlock::size, k_block = KBlock::size;

  alignas(1024) E q[D / 64][q_block];
  alignas(1024) E k[Stages][D / 64][k_block];
  alignas(1024) E v[Stages][VTile::size];
  std::uint64_t k_barriers[Pipe::barrier_bytes / 8], v_barriers[Pipe::barrier_bytes / 8];
  std::uint64_t q_full, q_empty;  // Q landed; every consumer's last read of it done
  std::uint64_t turns[pipeline::Turns::barrier_bytes / 8];  // the consumers' turns (attention/sm90/mainloop.hpp)

  static constexpr int q_bytes = D / 64 * q_block * int(sizeof(E)), k_bytes = D / 64 * k_block * int(sizeof(E)),
                       v_bytes = VTile::size * int(sizeof(E));

  // k-step ks (16 of the head dim) of Q's rows row0 .. row0 + 63.
  TESSERA_DEVICE std::uint64_t q_desc(int row0, int ks) const {
    std::uint32_t const base = arch::smem_address(&q[ks / 4][0]) + std::uint32_t(row0 * 128);
    return tile::k_major_descriptor<QBlock>(base).advanced(std::uint32_t((ks % 4) * 32)).bits;
  }
  TESSERA_DEVICE std::uint64_t k_desc(int stage, int ks) const {
    return tile::k_major_descriptor<KBlock>(arch::smem_address(&k[stage][ks / 4][0])).advanced(std::uint32_t((ks % 4) * 32)).bits;
  }
  TESSERA_DEVICE std::uint64_t v_desc(int stage, int ks) const {
    return tile::mn_major_descriptor<VTile>(arch::smem_address(&v[stage][0])).advanced(std::uint32_t(ks) * VTile::k_step_bytes).bits;
  }
};

}  // namespace tessera::attention::sm90
