// The checks behind an attention::Config, on plain values: an attention::ConfigSpec names a kernel's
// architecture, element type, head dimensions, block tile, workers (the Hopper kernel's consumer
// warpgroups or the sm80 kernel's warps) and stages -- not its score chain, which is the
// application's -- and check() gives the first check it fails, with the message attention::Config's
// static_assert prints for it (attention/config.hpp, the same checks in the same order; a few
// "attention::check:" messages name the spec's own fields). Specs cover the Hopper kernel in bf16,
// f16 and fp8 (e4m3 Q, K and V, O in bf16) and the sm80 kernel in bf16 and f16; the gfx9 kernel
// has no spec yet (the architecture check says so).
//
//   constexpr attention::ConfigSpec s{.arch_cc = 90, .element = gemm::Dtype::kBf16, .head_dim = 128, .head_dim_v = 128,
//                                     .bq = 128, .bkv = 176, .consumers = 2, .turns = false, .stages = 2};
//   constexpr attention::ConfigSpec s80{.arch_cc = 80, .element = gemm::Dtype::kBf16, .head_dim = 128, .head_dim_v = 128,
//                                       .bq = 64, .bkv = 64, .consumers = 0, .warps = 4, .stages = 2};
//   static_assert(attention::check(s) == attention::ConfigError::kNone);
//   attention::config_error_message(other);   // "attention::Config: <problem>; <fix>"
//
// The profiler's attention space (tuning/attention_space.hpp) runs check() on its candidates
// before instantiating anything; attention/config_of.hpp maps a valid spec back to its Config, and
// attention/tuned.hpp's tables hold specs.
#pragma once

#include "tessera/gemm/config_check.hpp"  // gemm::Dtype

namespace tessera::attention {

struct ConfigSpec {
  int arch_cc = 90;  // 90: arch::Sm90 (the Hopper kernel, Consumers); 80: arch::Sm80 (the sm80 kernel, Warps)
  // Q, K and V: kBf16 or kF16 (O the same), or kE4m3 (the Hopper kernel: float8_e4m3_t with
  // per-tensor scales, O in bfloat16_t).
  gemm::Dtype element = gemm::Dtype::kBf16;
  int head_dim = 128, head_dim_v = 128;  // HeadDim<head_dim, head_dim_v>
  int bq = 128, bkv = 128;               // BlockTile<bq, bkv>
  int consumers = 2;                     // Consumers<consumers, turns> (Hopper; 0 for sm80)
  bool turns = false;
  int warps = 0;                         // Warps<warps> (sm80; 0 for Hopper)
  int stages = 2;                        // Stages<stages>
  friend constexpr bool operator==(ConfigSpec const&, ConfigSpec const&) = default;

  constexpr bool sm80() const { return arch_cc == 80; }
  constexpr bool fp8() const { return element == gemm::Dtype::kE4m3; }
  constexpr int threads() const { return sm80() ? 32 * warps : 128 * (consumers + 1); }
  // The head dimensions as the kernels hold them (attention::Config::Dp, Dvp): whole 128-byte
  // swizzle spans (64 16-bit or 128 8-bit columns); the Hopper kernel's 16-bit V whose head_dim_v
  // is not whole 64-column spans in spans of 32.
  constexpr int head_dim_padded() const { return (head_dim + span() - 1) / span() * span(); }
  constexpr int head_dim_v_padded() const {
    int const v_span = !sm80() && !fp8() && head_dim_v % 64 != 0 ? 32 : span();
    return (head_dim_v + v_span - 1) / v_span * v_span;
  }
  constexpr int span() const { return fp8() ? 128 : 64; }
  // attention::Config::smem_bytes: Q and the K and V rings (fp8: V as loaded and V^T), and on
  // Hopper 1 KiB for barriers and alignment.
  constexpr int smem_bytes() const {
    int const e = gemm::dtype_bytes(element);
    int const k = bkv * head_dim_padded() * e, v = (fp8() ? 2 : 1) * bkv * head_dim_v_padded() * e;
    return bq * head_dim_padded() * e + stages * (k + v) + (sm80() ? 0 : 1024);
  }
};

enum class ConfigError {
  kNone,
  kArch,                     // not arch::Sm90 or arch::Sm80 (the specs' kernels)
  kElement,                  // not bfloat16_t, half_t or float8_e4m3_t
  kFp8Arch,                  // fp8 on another kernel than Hopper's
  kFp8Tile,                  // fp8: D not a multiple of 16, Dv of 128 or BKV of 128
  kHeadDim,                  // head dimensions not multiples of 8 from 8 to 256
  kHopperWorkers,            // a Hopper spec with warps
  kSm80Workers,              // an sm80 spec with consumers or turns
  kConsumers,                // consumers not 1 to 3, or BQ != 64 consumers
  kTurns,                    // turns without two consumers
  kFp8Consumers,             // fp8 on other than two consumers
  kThreeConsumerRegisters,   // three consumers' 160 registers too few for S, P and O
  kBlockKv,                  // BKV not 16 to 256 in steps of 16
  kStages,                   // stages not 2 to 4
  kSm80Warps,                // sm80: warps not 1, 2, 4 or 8, or BQ != 16 warps
  kSm80BlockKv,              // sm80: BKV not 16 to 256 in steps of 16
  kSm80Stages,               // sm80: stages not 2 to 4
  kSm80SharedMemory,         // sm80: Q and the ring pass 163 KiB
  kSharedMemory,             // Hopper: Q and the rings pass 227 KiB
};

// attention::Config's messages (attention/config.hpp), word for word; the "attention::check:" ones
// are the spec's own (its fields, not a Config's template arguments).
#define TESSERA_ATTENTION_CONFIG_MSG_ARCH                                                                                  \
  "attention::check: an attention::ConfigSpec names the Hopper kernel (arch_cc = 90) or the sm80 kernel (arch_cc = 80; " \
  "the gfx9 Configs have no spec yet); use arch_cc = 90 or 80"
#define TESSERA_ATTENTION_CONFIG_MSG_ELEMENT                                                                           \
  "attention::Config: Q, K, V and O are bfloat16_t or half_t (float softmax and accumulation), or Q, K and V " \
  "float8_e4m3_t with O bfloat16_t; use one of those"
#define TESSERA_ATTENTION_CONFIG_MSG_FP8_ARCH \
  "attention::Config: fp8 attention is the Hopper kernel's; use arch::Sm90, or bfloat16_t / half_t"
#define TESSERA_ATTENTION_CONFIG_MSG_FP8_TILE                                                                                   \
  "attention::Config: fp8 attention takes head dimensions D a multiple of 16 and Dv of 128 (V^T's transposition works "    \
  "on 128-byte rows) and blocks of 128 or 256 keys (P V's 32-key steps on 128-byte rows of V^T); use HeadDim<128> or " \
  "<256> and BlockTile<128, 128>"
#define TESSERA_ATTENTION_CONFIG_MSG_HEAD_DIM                                                                                      \
  "attention::Config: head dimensions are multiples of 8 (16-byte rows) from 8 to 256; use HeadDim<D, Dv> with such D and " \
  "Dv (pad others with zeros: the scores do not change)"
#define TESSERA_ATTENTION_CONFIG_MSG_HOPPER_WORKERS                                                                       \
  "attention::check: the Hopper kernel's workers are consumer warpgroups (Consumers<C>), not warps; set warps = 0, or " \
  "arch_cc = 80 for the sm80 kernel's Warps<W>"
#define TESSERA_ATTENTION_CONFIG_MSG_SM80_WORKERS                                                                            \
  "attention::check: the sm80 kernel's workers are warps (Warps<W>), not consumer warpgroups; set consumers = 0, turns = " \
  "false and warps = W"
#define TESSERA_ATTENTION_CONFIG_MSG_CONSUMERS \
  "attention::Config: each consumer warpgroup owns 64 query rows; use BlockTile<64 * C, ...> with Consumers<C>, C = 1, 2 or 3"
#define TESSERA_ATTENTION_CONFIG_MSG_TURNS \
  "attention::Config: turns are taken between two consumers; use Consumers<2, true> or no turns"
#define TESSERA_ATTENTION_CONFIG_MSG_FP8_CONSUMERS "attention::Config: fp8 attention runs on two consumers; use Consumers<2>"
#define TESSERA_ATTENTION_CONFIG_MSG_THREE_CONSUMERS                                                                          \
  "attention::Config: three consumers have 160 registers a thread, too few for S, P and O of this BlockTile and head " \
  "dimension; use BlockTile<192, 128> at head dimension 64, or two consumers"
#define TESSERA_ATTENTION_CONFIG_MSG_BLOCK_KV \
  "attention::Config: a block of keys is the scores' wgmma N and P V's K: 16 to 256 in steps of 16; use BlockTile<..., 128>"
#define TESSERA_ATTENTION_CONFIG_MSG_STAGES "attention::Config: K and V take 2 to 4 stages each; use Stages<2>"
#define TESSERA_ATTENTION_CONFIG_MSG_SM80_WARPS                                                                                  \
  "attention::Config: each warp of the sm80 kernel owns 16 query rows; use BlockTile<16 * W, ...> with Warps<W>, W = 1, 2, " \
  "4 or 8"
#define TESSERA_ATTENTION_CONFIG_MSG_SM80_BLOCK_KV \
  "attention::Config: a block of keys is whole k-steps of P V (16 keys); use BlockTile<..., 64> (16 to 256 in steps of 16)"
#define TESSERA_ATTENTION_CONFIG_MSG_SM80_STAGES \
  "attention::Config: the sm80 kernel's K and V ring takes 2 to 4 stages; use Stages<2>"
#define TESSERA_ATTENTION_CONFIG_MSG_SM80_SMEM                                                                             \
  "attention::Config: Q and the K and V ring pass the 163 KB of shared memory an sm_80 block has; use fewer Stages or a " \
  "smaller BlockTile"
#define TESSERA_ATTENTION_CONFIG_MSG_SMEM                                                                                  \
  "attention::Config: Q and the K and V rings pass the 227 KB of shared memory a block has; use fewer Stages or a smaller " \
  "BlockTile"

// The first check the spec fails (kNone: it is valid).
constexpr ConfigError check(ConfigSpec const& s) {
  if (s.arch_cc != 90 && s.arch_cc != 80) return ConfigError::kArch;
  if (s.element != gemm::Dtype::kBf16 && s.element != gemm::Dtype::kF16 && !s.fp8()) return ConfigError::kElement;
  if (s.fp8() && s.sm80()) return ConfigError::kFp8Arch;
  if (s.fp8() && (s.head_dim % 16 != 0 || s.head_dim_v % 128 != 0 || s.bkv % 128 != 0)) return ConfigError::kFp8Tile;
  if (s.head_dim % 8 != 0 || s.head_dim_v % 8 != 0 || s.head_dim < 8 || s.head_dim_v < 8 || s.head_dim > 256 || s.head_dim_v > 256)
    return ConfigError::kHeadDim;
  if (!s.sm80() && s.warps != 0) return ConfigError::kHopperWorkers;
  if (s.sm80() && (s.consumers != 0 || s.turns)) return ConfigError::kSm80Workers;
  if (!s.sm80()) {
    if (s.consumers < 1 || s.consumers > 3 || s.bq != 64 * s.consumers) return ConfigError::kConsumers;
    if (s.turns && s.consumers != 2) return ConfigError::kTurns;
    if (s.fp8() && s.consumers != 2) return ConfigError::kFp8Consumers;
    if (s.consumers == 3 && s.bkv / 2 + s.bkv / 4 + s.head_dim_v_padded() / 2 > 128) return ConfigError::kThreeConsumerRegisters;
    if (s.bkv % 16 != 0 || s.bkv < 16 || s.bkv > 256) return ConfigError::kBlockKv;
    if (s.stages < 2 || s.stages > 4) return ConfigError::kStages;
  } else {
    if ((s.warps != 1 && s.warps != 2 && s.warps != 4 && s.warps != 8) || s.bq != 16 * s.warps) return ConfigError::kSm80Warps;
    if (s.bkv % 16 != 0 || s.bkv < 16 || s.bkv > 256) return ConfigError::kSm80BlockKv;
    if (s.stages < 2 || s.stages > 4) return ConfigError::kSm80Stages;
    if (s.smem_bytes() > 163 * 1024) return ConfigError::kSm80SharedMemory;
  }
  if (s.smem_bytes() > 227 * 1024) return ConfigError::kSharedMemory;
  return ConfigError::kNone;
}

// "valid", or the message the failed check prints.
constexpr char const* config_error_message(ConfigError e) {
  switch (e) {
    case ConfigError::kNone: return "valid";
    case ConfigError::kArch: return TESSERA_ATTENTION_CONFIG_MSG_ARCH;
    case ConfigError::kElement: return TESSERA_ATTENTION_CONFIG_MSG_ELEMENT;
    case ConfigError::kFp8Arch: return TESSERA_ATTENTION_CONFIG_MSG_FP8_ARCH;
    case ConfigError::kFp8Tile: return TESSERA_ATTENTION_CONFIG_MSG_FP8_TILE;
    case ConfigError::kHeadDim: return TESSERA_ATTENTION_CONFIG_MSG_HEAD_DIM;
    case ConfigError::kHopperWorkers: return TESSERA_ATTENTION_CONFIG_MSG_HOPPER_WORKERS;
    case ConfigError::kSm80Workers: return TESSERA_ATTENTION_CONFIG_MSG_SM80_WORKERS;
    case ConfigError::kConsumers: return TESSERA_ATTENTION_CONFIG_MSG_CONSUMERS;
    case ConfigError::kTurns: return TESSERA_ATTENTION_CONFIG_MSG_TURNS;
    case ConfigError::kFp8Consumers: return TESSERA_ATTENTION_CONFIG_MSG_FP8_CONSUMERS;
    case ConfigError::kThreeConsumerRegisters: return TESSERA_ATTENTION_CONFIG_MSG_THREE_CONSUMERS;
    case ConfigError::kBlockKv: return TESSERA_ATTENTION_CONFIG_MSG_BLOCK_KV;
    case ConfigError::kStages: return TESSERA_ATTENTION_CONFIG_MSG_STAGES;
    case ConfigError::kSm80Warps: return TESSERA_ATTENTION_CONFIG_MSG_SM80_WARPS;
    case ConfigError::kSm80BlockKv: return TESSERA_ATTENTION_CONFIG_MSG_SM80_BLOCK_KV;
    case ConfigError::kSm80Stages: return TESSERA_ATTENTION_CONFIG_MSG_SM80_STAGES;
    case ConfigError::kSm80SharedMemory: return TESSERA_ATTENTION_CONFIG_MSG_SM80_SMEM;
    case ConfigError::kSharedMemory: return TESSERA_ATTENTION_CONFIG_MSG_SMEM;
  }
  return "unknown attention::ConfigError";
}
constexpr char const* config_error_message(ConfigSpec const& s) { return config_error_message(check(s)); }

}  // namespace tessera::attention
