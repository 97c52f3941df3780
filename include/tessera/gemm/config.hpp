// gemm::Config: the problem's types and layouts, and the policy (tiles, warps, stages) that
// computes it, checked once at compile time.
//
//   using Cfg = gemm::Config<arch::Sm80, bfloat16, RowMajor, bfloat16, ColumnMajor, bfloat16, float,
//                            BlockTile<128, 128, 32>, Warps<2, 2>, Stages<4>,
//                            epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16>, epilogue::GeluTanh>>;
//
// The warp policy picks the kernel: Warps<M, N> runs the mma.sync kernel (gemm/sm80, on sm_80 and
// later); Warpgroups<C, Schedule> runs the persistent warp-specialized wgmma + TMA kernel
// (gemm/sm90, arch::Sm90 only) with C consumer warpgroups and one producer warpgroup:
//
//   using Cfg = gemm::Config<arch::Sm90, bfloat16, RowMajor, bfloat16, ColumnMajor, bfloat16, float,
//                            BlockTile<128, 256, 64>, Warpgroups<2>, Stages<4>>;
//
// A bad configuration fails with one static_assert "gemm::Config: <problem>; <fix>" (the first
// failing check) and Gemm<Cfg> then instantiates no kernel, so no cascade of errors follows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm80/mma.hpp"
#include "tessera/atom/mma_sm80.hpp"
#include "tessera/core/matrix_layout.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/tile/mma_tile.hpp"

namespace tessera::gemm {

template <int M, int N, int K>
struct BlockTile {
  static constexpr int m = M, n = N, k = K;
};
template <int M, int N>
struct Warps {
  static constexpr int m = M, n = N;
};
// How the consumer warpgroups of the (persistent) sm90 kernel share the work.
//   Cooperative: every consumer works on every tile, 64 rows each, and they run the epilogue
//                together after the mainloop.
//   PingPong:    two consumers take alternate tiles, each computing a whole BlockTile, and take
//                turns on the tensor cores, so that one's epilogue runs under the other's mainloop.
struct Cooperative {};
struct PingPong {};

// Blocks of a cluster of the sm90 kernel: M x N neighbouring output tiles whose blocks run
// together and share operand loads: with M = 2 the two blocks of a column of tiles load half of
// their common B tile each and multicast it to both (N = 2: the same for A along a row).
template <int M, int N>
struct ClusterShape {
  static constexpr int m = M, n = N;
};

// Consumer warpgroups of the sm90 kernel, their schedule, and the cluster shape.
template <int Consumers, class Schedule = Cooperative, class Cluster = ClusterShape<1, 1>>
struct Warpgroups {
  static constexpr int consumers = Consumers;
  using schedule = Schedule;
  using cluster = Cluster;
};
template <int S>
struct Stages {
  static constexpr int value = S;
};

// The mma.sync atom that multiplies these element types into this accumulator (void: none).
template <class A, class B, class Acc>
struct Sm80Mma {
  using type = void;
};
template <>
struct Sm80Mma<bfloat16, bfloat16, float> {
  using type = arch::Sm80_16x8x16_F32BF16BF16F32_TN;
};
template <>
struct Sm80Mma<half, half, float> {
  using type = arch::Sm80_16x8x16_F32F16F16F32_TN;
};
template <>
struct Sm80Mma<float, float, float> {
  using type = arch::Sm80_16x8x8_F32TF32TF32F32_TN;  // tf32 tensor cores
};
template <>
struct Sm80Mma<std::int8_t, std::int8_t, std::int32_t> {
  using type = arch::Sm80_16x8x32_S32S8S8S32_TN;
};

namespace detail {
// Warps<M, N>: M x N warps of mma.sync. Warpgroups<C>: C consumer warpgroups and a producer.
template <class W>
struct WarpPolicy {
  static constexpr int m = W::m, n = W::n, consumers = 0, threads = 32 * m * n;
  static constexpr bool ping_pong = false;
  static constexpr int cluster_m = 1, cluster_n = 1;
};
template <int C, class S, class Cl>
struct WarpPolicy<Warpgroups<C, S, Cl>> {
  static constexpr int m = C, n = 1, consumers = C, threads = 128 * (C + 1);
  static constexpr bool ping_pong = std::is_same_v<S, PingPong>;
  static constexpr int cluster_m = Cl::m, cluster_n = Cl::n;
};

template <class T>
inline constexpr bool fp8_type = std::is_same_v<T, float8_e4m3> || std::is_same_v<T, float8_e5m2>;
// The sm90 kernel's operands: bf16 or f16 pairs, or fp8 (e4m3 / e5m2, any pairing), into float.
template <class A, class B, class Acc>
inline constexpr bool wgmma_types = std::is_same_v<Acc, float> && ((std::is_same_v<A, B> && (std::is_same_v<A, bfloat16> ||
                                                                                            std::is_same_v<A, half>)) ||
                                                                   (fp8_type<A> && fp8_type<B>));
}  // namespace detail

enum class ConfigError {
  kNone,
  kArch,
  kLayoutTags,
  kNoAtom,
  kTileM,
  kTileN,
  kTileK,
  kTileKSteps,
  kStages,
  kSharedMemory,
  kEpilogueStaging,
  kWarpgroupsArch,
  kWarpgroupsLayout,
  kWarpgroupsTypes,
  kWarpgroupsTileM,
  kWarpgroupsTileN,
  kWarpgroupsTileK,
  kWarpgroupsStages,
  kPingPongTile,
  kCluster,
};

template <class Arch_, class ElementA_, class LayoutA_, class ElementB_, class LayoutB_, class ElementD_,
          class ElementAccumulator_, class Tile_, class Warps_, class Stages_, class Epilogue_ = epilogue::Identity>
struct Config {
  using Arch = Arch_;
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using ElementD = ElementD_;
  using ElementAccumulator = ElementAccumulator_;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  using Epilogue = Epilogue_;
  using MmaOp = typename Sm80Mma<ElementA, ElementB, ElementAccumulator>::type;

  static constexpr int BM = Tile_::m, BN = Tile_::n, BK = Tile_::k;
  // The wgmma kernel (Warpgroups<C>) or the mma.sync kernel (Warps<M, N>).
  static constexpr bool warp_specialized = detail::WarpPolicy<Warps_>::consumers > 0;
  static constexpr int consumer_warpgroups = detail::WarpPolicy<Warps_>::consumers;
  static constexpr bool ping_pong = detail::WarpPolicy<Warps_>::ping_pong;
  static constexpr int cluster_m = detail::WarpPolicy<Warps_>::cluster_m, cluster_n = detail::WarpPolicy<Warps_>::cluster_n;
  static constexpr int warps_m = detail::WarpPolicy<Warps_>::m, warps_n = detail::WarpPolicy<Warps_>::n;
  static constexpr int threads = detail::WarpPolicy<Warps_>::threads;
  static constexpr int stages = Stages_::value;
  // A is K-major when row-major; B is K-major when column-major (B(k, n) at n * ldb + k).
  static constexpr bool a_k_major = std::is_same_v<LayoutA, RowMajor>;
  static constexpr bool b_k_major = std::is_same_v<LayoutB, ColumnMajor>;
  // The wgmma kernel's epilogue: each consumer rotates through this many buffers of 32 columns of
  // its rows of D (4 for types up to 16 bits, 2 for wider ones), apart from the stages, which hold
  // the next tile's k-tiles by then.
  static constexpr int epilogue_buffers_sm90 = sizeof(ElementD) >= 4 ? 2 : 4;
  static constexpr int epilogue_staging_bytes_sm90 =
      warp_specialized ? (ping_pong ? 2 : 1) * BM * 32 * int(sizeof(ElementD)) * epilogue_buffers_sm90 : 0;
  // The stages (and, for the wgmma kernel, a full and an empty barrier per stage, the epilogue
  // staging and, for ping-pong, two turn barriers).
  static constexpr int smem_bytes = stages * (BM * BK * int(sizeof(ElementA)) + BN * BK * int(sizeof(ElementB))) +
                                    (warp_specialized ? 16 * stages + epilogue_staging_bytes_sm90 : 0) + (ping_pong ? 16 : 0);

 private:
  // The epilogue stages each warp's float accumulators through the pipeline's shared memory, in
  // rounds of atom rows: halving the rows per round while the atom rows divide evenly
  // (gemm/sm80/kernel.hpp). The bytes of the smallest round it can make, all warps together.
  template <class Traits>
  static constexpr int epilogue_staging_bytes() {
    int const warp_m = BM / warps_m, warp_n = BN / warps_n, atoms = warp_m / Traits::M;
    int rounds = 1;
    while (atoms % (2 * rounds) == 0) rounds *= 2;
    return warps_m * warps_n * (warp_m / rounds) * (warp_n + 8) * 4;
  }

  static constexpr ConfigError first_error() {
    if constexpr (!std::is_same_v<Arch, arch::Sm80> && !std::is_same_v<Arch, arch::Sm90>) {
      return ConfigError::kArch;
    } else if constexpr (!is_matrix_layout_v<LayoutA> || !is_matrix_layout_v<LayoutB>) {
      return ConfigError::kLayoutTags;
    } else if constexpr (warp_specialized) {
      if (!std::is_same_v<Arch, arch::Sm90>) return ConfigError::kWarpgroupsArch;
      if ((!a_k_major || !b_k_major) && (sizeof(ElementA) != 2 || BM % 64 != 0 || BN % 64 != 0))
        return ConfigError::kWarpgroupsLayout;
      if (!detail::wgmma_types<ElementA, ElementB, ElementAccumulator>) return ConfigError::kWarpgroupsTypes;
      if (ping_pong) {
        if (consumer_warpgroups != 2 || (BM != 64 && BM != 128)) return ConfigError::kPingPongTile;
        if (BN % 32 != 0 || BM / 64 * BN / 2 > 128) return ConfigError::kPingPongTile;
      } else if (consumer_warpgroups < 1 || consumer_warpgroups > 2 || BM != 64 * consumer_warpgroups) {
        return ConfigError::kWarpgroupsTileM;
      }
      if (BN < 32 || BN > 256 || BN % 32 != 0) return ConfigError::kWarpgroupsTileN;
      if (BK * int(sizeof(ElementA)) != 128) return ConfigError::kWarpgroupsTileK;
      if (stages < 2 || stages > 16) return ConfigError::kWarpgroupsStages;
      // A cluster of two splits the shared operand's tile in halves: whole 64-row blocks where it
      // is MN-major.
      if (cluster_m < 1 || cluster_n < 1 || cluster_m * cluster_n > 2) return ConfigError::kCluster;
      if (cluster_m == 2 && !b_k_major && BN % 128 != 0) return ConfigError::kCluster;
      if (cluster_n == 2 && !a_k_major && BM % 128 != 0) return ConfigError::kCluster;
      if (smem_bytes > Arch::max_smem_per_block) return ConfigError::kSharedMemory;
      return ConfigError::kNone;
    } else if constexpr (std::is_void_v<MmaOp>) {
      return ConfigError::kNoAtom;
    } else {
      using Traits = atom::MmaTraits<MmaOp>;
      if (BM % (warps_m * Traits::M) != 0) return ConfigError::kTileM;
      if (BN % (warps_n * 2 * Traits::N) != 0) return ConfigError::kTileN;
      if (BK % Traits::K != 0 || BK * int(sizeof(ElementA)) % 16 != 0) return ConfigError::kTileK;
      if (BK / Traits::K % 2 != 0) return ConfigError::kTileKSteps;
      if (stages < 2 || stages > 5) return ConfigError::kStages;
      if (smem_bytes > Arch::max_smem_per_block) return ConfigError::kSharedMemory;
      if (epilogue_staging_bytes<Traits>() > smem_bytes) return ConfigError::kEpilogueStaging;
      return ConfigError::kNone;
    }
  }

 public:
  static constexpr ConfigError error = first_error();
  static constexpr bool valid = error == ConfigError::kNone;

  static_assert(error != ConfigError::kArch, "gemm::Config: unknown architecture tag; use arch::Sm80 or arch::Sm90");
  static_assert(error != ConfigError::kLayoutTags,
                "gemm::Config: a layout is not RowMajor or ColumnMajor; pass one of those tags for A and for B");
  static_assert(error != ConfigError::kNoAtom,
                "gemm::Config: no mma.sync atom multiplies these element types; use bfloat16 or half with float "
                "accumulators, float (tf32) with float, or int8_t with int32_t");
  static_assert(error != ConfigError::kTileM,
                "gemm::Config: BlockTile M is not a multiple of Warps M x the MMA atom's M=16; use BlockTile M = 16 x "
                "Warps M x (atoms per warp), e.g. 128 with Warps<2, 2>");
  static_assert(error != ConfigError::kTileN,
                "gemm::Config: BlockTile N is not a multiple of Warps N x 16 (two 8-wide atoms per ldmatrix); use "
                "BlockTile N = 16 x Warps N x (pairs per warp), e.g. 128 with Warps<2, 2>");
  static_assert(error != ConfigError::kTileK,
                "gemm::Config: BlockTile K is not a multiple of the MMA atom's K (16 for 16-bit types, 8 for tf32, "
                "32 for int8) or of 16 bytes; use BlockTile K = 32 or 64");
  static_assert(error != ConfigError::kTileKSteps,
                "gemm::Config: BlockTile K holds an odd number of MMA k-steps, and the mainloop double-buffers "
                "fragments over pairs of k-steps; use an even multiple of the atom's K, e.g. BlockTile K = 32 or 64 "
                "(16-bit types), 16 or 32 (tf32), 64 (int8)");
  static_assert(error != ConfigError::kStages, "gemm::Config: Stages must be 2 to 5; use Stages<3> or Stages<4>");
  static_assert(error != ConfigError::kEpilogueStaging,
                "gemm::Config: the epilogue stages each warp's accumulators through the pipeline's shared memory, "
                "which is too small for one row of MMA atoms per warp; use more Stages or a larger BlockTile K");
  static_assert(error != ConfigError::kWarpgroupsArch,
                "gemm::Config: Warpgroups (the wgmma + TMA kernel) needs arch::Sm90; use arch::Sm90, or Warps<M, N> for "
                "the mma.sync kernel");
  static_assert(error != ConfigError::kWarpgroupsLayout,
                "gemm::Config: an MN-major operand (ColumnMajor A or RowMajor B) of the sm90 kernel must be a 16-bit "
                "type in whole 64-element blocks (BlockTile M and N multiples of 64); use RowMajor A and ColumnMajor B "
                "otherwise");
  static_assert(error != ConfigError::kWarpgroupsTypes,
                "gemm::Config: the sm90 kernel multiplies bfloat16 or half operands (both the same) or float8_e4m3 / "
                "float8_e5m2 operands (any pairing) into float; use those types, or Warps<M, N> for the mma.sync kernel");
  static_assert(error != ConfigError::kWarpgroupsTileM,
                "gemm::Config: each consumer warpgroup computes 64 rows, so BlockTile M must be 64 x Warpgroups (1 or 2); "
                "use BlockTile M = 64 with Warpgroups<1> or 128 with Warpgroups<2>");
  static_assert(error != ConfigError::kWarpgroupsTileN,
                "gemm::Config: BlockTile N is the wgmma N of the sm90 kernel, and its epilogue works in 32-column "
                "rounds: a multiple of 32 from 32 to 256; use 128 or 256");
  static_assert(error != ConfigError::kWarpgroupsTileK,
                "gemm::Config: the sm90 kernel's k-tile is one 128-byte swizzle span of K; use BlockTile K = 64 for "
                "16-bit types (128 for fp8)");
  static_assert(error != ConfigError::kPingPongTile,
                "gemm::Config: ping-pong takes Warpgroups<2, PingPong>, each consumer holding a whole BlockTile of at "
                "most 128 x 128 accumulators (M = 64 or 128, N a multiple of 32); use BlockTile<128, 128, 64>");
  static_assert(error != ConfigError::kCluster,
                "gemm::Config: the sm90 kernel takes clusters of 1 x 1, 2 x 1 or 1 x 2 blocks, and a cluster of two "
                "multicasts halves of the shared operand's tile (whole 64-row blocks of an MN-major one); use "
                "ClusterShape<2, 1> or <1, 2>, with BlockTile N (2 x 1, row-major B) or M (1 x 2, column-major A) of 128 "
                "or 256");
  static_assert(error != ConfigError::kWarpgroupsStages, "gemm::Config: the sm90 kernel takes 2 to 16 Stages; use Stages<4>");
  static_assert(error != ConfigError::kSharedMemory,
                "gemm::Config: the pipeline needs more shared memory than a block may have; use fewer Stages or a "
                "smaller BlockTile");
};

}  // namespace tessera::gemm
