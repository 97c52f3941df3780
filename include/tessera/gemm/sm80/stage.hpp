// The shared-memory stages of the sm80 GEMM: the contract between an operand loader, which fills a
// stage with cp.async (gemm/sm80/tiled_loader.hpp, or a convolution's gather loader), and the
// mainloop, which reads it with ldmatrix (gemm/sm80/mainloop.hpp). Shared memory holds A's Stages
// tiles, then B's; a tile is swizzled (tile::SwizzledTile), (mn, k) when its operand is K-major and
// (k, mn) when MN-major. Once the mainloop is done the epilogue reuses the same bytes to stage D.
//
//   using S = StageLayout<Cfg>;
//   char* a = smem + stage * S::stage_bytes_a;                                 // A's tile of `stage`
//   char* b = smem + S::Stages * S::stage_bytes_a + stage * S::stage_bytes_b;  // B's
// tessera-header: cuda-only
#pragma once

#include <type_traits>

#include "tessera/tile/smem_layout.hpp"

namespace tessera::gemm::sm80 {

template <class Cfg>
struct StageLayout {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::stages;
  // Shared tiles: (mn, k) when K-major, (k, mn) when MN-major.
  using SmemA = std::conditional_t<Cfg::a_k_major, tile::SwizzledTile<EA, BM, BK>, tile::SwizzledTile<EA, BK, BM>>;
  using SmemB = std::conditional_t<Cfg::b_k_major, tile::SwizzledTile<EB, BN, BK>, tile::SwizzledTile<EB, BK, BN>>;
  static constexpr int stage_bytes_a = SmemA::size * int(sizeof(EA)), stage_bytes_b = SmemB::size * int(sizeof(EB));
  static constexpr int smem_bytes = Stages * (stage_bytes_a + stage_bytes_b);  // A's stages, then B's
  static_assert(smem_bytes == Cfg::smem_bytes, "gemm::sm80::Kernel: shared-memory accounting differs from the Config's");
};

}  // namespace tessera::gemm::sm80
