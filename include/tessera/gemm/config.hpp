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
// On AMD (arch::Gfx90a, arch::Gfx940; built with hipcc) Warps<M, N> are M x N wavefronts of 64
// threads, each computing 32 x 32 MFMA atoms, in the gfx9 kernel (gemm/gfx9) with two LDS buffers:
//
//   using Cfg = gemm::Config<arch::Gfx90a, half, RowMajor, half, ColumnMajor, half, float,
//                            BlockTile<128, 128, 32>, Warps<2, 2>, Stages<2>>;
//
// A bad configuration fails with one static_assert "gemm::Config: <problem>; <fix>" (the first
// failing check) and Gemm<Cfg> then instantiates no kernel, so no cascade of errors follows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/arch/gfx9/mfma.hpp"
#include "tessera/arch/sm80/mma.hpp"
#include "tessera/atom/mma_gfx9.hpp"
#include "tessera/atom/mma_sm80.hpp"
#include "tessera/core/matrix_layout.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/gemm/config_check.hpp"
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
struct Sm80Mma<bfloat16_t, bfloat16_t, float> {
  using type = arch::Sm80_16x8x16_F32BF16BF16F32_TN;
};
template <>
struct Sm80Mma<half_t, half_t, float> {
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

// The MFMA atom of the gfx9 kernel for a target (arch::Gfx90a, arch::Gfx940), element types and
// accumulator (void: none): the 32 x 32 form, as gemm::gfx9_atom describes it.
template <class Arch, class A, class B, class Acc>
struct Gfx9Mma {
  using type = void;
};
template <class Arch>
struct Gfx9Mma<Arch, half_t, half_t, float> {
  using type = arch::Gfx9_32x32x8_F32F16F16F32;
};
template <class Arch>
struct Gfx9Mma<Arch, bfloat16_t, bfloat16_t, float> {
  using type = arch::Gfx9_32x32x8_F32BF16BF16F32;  // bf16_1k
};
template <class Arch>
struct Gfx9Mma<Arch, float, float, float> {
  using type = arch::Gfx9_32x32x2_F32F32F32F32;
};
template <>
struct Gfx9Mma<arch::Gfx90a, std::int8_t, std::int8_t, std::int32_t> {
  using type = arch::Gfx9_32x32x8_S32S8S8S32;
};
template <>
struct Gfx9Mma<arch::Gfx940, std::int8_t, std::int8_t, std::int32_t> {
  using type = arch::Gfx940_32x32x16_S32S8S8S32;
};
template <>
struct Gfx9Mma<arch::Gfx940, float8_e4m3_fnuz_t, float8_e4m3_fnuz_t, float> {
  using type = arch::Gfx940_32x32x16_F32F8F8F32;
};
template <>
struct Gfx9Mma<arch::Gfx940, float8_e5m2_fnuz_t, float8_e5m2_fnuz_t, float> {
  using type = arch::Gfx940_32x32x16_F32BF8BF8F32;
};

namespace detail {
template <class Arch>
inline constexpr bool amd_arch = std::is_same_v<Arch, arch::Gfx90a> || std::is_same_v<Arch, arch::Gfx940>;

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
inline constexpr bool fp8_type = std::is_same_v<T, float8_e4m3_t> || std::is_same_v<T, float8_e5m2_t>;

// A Config parameter left out: a Config missing one still reaches its own check (below) instead
// of the compiler's "too few template arguments".
struct Missing {};
template <class T>
inline constexpr bool is_block_tile = false;
template <int M, int N, int K>
inline constexpr bool is_block_tile<BlockTile<M, N, K>> = true;
template <class T>
inline constexpr bool is_warp_policy = false;
template <int M, int N>
inline constexpr bool is_warp_policy<Warps<M, N>> = true;
template <int C, class S, class Cl>
inline constexpr bool is_warp_policy<Warpgroups<C, S, Cl>> = true;
template <class T>
inline constexpr bool is_stages = false;
template <int S>
inline constexpr bool is_stages<Stages<S>> = true;

// Instantiated only where a Config needs more shared memory than a block may have, so that the
// compiler's message names the bytes: SharedMemoryOver<bytes needed, bytes a block may have>.
template <int Needed, int Allowed>
struct SharedMemoryOver {
  static_assert(Needed <= Allowed,
                "gemm::Config: the pipeline needs more shared memory than a block may have (the bytes needed and "
                "allowed are SharedMemoryOver's arguments above); use fewer Stages or a smaller BlockTile");
  static constexpr bool checked = true;
};
struct SharedMemoryFits {
  static constexpr bool checked = true;
};

// Whether the accumulator, tile, warp and stage parameters are of their kinds: checked before
// anything reads them, so that one of them misplaced gives one message.
enum class ParameterError { kNone, kNoAccumulator, kTileWarpsSwapped, kTile, kWarps, kStages };
template <class Acc, class Tile, class W, class S>
constexpr ParameterError parameter_error() {
  if (is_block_tile<Acc> || is_warp_policy<Acc>) return ParameterError::kNoAccumulator;
  if (is_warp_policy<Tile> && is_block_tile<W>) return ParameterError::kTileWarpsSwapped;
  if (!is_block_tile<Tile>) return ParameterError::kTile;
  if (!is_warp_policy<W>) return ParameterError::kWarps;
  if (!is_stages<S>) return ParameterError::kStages;
  return ParameterError::kNone;
}
}  // namespace detail

// Config<Arch, ElementA, LayoutA, ElementB, LayoutB, ElementD, ElementAccumulator, BlockTile<M, N, K>,
//        Warps<M, N> | Warpgroups<C, ...>, Stages<S>, Epilogue = epilogue::Identity>
template <class Arch_, class ElementA_, class LayoutA_, class ElementB_, class LayoutB_, class ElementD_,
          class ElementAccumulator_, class Tile_ = detail::Missing, class Warps_ = detail::Missing,
          class Stages_ = detail::Missing, class Epilogue_ = epilogue::Identity>
struct Config {
  static constexpr detail::ParameterError parameter_error = detail::parameter_error<ElementAccumulator_, Tile_, Warps_, Stages_>();
  // One named truth per check (a compiler prints the message alone, not the expression behind it).
  static constexpr bool accumulator_given = parameter_error != detail::ParameterError::kNoAccumulator;
  static constexpr bool tile_before_warps = parameter_error != detail::ParameterError::kTileWarpsSwapped;
  static constexpr bool tile_given = parameter_error != detail::ParameterError::kTile;
  static constexpr bool warps_given = parameter_error != detail::ParameterError::kWarps;
  static constexpr bool stages_given = parameter_error != detail::ParameterError::kStages;
  static_assert(accumulator_given,
                "gemm::Config: the accumulator type (the 7th parameter, after D's type) is missing; insert float (std::int32_t "
                "for int8 operands) before the BlockTile");
  static_assert(tile_before_warps,
                "gemm::Config: the BlockTile and the Warps / Warpgroups are swapped; pass gemm::BlockTile<M, N, K> 8th and "
                "gemm::Warps<M, N> or gemm::Warpgroups<C> 9th");
  static_assert(tile_given,
                "gemm::Config: the 8th parameter is not a gemm::BlockTile<M, N, K>; pass the block's tile there, e.g. "
                "gemm::BlockTile<128, 256, 64>");
  static_assert(warps_given,
                "gemm::Config: the 9th parameter is not gemm::Warps<M, N> or gemm::Warpgroups<C>; pass gemm::Warps<2, 2> "
                "(sm80, AMD) or gemm::Warpgroups<2> (sm90) there");
  static_assert(stages_given,
                "gemm::Config: the 10th parameter is not gemm::Stages<S> (or it is missing); pass the pipeline's depth there, "
                "e.g. gemm::Stages<4>");
  // Past a misplaced parameter, placeholders stand in for the four so that the message above is
  // the only error (the Config is then invalid).
  static constexpr bool parameters_ok = parameter_error == detail::ParameterError::kNone;
  using Tile = std::conditional_t<parameters_ok, Tile_, BlockTile<128, 128, 32>>;
  using WarpsOrWarpgroups = std::conditional_t<parameters_ok, Warps_, Warps<2, 2>>;
  using StagesTag = std::conditional_t<parameters_ok, Stages_, Stages<3>>;

  using Arch = Arch_;
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using ElementD = ElementD_;
  using ElementAccumulator = std::conditional_t<parameters_ok, ElementAccumulator_, float>;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  using Epilogue = Epilogue_;
  // AMD Configs (arch::Gfx90a / arch::Gfx940) run the gfx9 kernel.
  static constexpr bool amd = detail::amd_arch<Arch>;
  using MmaOp = typename std::conditional_t<amd, Gfx9Mma<Arch, ElementA, ElementB, ElementAccumulator>,
                                            Sm80Mma<ElementA, ElementB, ElementAccumulator>>::type;

  static constexpr int BM = Tile::m, BN = Tile::n, BK = Tile::k;
  // The wgmma kernel (Warpgroups<C>) or the mma.sync kernel (Warps<M, N>).
  static constexpr bool warp_specialized = detail::WarpPolicy<WarpsOrWarpgroups>::consumers > 0;
  static constexpr int consumer_warpgroups = detail::WarpPolicy<WarpsOrWarpgroups>::consumers;
  static constexpr bool ping_pong = detail::WarpPolicy<WarpsOrWarpgroups>::ping_pong;
  static constexpr int cluster_m = detail::WarpPolicy<WarpsOrWarpgroups>::cluster_m, cluster_n = detail::WarpPolicy<WarpsOrWarpgroups>::cluster_n;
  static constexpr int warps_m = detail::WarpPolicy<WarpsOrWarpgroups>::m, warps_n = detail::WarpPolicy<WarpsOrWarpgroups>::n;
  static constexpr int threads = amd ? 2 * detail::WarpPolicy<WarpsOrWarpgroups>::threads : detail::WarpPolicy<WarpsOrWarpgroups>::threads;
  static constexpr int stages = StagesTag::value;
  // A is K-major when row-major; B is K-major when column-major (B(k, n) at n * ldb + k).
  static constexpr bool a_k_major = std::is_same_v<LayoutA, RowMajor>;
  static constexpr bool b_k_major = std::is_same_v<LayoutB, ColumnMajor>;
  // This Config as plain values (gemm/config_check.hpp): its checks and its sizes.
  static constexpr ConfigSpec spec = [] {
    ConfigSpec c;
    if constexpr (std::is_same_v<Arch, arch::Sm80> || std::is_same_v<Arch, arch::Sm90>) c.arch_cc = Arch::cc;
    if constexpr (amd) c.gfx = Arch::gfx;
    c.layouts_known = is_matrix_layout_v<LayoutA> && is_matrix_layout_v<LayoutB>;
    c.a_k_major = a_k_major;
    c.b_k_major = b_k_major;
    c.a = dtype_of<ElementA>;
    c.b = dtype_of<ElementB>;
    c.d = dtype_of<ElementD>;
    c.acc = dtype_of<ElementAccumulator>;
    c.bm = BM;
    c.bn = BN;
    c.bk = BK;
    c.warps_m = warp_specialized ? 0 : warps_m;
    c.warps_n = warp_specialized ? 0 : warps_n;
    c.consumers = consumer_warpgroups;
    c.ping_pong = ping_pong;
    c.cluster_m = cluster_m;
    c.cluster_n = cluster_n;
    c.stages = stages;
    return c;
  }();
  // The wgmma kernel's epilogue: each consumer rotates through this many buffers of 32 columns of
  // its rows of D (4 for types up to 16 bits, 2 for wider ones), apart from the stages, which hold
  // the next tile's k-tiles by then.
  static constexpr int epilogue_buffers_sm90 = gemm::epilogue_buffers_sm90(spec);
  static constexpr int epilogue_staging_bytes_sm90 = gemm::epilogue_staging_bytes_sm90(spec);
  // The wgmma kernel's copies of a tile's slice of the epilogue's column vectors (0: not staged).
  static constexpr int column_vector_bytes_sm90 =
      gemm::sm90_column_vector_bytes(spec, epilogue::column_vectors_of<Epilogue>);
  // The stages (and, for the wgmma kernel, a full and an empty barrier per stage, the epilogue
  // staging, for ping-pong two turn barriers, and the column vectors).
  static constexpr int smem_bytes = gemm::smem_bytes(spec) + column_vector_bytes_sm90;

  static constexpr ConfigError error = parameters_ok ? check(spec) : ConfigError::kNone;
  static constexpr bool valid = parameters_ok && error == ConfigError::kNone;

  static_assert(error != ConfigError::kArch, TESSERA_CONFIG_MSG_ARCH);
  static_assert(error != ConfigError::kLayoutTags, TESSERA_CONFIG_MSG_LAYOUT_TAGS);
  static_assert(error != ConfigError::kNoAtom, TESSERA_CONFIG_MSG_NO_ATOM);
  static_assert(error != ConfigError::kTileM, TESSERA_CONFIG_MSG_TILE_M);
  static_assert(error != ConfigError::kTileN, TESSERA_CONFIG_MSG_TILE_N);
  static_assert(error != ConfigError::kTileK, TESSERA_CONFIG_MSG_TILE_K);
  static_assert(error != ConfigError::kTileKSteps, TESSERA_CONFIG_MSG_TILE_K_STEPS);
  static_assert(error != ConfigError::kStages, TESSERA_CONFIG_MSG_STAGES);
  static_assert(error != ConfigError::kEpilogueStaging, TESSERA_CONFIG_MSG_EPILOGUE_STAGING);
  static_assert(error != ConfigError::kWarpgroupsArch, TESSERA_CONFIG_MSG_WARPGROUPS_ARCH);
  static_assert(error != ConfigError::kWarpgroupsLayout, TESSERA_CONFIG_MSG_WARPGROUPS_LAYOUT);
  static_assert(error != ConfigError::kWarpgroupsTypes, TESSERA_CONFIG_MSG_WARPGROUPS_TYPES);
  static_assert(error != ConfigError::kWarpgroupsTileM, TESSERA_CONFIG_MSG_WARPGROUPS_TILE_M);
  static_assert(error != ConfigError::kWarpgroupsTileN, TESSERA_CONFIG_MSG_WARPGROUPS_TILE_N);
  static_assert(error != ConfigError::kWarpgroupsTileK, TESSERA_CONFIG_MSG_WARPGROUPS_TILE_K);
  static_assert(error != ConfigError::kPingPongTile, TESSERA_CONFIG_MSG_PING_PONG_TILE);
  static_assert(error != ConfigError::kCluster, TESSERA_CONFIG_MSG_CLUSTER);
  static_assert(error != ConfigError::kWarpgroupsStages, TESSERA_CONFIG_MSG_WARPGROUPS_STAGES);
  static_assert(std::conditional_t<error == ConfigError::kSharedMemory,
                                   detail::SharedMemoryOver<gemm::smem_bytes(spec), max_smem_per_block(spec.arch_cc)>,
                                   detail::SharedMemoryFits>::checked,
                "gemm::Config: shared memory checked (SharedMemoryOver says by how much it is over)");
  static_assert(error != ConfigError::kMfmaTypes, TESSERA_CONFIG_MSG_MFMA_TYPES);
  static_assert(error != ConfigError::kMfmaWarps, TESSERA_CONFIG_MSG_MFMA_WARPS);
  static_assert(error != ConfigError::kMfmaTileM, TESSERA_CONFIG_MSG_MFMA_TILE_M);
  static_assert(error != ConfigError::kMfmaTileN, TESSERA_CONFIG_MSG_MFMA_TILE_N);
  static_assert(error != ConfigError::kMfmaTileK, TESSERA_CONFIG_MSG_MFMA_TILE_K);
  static_assert(error != ConfigError::kMfmaCopy, TESSERA_CONFIG_MSG_MFMA_COPY);
  static_assert(error != ConfigError::kMfmaStages, TESSERA_CONFIG_MSG_MFMA_STAGES);
  static_assert(error != ConfigError::kLds, TESSERA_CONFIG_MSG_LDS);
};

}  // namespace tessera::gemm
