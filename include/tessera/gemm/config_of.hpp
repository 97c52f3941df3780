// gemm::ConfigOf<spec, Epi>: the gemm::Config a ConfigSpec value describes (the reverse of
// Config::spec). Specs are structural values, so tables of them (the profiler's space, the header
// `tessera-profile emit` writes) name Configs without spelling out their template arguments.
//
//   constexpr gemm::ConfigSpec s = gemm::Config<...>::spec;
//   using Same = gemm::ConfigOf<s>;   // Config<...> again (with epilogue::Identity unless given)
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "tessera/gemm/config.hpp"

namespace tessera::gemm {

namespace detail {
// The element type of a Dtype, in the enumerators' order (gemm/config_check.hpp).
template <Dtype T>
using TypeOf = std::tuple_element_t<std::size_t(T), std::tuple<void, bfloat16_t, half_t, float, std::int8_t, std::int32_t,
                                                                float8_e4m3_t, float8_e5m2_t, float8_e4m3_fnuz_t, float8_e5m2_fnuz_t>>;
static_assert(dtype_of<TypeOf<Dtype::kBf16>> == Dtype::kBf16 && dtype_of<TypeOf<Dtype::kInt32>> == Dtype::kInt32 &&
                  dtype_of<TypeOf<Dtype::kE5m2>> == Dtype::kE5m2 && dtype_of<TypeOf<Dtype::kE5m2Fnuz>> == Dtype::kE5m2Fnuz,
              "gemm::detail::TypeOf follows gemm::Dtype's enumerators");

// The Config of a spec's fields, one template argument each (GCC 12 crashes on some dependent
// uses of a ConfigSpec as a template argument; scalars pass).
template <int Arch, int Gfx, Dtype A, Dtype B, Dtype D, Dtype Acc, bool AKMajor, bool BKMajor, int BM, int BN, int BK, int WarpsM,
          int WarpsN, int Consumers, bool PingPongSchedule, int ClusterM, int ClusterN, int StageCount, class Epi>
struct ConfigFrom {
  using WarpPolicy = std::conditional_t<(Consumers > 0),
                                        Warpgroups<Consumers, std::conditional_t<PingPongSchedule, PingPong, Cooperative>,
                                                   ClusterShape<ClusterM, ClusterN>>,
                                        Warps<WarpsM, WarpsN>>;
  using ArchTag = std::conditional_t<Gfx == 0x940, arch::Gfx940,
                                     std::conditional_t<Gfx == 0x90a, arch::Gfx90a,
                                                        std::conditional_t<Arch == 90, arch::Sm90, arch::Sm80>>>;
  using type = Config<ArchTag, TypeOf<A>, std::conditional_t<AKMajor, RowMajor, ColumnMajor>,
                      TypeOf<B>, std::conditional_t<BKMajor, ColumnMajor, RowMajor>, TypeOf<D>, TypeOf<Acc>, BlockTile<BM, BN, BK>,
                      WarpPolicy, Stages<StageCount>, Epi>;
};

#define TESSERA_DETAIL_CONFIG_FROM(s, Epi)                                                                                     \
  ::tessera::gemm::detail::ConfigFrom<s.arch_cc, s.gfx, s.a, s.b, s.d, s.acc, s.a_k_major, s.b_k_major, s.bm, s.bn, s.bk, s.warps_m, \
                                      s.warps_n, s.consumers, s.ping_pong, s.cluster_m, s.cluster_n, s.stages, Epi>::type
}  // namespace detail

// The Config a spec describes, with epilogue Epi. An invalid spec gives a Config that fails its
// static_assert with check(spec)'s message, as the spelled-out Config would.
template <ConfigSpec S, class Epi = epilogue::Identity>
using ConfigOf = typename TESSERA_DETAIL_CONFIG_FROM(S, Epi);

}  // namespace tessera::gemm
