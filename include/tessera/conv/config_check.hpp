// The checks behind a conv::Config, on plain values: a conv::ConfigSpec is a direction and the
// spec of the direction's GEMM (conv::Config<...>::Gemm::spec: its operand orders, element types,
// tiles, warps or warpgroups, stages), and check() gives the first check it fails, with the
// message the compiler prints for it, or the convolution's own where the GEMM's pass. Specs cover
// the 16-bit convolutions (every direction, sm80 and sm_90a); conv::Config also takes fp8 and tf32
// Fprop, which have no spec yet.
//
//   constexpr conv::ConfigSpec s{.direction = conv::Direction::kWgrad,
//                                .gemm = {.arch_cc = 90, .a_k_major = false, .b_k_major = false,
//                                         .a = gemm::Dtype::kBf16, .b = gemm::Dtype::kBf16, .d = gemm::Dtype::kBf16,
//                                         .bm = 128, .bn = 256, .bk = 64, .consumers = 2, .stages = 4}};
//   static_assert(conv::check(s) == conv::ConfigError::kNone);
//   conv::config_error_message(other);   // "conv::Config: <problem>; <fix>" or gemm::Config's message
//
// The profiler's convolution space (tuning/conv_space.hpp) runs check() on its candidates before
// instantiating anything, as the GEMM's runs gemm::check. conv/config_of.hpp maps a valid spec
// back to its conv::Config.
#pragma once

#include "tessera/conv/problem.hpp"
#include "tessera/gemm/config_check.hpp"

namespace tessera::conv {

struct ConfigSpec {
  Direction direction = Direction::kFprop;
  gemm::ConfigSpec gemm{};  // the direction's GEMM (conv/implicit_gemm.hpp)
  friend constexpr bool operator==(ConfigSpec const&, ConfigSpec const&) = default;

  // The tensors' element types: the GEMM's A, B and D in the direction's roles
  // (Fprop X W -> Y; Dgrad dY W -> dX; Wgrad dY X -> dW).
  constexpr gemm::Dtype x() const { return direction == Direction::kFprop ? gemm.a : direction == Direction::kDgrad ? gemm.d : gemm.b; }
  constexpr gemm::Dtype w() const { return direction == Direction::kWgrad ? gemm.d : gemm.b; }
  constexpr gemm::Dtype y() const { return direction == Direction::kFprop ? gemm.d : gemm.a; }
};

// The operand orders of a direction's GEMM (conv::Config's Gemm): Fprop TN (A and B K-major),
// Dgrad A K-major and B N-major, Wgrad A M-major and B N-major.
constexpr bool a_k_major(Direction d) { return d != Direction::kWgrad; }
constexpr bool b_k_major(Direction d) { return d == Direction::kFprop; }

// The spec of a convolution with one element type `t` (float accumulation) in direction `d`:
// orders and types set, tiles, warps and stages left to the caller.
constexpr ConfigSpec spec_of(int arch_cc, Direction d, gemm::Dtype t) {
  ConfigSpec s;
  s.direction = d;
  s.gemm.arch_cc = arch_cc;
  s.gemm.a_k_major = a_k_major(d);
  s.gemm.b_k_major = b_k_major(d);
  s.gemm.a = s.gemm.b = s.gemm.d = t;
  s.gemm.acc = gemm::Dtype::kF32;
  return s;
}

enum class ConfigError {
  kNone,
  kGemm,     // the direction's GEMM fails gemm::check (gemm_error() says which)
  kOrders,   // the GEMM's operand orders are not the direction's
  kTypes,    // not one 16-bit type for x, w and y with float accumulation (the specs' types so far)
  kAmd,      // an AMD target (the gfx9 convolution has no ConfigSpec here yet)
};

#define TESSERA_CONV_CONFIG_MSG_ORDERS                                                                                \
  "conv::Config: the GEMM's operand orders are not the direction's (Fprop: A and B K-major; Dgrad: A K-major, B " \
  "N-major; Wgrad: A M-major, B N-major); build the spec with conv::spec_of or take conv::Config<...>::Gemm::spec"
#define TESSERA_CONV_CONFIG_MSG_TYPES                                                                                  \
  "conv::check: a conv::ConfigSpec takes one 16-bit type for x, w and y with float accumulation (fp8 and tf32 Fprop " \
  "are conv::Configs, not specs yet); use bfloat16_t or half_t"
#define TESSERA_CONV_CONFIG_MSG_AMD \
  "conv::Config: no AMD convolution spec yet; use arch::Sm80 (Warps<M, N>) or arch::Sm90 (Warpgroups)"

// The GEMM's first failed check (kNone where it passes).
constexpr gemm::ConfigError gemm_error(ConfigSpec const& s) { return gemm::check(s.gemm); }

// The first check the spec fails (kNone: it is valid).
constexpr ConfigError check(ConfigSpec const& s) {
  gemm::ConfigSpec const& g = s.gemm;
  if (g.amd()) return ConfigError::kAmd;
  if (gemm_error(s) != gemm::ConfigError::kNone) return ConfigError::kGemm;
  if (g.a_k_major != a_k_major(s.direction) || g.b_k_major != b_k_major(s.direction)) return ConfigError::kOrders;
  bool const sixteen = g.a == gemm::Dtype::kBf16 || g.a == gemm::Dtype::kF16;
  if (!sixteen || g.b != g.a || g.d != g.a || g.acc != gemm::Dtype::kF32) return ConfigError::kTypes;
  return ConfigError::kNone;
}

// "valid", or the message the failed check prints ("gemm::Config: ..." for the GEMM's).
constexpr char const* config_error_message(ConfigSpec const& s) {
  switch (check(s)) {
    case ConfigError::kNone: return "valid";
    case ConfigError::kGemm: return gemm::config_error_message(gemm_error(s));
    case ConfigError::kOrders: return TESSERA_CONV_CONFIG_MSG_ORDERS;
    case ConfigError::kTypes: return TESSERA_CONV_CONFIG_MSG_TYPES;
    case ConfigError::kAmd: return TESSERA_CONV_CONFIG_MSG_AMD;
  }
  return "unknown conv::ConfigError";
}

constexpr char const* direction_name(Direction d) {
  return d == Direction::kFprop ? "fprop" : d == Direction::kDgrad ? "dgrad" : "wgrad";
}

}  // namespace tessera::conv
