// The checks behind gemm::Config, on plain values: a ConfigSpec (architecture, element types,
// operand orders, tiles, warps or warpgroups, stages, cluster) and the first check it fails, with
// the message gemm::Config's static_assert prints for it.
//
// gemm::Config runs check() on its own spec and static_asserts the result. The profiler's
// enumeration (tuning/) runs it on candidate specs before instantiating anything, so that it can
// list an invalid candidate with its reason instead of failing to compile.
//
//   constexpr gemm::ConfigSpec s{.arch_cc = 90, .a = Dtype::kBf16, .b = Dtype::kBf16, .d = Dtype::kBf16,
//                                .bm = 128, .bn = 256, .bk = 64, .consumers = 2, .stages = 4};
//   constexpr gemm::ConfigSpec amd{.gfx = 0x90a, .a = Dtype::kF16, .b = Dtype::kF16, .d = Dtype::kF16,
//                                  .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 2, .stages = 2};
//   static_assert(gemm::check(s) == gemm::ConfigError::kNone);
//   gemm::config_error_message(gemm::check(other));  // "gemm::Config: <problem>; <fix>"
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/numeric_types.hpp"

namespace tessera::gemm {

// The element types a GEMM Config may name.
enum class Dtype : std::uint8_t { kUnknown, kBf16, kF16, kF32, kInt8, kInt32, kE4m3, kE5m2, kE4m3Fnuz, kE5m2Fnuz };

template <class T>
inline constexpr Dtype dtype_of = std::is_same_v<T, bfloat16_t>       ? Dtype::kBf16
                                  : std::is_same_v<T, half_t>         ? Dtype::kF16
                                  : std::is_same_v<T, float>        ? Dtype::kF32
                                  : std::is_same_v<T, std::int8_t>  ? Dtype::kInt8
                                  : std::is_same_v<T, std::int32_t> ? Dtype::kInt32
                                  : std::is_same_v<T, float8_e4m3_t>  ? Dtype::kE4m3
                                  : std::is_same_v<T, float8_e5m2_t>  ? Dtype::kE5m2
                                  : std::is_same_v<T, float8_e4m3_fnuz_t> ? Dtype::kE4m3Fnuz
                                  : std::is_same_v<T, float8_e5m2_fnuz_t> ? Dtype::kE5m2Fnuz
                                                                    : Dtype::kUnknown;

constexpr int dtype_bytes(Dtype t) {
  switch (t) {
    case Dtype::kBf16:
    case Dtype::kF16: return 2;
    case Dtype::kF32:
    case Dtype::kInt32: return 4;
    case Dtype::kInt8:
    case Dtype::kE4m3:
    case Dtype::kE5m2:
    case Dtype::kE4m3Fnuz:
    case Dtype::kE5m2Fnuz: return 1;
    default: return 0;
  }
}

constexpr char const* dtype_name(Dtype t) {
  switch (t) {
    case Dtype::kBf16: return "bf16";
    case Dtype::kF16: return "f16";
    case Dtype::kF32: return "f32";
    case Dtype::kInt8: return "int8";
    case Dtype::kInt32: return "int32";
    case Dtype::kE4m3: return "e4m3";
    case Dtype::kE5m2: return "e5m2";
    case Dtype::kE4m3Fnuz: return "e4m3fnuz";
    case Dtype::kE5m2Fnuz: return "e5m2fnuz";
    default: return "unknown";
  }
}

constexpr bool is_fp8(Dtype t) { return t == Dtype::kE4m3 || t == Dtype::kE5m2; }

// The shape of the mma.sync atom that multiplies a x b into acc (all zero: there is none). The
// atoms themselves are gemm::Sm80Mma's; a host test keeps the two in step.
struct AtomShape {
  int m = 0, n = 0, k = 0;
};
constexpr AtomShape sm80_atom(Dtype a, Dtype b, Dtype acc) {
  if (a != b) return {};
  if ((a == Dtype::kBf16 || a == Dtype::kF16) && acc == Dtype::kF32) return {16, 8, 16};
  if (a == Dtype::kF32 && acc == Dtype::kF32) return {16, 8, 8};  // tf32
  if (a == Dtype::kInt8 && acc == Dtype::kInt32) return {16, 8, 32};
  return {};
}

// The MFMA atom of the gfx9 kernel (gemm/gfx9) for a target (0x90a, 0x940): the 32 x 32 form of
// each type. The atoms themselves are gemm::Gfx9Mma's; a host test keeps the two in step.
constexpr AtomShape gfx9_atom(int gfx, Dtype a, Dtype b, Dtype acc) {
  if (a != b) return {};
  if ((a == Dtype::kBf16 || a == Dtype::kF16) && acc == Dtype::kF32) return {32, 32, 8};  // bf16: the _1k form
  if (a == Dtype::kF32 && acc == Dtype::kF32) return {32, 32, 2};
  if (a == Dtype::kInt8 && acc == Dtype::kInt32) return {32, 32, gfx == 0x940 ? 16 : 8};
  if ((a == Dtype::kE4m3Fnuz || a == Dtype::kE5m2Fnuz) && acc == Dtype::kF32 && gfx == 0x940) return {32, 32, 16};
  return {};
}

// The sm90 kernel's operands: bf16 or f16 pairs, or fp8 (e4m3 / e5m2, any pairing), into float.
constexpr bool wgmma_types(Dtype a, Dtype b, Dtype acc) {
  return acc == Dtype::kF32 && ((a == b && (a == Dtype::kBf16 || a == Dtype::kF16)) || (is_fp8(a) && is_fp8(b)));
}

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
  kMfmaTypes,
  kMfmaWarps,
  kMfmaTileM,
  kMfmaTileN,
  kMfmaTileK,
  kMfmaCopy,
  kMfmaStages,
  kLds,
};

// A Config as plain values. consumers > 0 selects the sm90 kernel (Warpgroups<consumers, ...>);
// otherwise warps_m x warps_n warps run the mma.sync kernel.
struct ConfigSpec {
  int arch_cc = 0;            // 80 or 90 (arch::Sm80 / arch::Sm90); anything else is unknown; 0 for AMD
  int gfx = 0;                // 0x90a or 0x940 (arch::Gfx90a / arch::Gfx940); 0 for NVIDIA
  bool layouts_known = true;  // both layouts are RowMajor or ColumnMajor tags
  bool a_k_major = true;      // RowMajor A
  bool b_k_major = true;      // ColumnMajor B
  Dtype a = Dtype::kUnknown, b = Dtype::kUnknown, d = Dtype::kUnknown, acc = Dtype::kF32;
  int bm = 0, bn = 0, bk = 0;
  int warps_m = 0, warps_n = 0;
  int consumers = 0;
  bool ping_pong = false;
  int cluster_m = 1, cluster_n = 1;
  int stages = 0;

  constexpr bool warp_specialized() const { return consumers > 0; }
  constexpr bool amd() const { return gfx != 0; }
  friend constexpr bool operator==(ConfigSpec const&, ConfigSpec const&) = default;
  // Warps of 32 threads; on AMD, wavefronts of 64.
  constexpr int threads() const {
    return warp_specialized() ? 128 * (consumers + 1) : (amd() ? 64 : 32) * warps_m * warps_n;
  }
};

// The sm90 kernel's registers per thread after setmaxnreg: the producer warpgroup gives up what
// the consumers take (the split must fit the block's pool at launch; gemm/sm90/kernel.hpp).
inline constexpr int kSm90ProducerRegisters = 40;
constexpr int sm90_consumer_registers(int consumers) { return consumers == 1 ? 256 : 232; }

constexpr int max_smem_per_block(int arch_cc) { return arch_cc == 90 ? 227 * 1024 : 163 * 1024; }
inline constexpr int kMaxLdsPerBlock = 64 * 1024;  // gfx90a, gfx94x

// The sm90 epilogue: each consumer rotates through this many buffers of a chunk of columns of its
// rows of D (4 for types up to 16 bits, 2 for wider ones), apart from the stages. Four let an
// interior tile stage its chunks in groups of four (epilogue/sm90_tile_store.hpp); against two
// (groups of one) they measured the same on the H100 (2026-11-25, bench_gemm_sm90, 2 alternating
// rounds, us, four against two: bf16 4096^3 168.7 / 169.3, 8192^3 1370.8 / 1366.2, bias + GELU
// 4096^3 176.0 / 176.9, 8192^3 1396.6 / 1393.2). Two would free 16 KiB at 128 x 256 (not a whole
// stage of 48 KiB there); four are kept, since the space's valid Configs and the tuned tables were
// measured with them. A chunk is 32
// columns, or 16 where the tile's N is an odd multiple of 16 (BlockTile N = 112 makes 128 tiles of
// N = 14336: one wave on 132 multiprocessors).
constexpr int epilogue_buffers_sm90(ConfigSpec const& s) { return dtype_bytes(s.d) >= 4 ? 2 : 4; }
constexpr int epilogue_columns_sm90(int bn) { return bn % 32 == 0 ? 32 : 16; }
constexpr int epilogue_staging_bytes_sm90(ConfigSpec const& s) {
  return s.warp_specialized()
             ? (s.ping_pong ? 2 : 1) * s.bm * epilogue_columns_sm90(s.bn) * dtype_bytes(s.d) * epilogue_buffers_sm90(s)
             : 0;
}

// Shared memory per block: the stages and, for the sm90 kernel, a full and an empty barrier per
// stage, the epilogue staging and, for ping-pong, two turn barriers.
constexpr int smem_bytes(ConfigSpec const& s) {
  return s.stages * (s.bm * s.bk * dtype_bytes(s.a) + s.bn * s.bk * dtype_bytes(s.b)) +
         (s.warp_specialized() ? 16 * s.stages + epilogue_staging_bytes_sm90(s) : 0) + (s.ping_pong ? 16 : 0);
}

// The sm90 kernel stages a tile's slice of the epilogue's column vectors (a per-column bias, scale
// or shift: epilogue/chain.hpp) in shared memory as floats, a copy per consumer, where that fits
// beside the rest (else its stages read them from global memory): the bytes it adds.
constexpr int sm90_column_vector_bytes(ConfigSpec const& s, int column_vectors) {
  int const bytes = s.warp_specialized() && s.arch_cc == 90 ? s.consumers * column_vectors * s.bn * 4 : 0;
  return bytes > 0 && smem_bytes(s) + bytes <= max_smem_per_block(90) ? bytes : 0;
}

// The sm80 epilogue stages each warp's float accumulators through the pipeline's shared memory,
// in rounds of atom rows: halving the rows per round while the atom rows divide evenly
// (gemm/sm80/epilogue.hpp). The bytes of the smallest round it can make, all warps together.
constexpr int epilogue_staging_bytes_sm80(ConfigSpec const& s) {
  AtomShape const atom = sm80_atom(s.a, s.b, s.acc);
  int const warp_m = s.bm / s.warps_m, warp_n = s.bn / s.warps_n, atoms = warp_m / atom.m;
  int rounds = 1;
  while (atoms % (2 * rounds) == 0) rounds *= 2;
  return s.warps_m * s.warps_n * (warp_m / rounds) * (warp_n + 8) * 4;
}

// The gfx9 kernel's checks (gemm/gfx9/kernel.hpp): wavefronts of 32 x 32 MFMA atoms, k-tiles read
// from LDS one 16-byte chunk per lane (the two halves of the wavefront take alternate chunks), and
// copied to LDS in 16-byte vectors spread evenly over the threads; two LDS buffers.
constexpr ConfigError check_gfx9(ConfigSpec const& s) {
  if (s.warp_specialized()) return ConfigError::kWarpgroupsArch;
  AtomShape const atom = gfx9_atom(s.gfx, s.a, s.b, s.acc);
  if (atom.m == 0) return ConfigError::kMfmaTypes;
  if (s.warps_m < 1 || s.warps_n < 1 || s.warps_m * s.warps_n > 16) return ConfigError::kMfmaWarps;
  if (s.bm % (s.warps_m * atom.m) != 0) return ConfigError::kMfmaTileM;
  if (s.bn % (s.warps_n * atom.n) != 0) return ConfigError::kMfmaTileN;
  int const bytes = dtype_bytes(s.a), row_bytes = s.bk * bytes;
  if (s.bk < 1 || row_bytes % 32 != 0 || (row_bytes & (row_bytes - 1)) != 0) return ConfigError::kMfmaTileK;
  int const vectors_a = s.bm * row_bytes / 16, vectors_b = s.bn * row_bytes / 16;
  if (vectors_a % s.threads() != 0 || vectors_b % s.threads() != 0) return ConfigError::kMfmaCopy;
  if (s.stages != 2) return ConfigError::kMfmaStages;
  if (smem_bytes(s) > kMaxLdsPerBlock) return ConfigError::kLds;
  return ConfigError::kNone;
}

// The first check the spec fails (kNone: it is valid).
constexpr ConfigError check(ConfigSpec const& s) {
  if (s.amd()) {
    if (s.arch_cc != 0 || (s.gfx != 0x90a && s.gfx != 0x940)) return ConfigError::kArch;
    if (!s.layouts_known) return ConfigError::kLayoutTags;
    return check_gfx9(s);
  }
  if (s.arch_cc != 80 && s.arch_cc != 90) return ConfigError::kArch;
  if (!s.layouts_known) return ConfigError::kLayoutTags;
  int const smem = smem_bytes(s);
  if (s.warp_specialized()) {
    if (s.arch_cc != 90) return ConfigError::kWarpgroupsArch;
    if ((!s.a_k_major || !s.b_k_major) && (dtype_bytes(s.a) != 2 || s.bm % 64 != 0 || s.bn % 64 != 0))
      return ConfigError::kWarpgroupsLayout;
    if (!wgmma_types(s.a, s.b, s.acc)) return ConfigError::kWarpgroupsTypes;
    if (s.ping_pong) {
      if (s.consumers != 2 || (s.bm != 64 && s.bm != 128)) return ConfigError::kPingPongTile;
      if (s.bn % 32 != 0 || s.bm / 64 * s.bn / 2 > 128) return ConfigError::kPingPongTile;
    } else if (s.consumers > 2 || s.bm != 64 * s.consumers) {
      return ConfigError::kWarpgroupsTileM;
    }
    // (A 16-column chunk of 8-bit D would be 16-byte rows, under TMA's smallest swizzle span.)
    if (s.bn < 32 || s.bn > 256 || s.bn % 16 != 0 || epilogue_columns_sm90(s.bn) * dtype_bytes(s.d) < 32)
      return ConfigError::kWarpgroupsTileN;
    if (s.bk * dtype_bytes(s.a) != 128) return ConfigError::kWarpgroupsTileK;
    if (s.stages < 2 || s.stages > 16) return ConfigError::kWarpgroupsStages;
    // A cluster of two splits the shared operand's tile in halves: whole 64-row blocks where it is
    // MN-major.
    if (s.cluster_m < 1 || s.cluster_n < 1 || s.cluster_m * s.cluster_n > 2) return ConfigError::kCluster;
    if (s.cluster_m == 2 && !s.b_k_major && s.bn % 128 != 0) return ConfigError::kCluster;
    if (s.cluster_n == 2 && !s.a_k_major && s.bm % 128 != 0) return ConfigError::kCluster;
    if (smem > max_smem_per_block(s.arch_cc)) return ConfigError::kSharedMemory;
    return ConfigError::kNone;
  }
  AtomShape const atom = sm80_atom(s.a, s.b, s.acc);
  if (atom.m == 0) return ConfigError::kNoAtom;
  if (s.warps_m < 1 || s.warps_n < 1 || s.bm % (s.warps_m * atom.m) != 0) return ConfigError::kTileM;
  if (s.bn % (s.warps_n * 2 * atom.n) != 0) return ConfigError::kTileN;
  if (s.bk % atom.k != 0 || s.bk * dtype_bytes(s.a) % 16 != 0) return ConfigError::kTileK;
  if (s.bk / atom.k % 2 != 0) return ConfigError::kTileKSteps;
  if (s.stages < 2 || s.stages > 5) return ConfigError::kStages;
  if (smem > max_smem_per_block(s.arch_cc)) return ConfigError::kSharedMemory;
  if (epilogue_staging_bytes_sm80(s) > smem) return ConfigError::kEpilogueStaging;
  return ConfigError::kNone;
}

// The messages, "gemm::Config: <problem>; <fix>": string literals, so that gemm::Config's
// static_asserts print them too.
#define TESSERA_CONFIG_MSG_ARCH \
  "gemm::Config: unknown architecture tag; use arch::Sm80 or arch::Sm90 (NVIDIA), arch::Gfx90a or arch::Gfx940 (AMD)"
#define TESSERA_CONFIG_MSG_LAYOUT_TAGS \
  "gemm::Config: a layout is not RowMajor or ColumnMajor; pass one of those tags for A and for B"
#define TESSERA_CONFIG_MSG_NO_ATOM                                                                          \
  "gemm::Config: no mma.sync atom multiplies these element types; use bfloat16_t or half_t with float "       \
  "accumulators, float (tf32) with float, or int8_t with int32_t"
#define TESSERA_CONFIG_MSG_TILE_M                                                                             \
  "gemm::Config: BlockTile M is not a multiple of Warps M x the MMA atom's M=16; use BlockTile M = 16 x " \
  "Warps M x (atoms per warp), e.g. 128 with Warps<2, 2>"
#define TESSERA_CONFIG_MSG_TILE_N                                                                         \
  "gemm::Config: BlockTile N is not a multiple of Warps N x 16 (two 8-wide atoms per ldmatrix); use " \
  "BlockTile N = 16 x Warps N x (pairs per warp), e.g. 128 with Warps<2, 2>"
#define TESSERA_CONFIG_MSG_TILE_K                                                                         \
  "gemm::Config: BlockTile K is not a multiple of the MMA atom's K (16 for 16-bit types, 8 for tf32, " \
  "32 for int8) or of 16 bytes; use BlockTile K = 32 or 64"
#define TESSERA_CONFIG_MSG_TILE_K_STEPS                                                                    \
  "gemm::Config: BlockTile K holds an odd number of MMA k-steps, and the mainloop double-buffers "       \
  "fragments over pairs of k-steps; use an even multiple of the atom's K, e.g. BlockTile K = 32 or 64 " \
  "(16-bit types), 16 or 32 (tf32), 64 (int8)"
#define TESSERA_CONFIG_MSG_STAGES "gemm::Config: Stages must be 2 to 5; use Stages<3> or Stages<4>"
#define TESSERA_CONFIG_MSG_SHARED_MEMORY                                                                \
  "gemm::Config: the pipeline needs more shared memory than a block may have; use fewer Stages or a " \
  "smaller BlockTile"
#define TESSERA_CONFIG_MSG_EPILOGUE_STAGING                                                             \
  "gemm::Config: the epilogue stages each warp's accumulators through the pipeline's shared memory, " \
  "which is too small for one row of MMA atoms per warp; use more Stages or a larger BlockTile K"
#define TESSERA_CONFIG_MSG_WARPGROUPS_ARCH                                                                   \
  "gemm::Config: Warpgroups (the wgmma + TMA kernel) needs arch::Sm90; use arch::Sm90, or Warps<M, N> for " \
  "the mma.sync kernel"
#define TESSERA_CONFIG_MSG_WARPGROUPS_LAYOUT                                                                    \
  "gemm::Config: an MN-major operand (ColumnMajor A or RowMajor B) of the sm90 kernel must be a 16-bit "      \
  "type in whole 64-element blocks (BlockTile M and N multiples of 64); use RowMajor A and ColumnMajor B " \
  "otherwise"
#define TESSERA_CONFIG_MSG_WARPGROUPS_TYPES                                                                      \
  "gemm::Config: the sm90 kernel multiplies bfloat16_t or half_t operands (both the same) or float8_e4m3_t / "       \
  "float8_e5m2_t operands (any pairing) into float; use those types, or Warps<M, N> for the mma.sync kernel"
#define TESSERA_CONFIG_MSG_WARPGROUPS_TILE_M                                                                      \
  "gemm::Config: each consumer warpgroup computes 64 rows, so BlockTile M must be 64 x Warpgroups (1 or 2); " \
  "use BlockTile M = 64 with Warpgroups<1> or 128 with Warpgroups<2>"
#define TESSERA_CONFIG_MSG_WARPGROUPS_TILE_N                                                          \
  "gemm::Config: BlockTile N is the wgmma N of the sm90 kernel, and its epilogue works in 16- or " \
  "32-column chunks: a multiple of 16 (of 32 for 8-bit D) from 32 to 256; use 128 or 256"
#define TESSERA_CONFIG_MSG_WARPGROUPS_TILE_K                                                              \
  "gemm::Config: the sm90 kernel's k-tile is one 128-byte swizzle span of K; use BlockTile K = 64 for " \
  "16-bit types (128 for fp8)"
#define TESSERA_CONFIG_MSG_WARPGROUPS_STAGES "gemm::Config: the sm90 kernel takes 2 to 16 Stages; use Stages<4>"
#define TESSERA_CONFIG_MSG_PING_PONG_TILE                                                                         \
  "gemm::Config: ping-pong takes Warpgroups<2, PingPong>, each consumer holding a whole BlockTile of at "        \
  "most 128 x 128 accumulators (M = 64 or 128, N a multiple of 32); use BlockTile<128, 128, 64>"
#define TESSERA_CONFIG_MSG_CLUSTER                                                                                  \
  "gemm::Config: the sm90 kernel takes clusters of 1 x 1, 2 x 1 or 1 x 2 blocks, and a cluster of two "            \
  "multicasts halves of the shared operand's tile (whole 64-row blocks of an MN-major one); use "                 \
  "ClusterShape<2, 1> or <1, 2>, with BlockTile N (2 x 1, row-major B) or M (1 x 2, column-major A) of 128 " \
  "or 256"

#define TESSERA_CONFIG_MSG_MFMA_TYPES                                                                       \
  "gemm::Config: no MFMA atom multiplies these element types on this AMD target; use bfloat16_t or half_t with " \
  "float accumulators, float with float, int8_t with int32_t, or (arch::Gfx940) float8_e4m3_fnuz / "        \
  "float8_e5m2_fnuz pairs with float"
#define TESSERA_CONFIG_MSG_MFMA_WARPS \
  "gemm::Config: an AMD block has 1 to 16 wavefronts of 64 threads; use Warps<2, 2> (256 threads)"
#define TESSERA_CONFIG_MSG_MFMA_TILE_M                                                                       \
  "gemm::Config: BlockTile M is not a multiple of Warps M x the MFMA atom's M=32; use BlockTile M = 32 x " \
  "Warps M x (atoms per wavefront), e.g. 128 with Warps<2, 2>"
#define TESSERA_CONFIG_MSG_MFMA_TILE_N                                                                       \
  "gemm::Config: BlockTile N is not a multiple of Warps N x the MFMA atom's N=32; use BlockTile N = 32 x " \
  "Warps N x (atoms per wavefront), e.g. 128 with Warps<2, 2>"
#define TESSERA_CONFIG_MSG_MFMA_TILE_K                                                                       \
  "gemm::Config: a k-tile row of the gfx9 kernel is a power of two of at least two 16-byte chunks (one "    \
  "per half of the wavefront); use BlockTile K = 32 or 64 for 16-bit types, 8 or 16 for float, 32 or 64 " \
  "for 8-bit types"
#define TESSERA_CONFIG_MSG_MFMA_COPY                                                                          \
  "gemm::Config: the threads cannot split a k-tile of A or B evenly into 16-byte vectors; use a larger "     \
  "BlockTile (BlockTile M and N times BlockTile K bytes / 16 a multiple of the thread count) or fewer Warps"
#define TESSERA_CONFIG_MSG_MFMA_STAGES \
  "gemm::Config: the gfx9 kernel double-buffers LDS (the next k-tile waits in registers); use Stages<2>"
#define TESSERA_CONFIG_MSG_LDS                                                                             \
  "gemm::Config: the two LDS buffers need more than the 64 KB a workgroup may have; use a smaller BlockTile " \
  "or BlockTile K"

constexpr char const* config_error_message(ConfigError e) {
  switch (e) {
    case ConfigError::kNone: return "valid";
    case ConfigError::kArch: return TESSERA_CONFIG_MSG_ARCH;
    case ConfigError::kLayoutTags: return TESSERA_CONFIG_MSG_LAYOUT_TAGS;
    case ConfigError::kNoAtom: return TESSERA_CONFIG_MSG_NO_ATOM;
    case ConfigError::kTileM: return TESSERA_CONFIG_MSG_TILE_M;
    case ConfigError::kTileN: return TESSERA_CONFIG_MSG_TILE_N;
    case ConfigError::kTileK: return TESSERA_CONFIG_MSG_TILE_K;
    case ConfigError::kTileKSteps: return TESSERA_CONFIG_MSG_TILE_K_STEPS;
    case ConfigError::kStages: return TESSERA_CONFIG_MSG_STAGES;
    case ConfigError::kSharedMemory: return TESSERA_CONFIG_MSG_SHARED_MEMORY;
    case ConfigError::kEpilogueStaging: return TESSERA_CONFIG_MSG_EPILOGUE_STAGING;
    case ConfigError::kWarpgroupsArch: return TESSERA_CONFIG_MSG_WARPGROUPS_ARCH;
    case ConfigError::kWarpgroupsLayout: return TESSERA_CONFIG_MSG_WARPGROUPS_LAYOUT;
    case ConfigError::kWarpgroupsTypes: return TESSERA_CONFIG_MSG_WARPGROUPS_TYPES;
    case ConfigError::kWarpgroupsTileM: return TESSERA_CONFIG_MSG_WARPGROUPS_TILE_M;
    case ConfigError::kWarpgroupsTileN: return TESSERA_CONFIG_MSG_WARPGROUPS_TILE_N;
    case ConfigError::kWarpgroupsTileK: return TESSERA_CONFIG_MSG_WARPGROUPS_TILE_K;
    case ConfigError::kWarpgroupsStages: return TESSERA_CONFIG_MSG_WARPGROUPS_STAGES;
    case ConfigError::kPingPongTile: return TESSERA_CONFIG_MSG_PING_PONG_TILE;
    case ConfigError::kCluster: return TESSERA_CONFIG_MSG_CLUSTER;
    case ConfigError::kMfmaTypes: return TESSERA_CONFIG_MSG_MFMA_TYPES;
    case ConfigError::kMfmaWarps: return TESSERA_CONFIG_MSG_MFMA_WARPS;
    case ConfigError::kMfmaTileM: return TESSERA_CONFIG_MSG_MFMA_TILE_M;
    case ConfigError::kMfmaTileN: return TESSERA_CONFIG_MSG_MFMA_TILE_N;
    case ConfigError::kMfmaTileK: return TESSERA_CONFIG_MSG_MFMA_TILE_K;
    case ConfigError::kMfmaCopy: return TESSERA_CONFIG_MSG_MFMA_COPY;
    case ConfigError::kMfmaStages: return TESSERA_CONFIG_MSG_MFMA_STAGES;
    case ConfigError::kLds: return TESSERA_CONFIG_MSG_LDS;
  }
  return "unknown ConfigError";
}

}  // namespace tessera::gemm
