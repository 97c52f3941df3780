// attention::ConfigOf<spec, Chain>: the attention::Config an attention::ConfigSpec value describes,
// with the application's score chain, as conv::ConfigOf is a convolution's; and spec_of<Cfg>, the
// way back. Tables of specs (the profiler's attention space, the header `tessera-profile emit`
// writes for attention::Tuned) name Configs without spelling out their template arguments.
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>, MyChain>;
//   constexpr attention::ConfigSpec s = attention::spec_of<Cfg>;
//   using Same = attention::ConfigOf<s, MyChain>;   // Cfg again
#pragma once

#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/attention/config.hpp"
#include "tessera/attention/config_check.hpp"
#include "tessera/attention/score_chain.hpp"

namespace tessera::attention {

namespace detail {
// The Config of a spec's fields, one template argument each (GCC 12 crashes on some dependent uses
// of a structural value as a template argument; scalars pass, as conv/config_of.hpp found).
template <int Arch, gemm::Dtype E, int D, int Dv, int BQ, int BKV, int C, bool Turns, int S, class Chain>
struct ConfigFrom {
  static_assert(Arch == 90, TESSERA_ATTENTION_CONFIG_MSG_ARCH);
  using Element = std::conditional_t<E == gemm::Dtype::kF16, half_t, bfloat16_t>;
  static_assert(E == gemm::Dtype::kBf16 || E == gemm::Dtype::kF16, TESSERA_ATTENTION_CONFIG_MSG_ELEMENT);
  using type = Config<arch::Sm90, Element, HeadDim<D, Dv>, BlockTile<BQ, BKV>, Consumers<C, Turns>, Stages<S>, Chain>;
};

#define TESSERA_DETAIL_ATTENTION_CONFIG_FROM(s, Chain)                                                                               \
  ::tessera::attention::detail::ConfigFrom<s.arch_cc, s.element, s.head_dim, s.head_dim_v, s.bq, s.bkv, s.consumers, s.turns, \
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
                                                 .stages = Cfg::stages};

}  // namespace tessera::attention
