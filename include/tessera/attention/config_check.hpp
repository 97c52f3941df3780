// The checks behind an attention::Config, on plain values: an attention::ConfigSpec names a kernel's
// architecture, element type, head dimensions, block tile, consumer warpgroups and stages -- not
// its score chain, which is the application's -- and check() gives the first check it fails, with
// the message attention::Config's static_assert prints for it (attention/config.hpp, the same
// checks in the same order). Specs cover the Hopper kernel's 16-bit Configs: attention::Config also
// takes fp8 Q, K and V and the sm80 and gfx9 kernels (Warps<W>), which have no spec yet (the
// element and architecture checks say so).
//
//   constexpr attention::ConfigSpec s{.arch_cc = 90, .element = gemm::Dtype::kBf16, .head_dim = 128, .head_dim_v = 128,
//                                     .bq = 128, .bkv = 176, .consumers = 2, .turns = false, .stages = 2};
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
  int arch_cc = 90;  // 90: arch::Sm90 (the only attention kernel so far)
  gemm::Dtype element = gemm::Dtype::kBf16;
  int head_dim = 128, head_dim_v = 128;  // HeadDim<head_dim, head_dim_v>
  int bq = 128, bkv = 128;               // BlockTile<bq, bkv>
  int consumers = 2;                     // Consumers<consumers, turns>
  bool turns = false;
  int stages = 2;                        // Stages<stages>
  friend constexpr bool operator==(ConfigSpec const&, ConfigSpec const&) = default;

  constexpr int threads() const { return 128 * (consumers + 1); }
  // The head dimensions as the Hopper kernel holds them: whole spans of 64 columns (V: of 32 where
  // head_dim_v is not whole 64-column spans; attention::Config::Dvp).
  constexpr int head_dim_padded() const { return (head_dim + 63) / 64 * 64; }
  constexpr int head_dim_v_padded() const { return head_dim_v % 64 == 0 ? head_dim_v : (head_dim_v + 31) / 32 * 32; }
  // attention::Config::smem_bytes: Q, the K and V rings, and 1 KiB for barriers and alignment.
  constexpr int smem_bytes() const {
    int const e = gemm::dtype_bytes(element);
    return bq * head_dim_padded() * e + stages * (bkv * head_dim_padded() * e + bkv * head_dim_v_padded() * e) + 1024;
  }
};

enum class ConfigError {
  kNone,
  kArch,                     // not arch::Sm90 (the specs' kernel so far)
  kElement,                  // not bfloat16_t or half_t (the specs' types so far)
  kHeadDim,                  // head dimensions not multiples of 8 from 8 to 256
  kConsumers,                // consumers not 1 to 3, or BQ != 64 consumers
  kTurns,                    // turns without two consumers
  kThreeConsumerRegisters,   // three consumers' 160 registers too few for S, P and O
  kBlockKv,                  // BKV not 16 to 256 in steps of 16
  kStages,                   // stages not 2 to 4
  kSharedMemory,             // Q and the rings pass 227 KiB
};

// attention::Config's messages (attention/config.hpp), word for word.
#define TESSERA_ATTENTION_CONFIG_MSG_ARCH                                                                          \
  "attention::check: an attention::ConfigSpec names the Hopper kernel (arch_cc = 90) so far (the sm80 and gfx9 " \
  "Configs have no spec yet); use arch_cc = 90"
#define TESSERA_ATTENTION_CONFIG_MSG_ELEMENT                                                                          \
  "attention::check: an attention::ConfigSpec takes bfloat16_t or half_t Q, K, V and O (fp8 Configs have no spec yet); " \
  "use one of those"
#define TESSERA_ATTENTION_CONFIG_MSG_HEAD_DIM                                                                                      \
  "attention::Config: head dimensions are multiples of 8 (16-byte rows) from 8 to 256; use HeadDim<D, Dv> with such D and " \
  "Dv (pad others with zeros: the scores do not change)"
#define TESSERA_ATTENTION_CONFIG_MSG_CONSUMERS \
  "attention::Config: each consumer warpgroup owns 64 query rows; use BlockTile<64 * C, ...> with Consumers<C>, C = 1, 2 or 3"
#define TESSERA_ATTENTION_CONFIG_MSG_TURNS \
  "attention::Config: turns are taken between two consumers; use Consumers<2, true> or no turns"
#define TESSERA_ATTENTION_CONFIG_MSG_THREE_CONSUMERS                                                                          \
  "attention::Config: three consumers have 160 registers a thread, too few for S, P and O of this BlockTile and head " \
  "dimension; use BlockTile<192, 128> at head dimension 64, or two consumers"
#define TESSERA_ATTENTION_CONFIG_MSG_BLOCK_KV \
  "attention::Config: a block of keys is the scores' wgmma N and P V's K: 16 to 256 in steps of 16; use BlockTile<..., 128>"
#define TESSERA_ATTENTION_CONFIG_MSG_STAGES "attention::Config: K and V take 2 to 4 stages each; use Stages<2>"
#define TESSERA_ATTENTION_CONFIG_MSG_SMEM                                                                                  \
  "attention::Config: Q and the K and V rings pass the 227 KB of shared memory a block has; use fewer Stages or a smaller " \
  "BlockTile"

// The first check the spec fails (kNone: it is valid).
constexpr ConfigError check(ConfigSpec const& s) {
  if (s.arch_cc != 90) return ConfigError::kArch;
  if (s.element != gemm::Dtype::kBf16 && s.element != gemm::Dtype::kF16) return ConfigError::kElement;
  if (s.head_dim % 8 != 0 || s.head_dim_v % 8 != 0 || s.head_dim < 8 || s.head_dim_v < 8 || s.head_dim > 256 || s.head_dim_v > 256)
    return ConfigError::kHeadDim;
  if (s.consumers < 1 || s.consumers > 3 || s.bq != 64 * s.consumers) return ConfigError::kConsumers;
  if (s.turns && s.consumers != 2) return ConfigError::kTurns;
  if (s.consumers == 3 && s.bkv / 2 + s.bkv / 4 + s.head_dim_v_padded() / 2 > 128) return ConfigError::kThreeConsumerRegisters;
  if (s.bkv % 16 != 0 || s.bkv < 16 || s.bkv > 256) return ConfigError::kBlockKv;
  if (s.stages < 2 || s.stages > 4) return ConfigError::kStages;
  if (s.smem_bytes() > 227 * 1024) return ConfigError::kSharedMemory;
  return ConfigError::kNone;
}

// "valid", or the message the failed check prints.
constexpr char const* config_error_message(ConfigError e) {
  switch (e) {
    case ConfigError::kNone: return "valid";
    case ConfigError::kArch: return TESSERA_ATTENTION_CONFIG_MSG_ARCH;
    case ConfigError::kElement: return TESSERA_ATTENTION_CONFIG_MSG_ELEMENT;
    case ConfigError::kHeadDim: return TESSERA_ATTENTION_CONFIG_MSG_HEAD_DIM;
    case ConfigError::kConsumers: return TESSERA_ATTENTION_CONFIG_MSG_CONSUMERS;
    case ConfigError::kTurns: return TESSERA_ATTENTION_CONFIG_MSG_TURNS;
    case ConfigError::kThreeConsumerRegisters: return TESSERA_ATTENTION_CONFIG_MSG_THREE_CONSUMERS;
    case ConfigError::kBlockKv: return TESSERA_ATTENTION_CONFIG_MSG_BLOCK_KV;
    case ConfigError::kStages: return TESSERA_ATTENTION_CONFIG_MSG_STAGES;
    case ConfigError::kSharedMemory: return TESSERA_ATTENTION_CONFIG_MSG_SMEM;
  }
  return "unknown attention::ConfigError";
}
constexpr char const* config_error_message(ConfigSpec const& s) { return config_error_message(check(s)); }

}  // namespace tessera::attention
