// conv::Tuned: a convolution that picks its Config at run time from a table of profiled winners,
// the header `tessera-profile emit` writes from `profile conv` results (a TunedTable per element
// type and direction), as gemm::Tuned does for GEMMs.
//
//   #include "my_tuned_convs.hpp"   // written by tessera-profile emit: namespace my_tuned { ... bf16_fprop ... }
//   using C = conv::Tuned<my_tuned::bf16_fprop, epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>>>;
//   C::Arguments args{problem, x, w, y, C::Epilogue::make(bias)};   // split_k = 0: the entry's (automatic)
//   std::size_t bytes = C::workspace_size(args);
//   if (Status s = C::run(args, workspace, stream); !s) ... s.message()
//
// Each entry is a profiled problem, its winning conv::ConfigSpec, the time it took and, optionally,
// the K split it won with. A problem runs with the entry of the same problem if there is one, else
// the entry nearest to it (squared distance over log2 of the direction's implicit GEMM: M, N, K per
// group, and the groups) among those whose Config can implement it, else with the Fallback Config
// (by default the sm80 kernel, 128 x 128 x 32 on 2 x 2 warps with 4 stages: any GPU from sm_80,
// every direction, strided Dgrad, channels of a group multiples of 8). Every entry's Config and the
// fallback are instantiated with the given epilogue.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "tessera/conv/config_of.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/status.hpp"
#include "tessera/core/visit_index.hpp"
#include "tessera/epilogue/chain.hpp"

namespace tessera::conv {

struct TunedEntry {
  Problem problem{};  // the problem it won
  ConfigSpec spec{};
  double profiled_us = 0;  // its time there, as the profiler measured it
  // The K split it won with (0: the automatic one): it replaces Arguments::split_k where that is 0
  // (automatic). The profiler leaves it 0.
  int split_k = 0;
};

template <int N>
struct TunedTable {
  TunedEntry entries[N];
  static constexpr int size = N;
};

// Whether two problems are the same convolution (every extent, padding, stride, dilation, groups).
constexpr bool same_problem(Problem const& a, Problem const& b) {
  for (int dim = 0; dim < 3; ++dim)
    if (a.pad_before[dim] != b.pad_before[dim] || a.pad_after[dim] != b.pad_after[dim] || a.stride[dim] != b.stride[dim] ||
        a.dilation[dim] != b.dilation[dim])
      return false;
  return a.n == b.n && a.d == b.d && a.h == b.h && a.w == b.w && a.c == b.c && a.k == b.k && a.t == b.t && a.r == b.r && a.s == b.s &&
         a.groups == b.groups;
}

// The squared distance between two problems of a direction: over log2 of the implicit GEMM's M, N
// and K (per group) and of the groups (conv/implicit_gemm.hpp).
inline double tuned_distance(Problem const& a, Problem const& b, Direction dir) {
  GemmShape const ga = gemm_shape(a, dir), gb = gemm_shape(b, dir);
  auto const d = [](std::int64_t x, std::int64_t y) {
    return std::log2(double(std::max<std::int64_t>(x, 1))) - std::log2(double(std::max<std::int64_t>(y, 1)));
  };
  double const dm = d(ga.m, gb.m), dn = d(ga.n, gb.n), dk = d(ga.k, gb.k), dg = d(a.groups, b.groups);
  return dm * dm + dn * dn + dk * dk + dg * dg;
}

// The default fallback: the sm80 kernel (bench_conv's Conv80), which runs what the Hopper kernel
// refuses (channels of a group not multiples of 64, strided Dgrad, C below 8).
template <class X, class W, class Y, class Dir, class Epi>
using FallbackConfig =
    Config<arch::Sm80, X, W, Y, float, Dir, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>, Epi>;

namespace detail {
// Entry I's Config (field by field: GCC 12 crashes on Table.entries[I].spec as a template argument).
template <auto const& Table, int I, class Epi>
struct TunedConfig {
  static constexpr ConfigSpec s = Table.entries[I].spec;
  using type = typename TESSERA_DETAIL_CONV_CONFIG_FROM(s, Epi);
};
template <auto const& Table, class Epi>
using TunedFallback = FallbackConfig<typename TunedConfig<Table, 0, Epi>::type::ElementX, typename TunedConfig<Table, 0, Epi>::type::ElementW,
                                     typename TunedConfig<Table, 0, Epi>::type::ElementY,
                                     typename TunedConfig<Table, 0, Epi>::type::Direction, Epi>;
}  // namespace detail

template <auto const& Table, class Epi = epilogue::Identity, class Fallback = detail::TunedFallback<Table, Epi>>
class Tuned {
  static constexpr int N = std::remove_cvref_t<decltype(Table)>::size;
  static_assert(N > 0, "conv::Tuned: the table is empty; emit it from a profile with at least one passing config");
  template <int I>
  using Cfg = typename detail::TunedConfig<Table, I, Epi>::type;

  static constexpr bool one_problem_class() {
    for (int i = 1; i < N; ++i) {
      ConfigSpec const &a = Table.entries[0].spec, &b = Table.entries[i].spec;
      if (a.direction != b.direction || a.x() != b.x() || a.w() != b.w() || a.y() != b.y()) return false;
    }
    return true;
  }
  static_assert(one_problem_class(),
                "conv::Tuned: the table's entries differ in direction or element types; use one table per type and direction "
                "(tessera-profile emit writes one per --dtype and --dir)");
  static_assert(std::is_same_v<typename Fallback::ElementX, typename Cfg<0>::ElementX> &&
                    std::is_same_v<typename Fallback::ElementW, typename Cfg<0>::ElementW> &&
                    std::is_same_v<typename Fallback::ElementY, typename Cfg<0>::ElementY> &&
                    Fallback::direction == Cfg<0>::direction && std::is_same_v<typename Fallback::Epilogue, Epi>,
                "conv::Tuned: the Fallback Config must have the table's element types and direction and the given epilogue");

 public:
  using ElementX = typename Cfg<0>::ElementX;
  using ElementW = typename Cfg<0>::ElementW;
  using ElementY = typename Cfg<0>::ElementY;
  using Epilogue = Epi;
  static constexpr Direction direction = Cfg<0>::direction;
  static constexpr int size = N;
  // What select() returns when the fallback Config runs the problem.
  static constexpr int fallback = N;

  // As conv::Conv<Cfg>::Arguments, but with split_k = 0 by default: the entry's split (the
  // automatic one, which the profiler measured).
  struct Arguments {
    Problem problem{};
    ElementX* x = nullptr;
    ElementW* w = nullptr;
    ElementY* y = nullptr;
    Epi epilogue{};
    int split_k = 0;
  };

  // The entries in the order select() tries them for a problem: the same problem first, then by
  // distance (tuned_distance), ties in table order. Needs no GPU.
  static std::array<int, N> order(Problem const& p) {
    std::array<int, N> o{};
    for (int i = 0; i < N; ++i) o[std::size_t(i)] = i;
    auto const key = [&](int i) { return same_problem(p, Table.entries[i].problem) ? -1.0 : tuned_distance(p, Table.entries[i].problem, direction); };
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return key(a) < key(b); });
    return o;
  }

  // The entry `run` uses for args, `fallback` for the Fallback Config, -1 when neither can
  // implement it.
  static int select(Arguments const& args) {
    for (int i : order(args.problem))
      if (can_implement_at(i, args).ok()) return i;
    return Conv<Fallback>::can_implement(fallback_arguments(args)).ok() ? fallback : -1;
  }

  static Status can_implement(Arguments const& args) { return select(args) >= 0 ? Status::success() : why_not(args); }

  static std::size_t workspace_size(Arguments const& args) {
    int const i = select(args);
    if (i < 0) return 0;
    if (i == fallback) return Conv<Fallback>::workspace_size(fallback_arguments(args));
    return visit(i, [&]<int I>() { return Conv<Cfg<I>>::workspace_size(entry_arguments<I>(args)); });
  }

  static Status run(Arguments const& args, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    int const i = select(args);
    if (i < 0) return why_not(args);
    if (i == fallback) return Conv<Fallback>{}.run(fallback_arguments(args), workspace, stream);
    return visit(i, [&]<int I>() { return Conv<Cfg<I>>{}.run(entry_arguments<I>(args), workspace, stream); });
  }

  // The arguments as entry I runs them: its K split where the caller left it automatic (0).
  template <int I>
  static typename Conv<Cfg<I>>::Arguments entry_arguments(Arguments const& args) {
    auto a = arguments_of<Cfg<I>>(args);
    if (a.split_k == 0) a.split_k = Table.entries[I].split_k;
    return a;
  }
  static typename Conv<Fallback>::Arguments fallback_arguments(Arguments const& args) { return arguments_of<Fallback>(args); }

 private:
  template <class C>
  static typename Conv<C>::Arguments arguments_of(Arguments const& args) {
    typename Conv<C>::Arguments a;
    a.problem = args.problem;
    a.x = args.x;
    a.w = args.w;
    a.y = args.y;
    a.epilogue = args.epilogue;
    a.split_k = args.split_k;
    return a;
  }
  // f.template operator()<i>() for a run-time i.
  template <class F>
  static auto visit(int i, F&& f) {
    return visit_index<N>(i, std::forward<F>(f));
  }
  static Status can_implement_at(int i, Arguments const& args) {
    return visit(i, [&]<int I>() { return Conv<Cfg<I>>::can_implement(entry_arguments<I>(args)); });
  }
  static Status why_not(Arguments const& args) {
    Status const first = can_implement_at(0, args), other = Conv<Fallback>::can_implement(fallback_arguments(args));
    return Status(first.code(), "conv::Tuned: no entry of the table can run this problem, nor the fallback Config; the first entry "
                                "says: " + first.message() + "; the fallback says: " + other.message());
  }
};

}  // namespace tessera::conv
