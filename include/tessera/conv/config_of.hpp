// conv::ConfigOf<spec, Epi>: the conv::Config a conv::ConfigSpec value describes, as
// gemm::ConfigOf is a GEMM's. Tables of specs (the profiler's convolution space, the header
// `tessera-profile emit` writes for conv::Tuned) name Configs without spelling out their template
// arguments.
//
//   using Cfg = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Wgrad, ...>;
//   constexpr conv::ConfigSpec s{conv::Direction::kWgrad, Cfg::Gemm::spec};
//   using Same = conv::ConfigOf<s>;   // Cfg again (with epilogue::Identity unless given)
// tessera-header: cuda-only
#pragma once

#include <type_traits>

#include "tessera/conv/config.hpp"
#include "tessera/conv/config_check.hpp"
#include "tessera/gemm/config_of.hpp"

namespace tessera::conv {

namespace detail {
template <Direction D>
using DirectionTag = std::conditional_t<D == Direction::kFprop, Fprop, std::conditional_t<D == Direction::kDgrad, Dgrad, Wgrad>>;

// The Config of a spec's fields, one template argument each (GCC 12 crashes on some dependent
// uses of a ConfigSpec as a template argument; scalars pass). X, W and Y are the GEMM's A, B and D
// in the direction's roles (ConfigSpec::x, w, y).
template <Direction Dir, int Arch, gemm::Dtype X, gemm::Dtype W, gemm::Dtype Y, gemm::Dtype Acc, int BM, int BN, int BK, int WarpsM,
          int WarpsN, int Consumers, bool PingPongSchedule, int ClusterM, int ClusterN, int StageCount, class Epi>
struct ConfigFrom {
  // The GEMM's warp policy and architecture tag, as gemm::ConfigOf spells them.
  using Gemm = gemm::detail::ConfigFrom<Arch, 0, X, W, Y, Acc, true, true, BM, BN, BK, WarpsM, WarpsN, Consumers, PingPongSchedule,
                                        ClusterM, ClusterN, StageCount, Epi>;
  using type = Config<typename Gemm::ArchTag, gemm::detail::TypeOf<X>, gemm::detail::TypeOf<W>, gemm::detail::TypeOf<Y>,
                      gemm::detail::TypeOf<Acc>, DirectionTag<Dir>, gemm::BlockTile<BM, BN, BK>, typename Gemm::WarpPolicy,
                      gemm::Stages<StageCount>, Epi>;
};

#define TESSERA_DETAIL_CONV_CONFIG_FROM(s, Epi)                                                                               \
  ::tessera::conv::detail::ConfigFrom<s.direction, s.gemm.arch_cc, s.x(), s.w(), s.y(), s.gemm.acc, s.gemm.bm, s.gemm.bn, s.gemm.bk, \
                                      s.gemm.warps_m, s.gemm.warps_n, s.gemm.consumers, s.gemm.ping_pong, s.gemm.cluster_m,       \
                                      s.gemm.cluster_n, s.gemm.stages, Epi>::type
}  // namespace detail

// The Config a spec describes, with epilogue Epi (its GEMM's operand orders are the direction's,
// whatever the spec says: conv::check refuses a spec whose orders differ).
template <ConfigSpec S, class Epi = epilogue::Identity>
using ConfigOf = typename TESSERA_DETAIL_CONV_CONFIG_FROM(S, Epi);

}  // namespace tessera::conv
