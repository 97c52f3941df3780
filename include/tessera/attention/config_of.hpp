// attention::ConfigOf<spec, Chain>: the attention::Config an attention::ConfigSpec value describes,
// with the application's score chain, as conv::ConfigOf is a convolution's; and spec_of<Cfg>, the
// way back. Tables of specs (the profiler's attention space, the header `tessera-profile emit`
// writes for attention::Tuned) name Configs without spelling out their template arguments.
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>, MyChain>;
//   constexpr attention::ConfigSpec s = attention::spec_of<Cfg>;
//   using Same = attention::ConfigOf<s, MyChain>;   // Cfg again
//
// Specs name the Hopper kernel (arch_cc = 90: Consumers<consumers, turns>; bf16, f16 or e4m3) and
// the sm80 kernel (arch_cc = 80: Warps<warps>; bf16 or f16).
#pragma once

#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/attention/config.hpp"
#include "tessera/attention/config_check.hpp"
#include "tessera/attention/score_chain.hpp"

namespace tessera::attention {

namespace detail {
// The Config of a spec's fields, one template argument each (GCC 12 crashes on some dependent uses
// of a structural value as a template argument; scalars pass, as conv/config_of.hpp found): the
// Hopper kernel's with Consumers<C, Turns>, the sm80 kernel's with Warps<W>.
template <int Arch, class Element, class Head, class Tile, int C, bool Turns, int W, class Stages_, class Chain>
struct KernelConfig {
  using type = Config<arch::Sm90, Element, Head, Tile, Consumers<C, Turns>, Stages_, Chain>;
};
template <class Element, class Head, class Tile, int C, bool Turns, int W, class Stages_, class Chain>
struct KernelConfig<80, Element, Head, Tile, C, Turns, W, Stages_, Chain> {
  using type = Config<arch::Sm80, Element, Head, Tile, Warps<W>, Stages_, Chain>;
};

template <int Arch, gemm::Dtype E, int D, int Dv, int BQ, int BKV, int C, bool Turns, int W, int S, class Chain>
struct ConfigFrom {
  static_assert(Arch == 90 || Arch == 80, TESSERA_ATTENTION_CONFIG_MSG_ARCH);
  static_assert(E == gemm::Dtype::kBf16 || E == gemm::Dtype::kF16 || E == gemm::Dtype::kE4m3, TESSERA_ATTENTION_CONFIG_MSG_ELEMENT);
  using Element = std::conditional_t<E == gemm::Dtype::kF16, half_t, std::conditional_t<E == gemm::Dtype::kE4m3, float8_e4m3_t, bfloat16_t>>;
  using type = typename KernelConfig<Arch, Element, HeadDim<D, Dv>, BlockTile<BQ, BKV>, C, Turns, W, Stages<S>, Chain>::type;
};

#define TESSERA_DETAIL_ATTENTION_CONFIG_FROM(s, Chain)                                                                                \
  ::tessera::attention::detail::ConfigFrom<s.arch_cc, s.element, s.head_dim, s.head_dim_v, s.bq, s.bkv, s.consumers, s.turns, s.warps, \
                                           s.stages, Chain>::type
}  // namespace detail

// The Config a valid spec describes, with score chain Chain.
template <ConfigSpec S, class Chain = NoMask>
using ConfigOf = typename TESSERA_DETAIL_ATTENTION_CONFIG_FROM(S, Chain);

// The spec of a Config (its chain left out).
template <class Cfg>
inline constexpr ConfigSpec spec_of = ConfigSpec{.arch_cc = std::is_same_v<typename Cfg::Arch, arch::Sm90> ? 90 : 80,
                                                 .element = gemm::dtype_of<typename Cfg::Element>,
                                                 .head_dim = Cfg::D,
                                                 .head_dim_v = Cfg::Dv,
                                                 .bq = Cfg::BQ,
                                                 .bkv = Cfg::BKV,
                                                 .consumers = Cfg::consumers,
                                                 .turns = Cfg::turns,
                                                 .warps = Cfg::sm80_ok ? Cfg::warps : 0,
                                                 .stages = Cfg::stages};

}  // namespace tessera::attention
