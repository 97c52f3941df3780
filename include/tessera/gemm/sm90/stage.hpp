// One stage of the sm90 GEMM's shared-memory ring: the contract between an operand loader, which
// fills it, and the mainloop, which reads it with wgmma. A stage holds A's BM x BK tile and then
// B's BN x BK tile. A K-major operand is one tile::SwizzledTile of 128-byte rows (a TMA box of BK
// x rows lands in that layout); an MN-major one is tile::MnMajorTile, blocks of 64 rows (TMA boxes
// of 64 x BK, one per block). The wgmma descriptors of a k-step read either.
//
//   using S = StageLayout<Cfg>;
//   char* stage = stages + pos % Stages * S::bytes;
//   S::a_desc(stage, 64, ks);   // rows 64..127 of A, k-step ks
//   S::b_desc(stage, ks);
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/tile/smem_layout.hpp"
#include "tessera/tile/wgmma_tile.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct StageLayout {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  static constexpr arch::sm90::Major major_a = Cfg::a_k_major ? arch::sm90::Major::K : arch::sm90::Major::MN;
  static constexpr arch::sm90::Major major_b = Cfg::b_k_major ? arch::sm90::Major::K : arch::sm90::Major::MN;
  // The instruction that reads the stage: m64 x BN x (16 bytes of K) per wgmma.
  using Mma = arch::sm90::Wgmma<BN, EA, EB, typename Cfg::ElementAccumulator, major_a, major_b>;
  static constexpr int KSteps = BK / Mma::K;

  using TileA = std::conditional_t<Cfg::a_k_major, tile::SwizzledTile<EA, BM, BK>, tile::MnMajorTile<EA, BM, BK>>;
  using TileB = std::conditional_t<Cfg::b_k_major, tile::SwizzledTile<EB, BN, BK>, tile::MnMajorTile<EB, BN, BK>>;
  static constexpr int bytes_a = TileA::size * int(sizeof(EA)), bytes_b = TileB::size * int(sizeof(EB));
  static constexpr int bytes = bytes_a + bytes_b;
  static_assert(bytes_a % 1024 == 0 && bytes_b % 1024 == 0, "gemm::sm90: tiles must keep the 1024-byte swizzle alignment");

  TESSERA_DEVICE static char* a(char* stage) { return stage; }
  TESSERA_DEVICE static char* b(char* stage) { return stage + bytes_a; }

  // The descriptor of k-step ks of A's rows row .. row + 63 (row a multiple of 64: 64 K-major rows,
  // or one 64-row MN-major block, both BK x 128 bytes), and of B's whole tile.
  TESSERA_DEVICE static std::uint64_t a_desc(char* stage, int row, int ks) {
    return descriptor<TileA, Cfg::a_k_major>(arch::smem_address(a(stage)) + row * BK * int(sizeof(EA)), ks);
  }
  TESSERA_DEVICE static std::uint64_t b_desc(char* stage, int ks) { return descriptor<TileB, Cfg::b_k_major>(arch::smem_address(b(stage)), ks); }

 private:
  template <class Tile, bool KMajor>
  TESSERA_DEVICE static std::uint64_t descriptor(std::uint32_t base, int ks) {
    if constexpr (KMajor) {
      return tile::k_major_descriptor<Tile>(base).advanced(std::uint32_t(ks * Mma::K * int(sizeof(EA)))).bits;
    } else {
      return tile::mn_major_descriptor<Tile>(base).advanced(std::uint32_t(ks) * Tile::k_step_bytes).bits;
    }
  }
};

}  // namespace tessera::gemm::sm90
