// gemm::Tuned: a GEMM that picks its Config at run time from a table of profiled winners, the
// header `tessera-profile emit` writes (a TunedTable per element types and layout).
//
//   #include "my_tuned_gemms.hpp"   // written by tessera-profile emit: namespace my_tuned { ... bf16_tn ... }
//   using G = gemm::Tuned<my_tuned::bf16_tn, epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16>>>;
//   G::Arguments args{.m = m, .n = n, .k = k, .a = a, .lda = k, .b = b, .ldb = k, .d = d, .ldd = n};
//   std::size_t bytes = G::workspace_size(args);
//   if (Status s = G::run(args, workspace, stream); !s) ... s.message()
//
// Each entry is a profiled problem (M, N, K), its winning ConfigSpec, whether it ran with swap_ab
// and, optionally, the L2 hints and K split it ran with. A problem runs with the entry nearest to
// it (distance over log2 M, N, K) among those whose Config can implement it; every entry's Config
// is instantiated with the given epilogue.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "tessera/core/status.hpp"
#include "tessera/core/visit_index.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/gemm/config_of.hpp"
#include "tessera/gemm/gemm.hpp"
#include "tessera/gemm/l2_hint.hpp"

namespace tessera::gemm {

struct TunedEntry {
  int m = 0, n = 0, k = 0;  // the problem it won
  ConfigSpec spec{};
  bool swap_ab = false;
  double profiled_us = 0;  // its time there, as the profiler measured it
  // The L2 hints of A's and B's loads it won with (sm90; gemm/l2_hint.hpp): they replace the
  // Arguments' hints where those are kAuto. The profiler leaves them kAuto.
  L2Hint l2_hint_a = L2Hint::kAuto, l2_hint_b = L2Hint::kAuto;
  // The K split it won with (0: the automatic one): it replaces Arguments::split_k where that is
  // 0 (automatic). The profiler leaves it 0.
  int split_k = 0;
};

template <int N>
struct TunedTable {
  TunedEntry entries[N];
  static constexpr int size = N;
};

namespace detail {
// Entry I's Config (field by field: GCC 12 crashes on Table.entries[I].spec as a template argument).
template <auto const& Table, int I, class Epi>
struct TunedConfig {
  static constexpr ConfigSpec s = Table.entries[I].spec;
  using type = typename TESSERA_DETAIL_CONFIG_FROM(s, Epi);
};
}  // namespace detail

template <auto const& Table, class Epi = epilogue::Identity>
class Tuned {
  static constexpr int N = std::remove_cvref_t<decltype(Table)>::size;
  static_assert(N > 0, "gemm::Tuned: the table is empty; emit it from a profile with at least one passing config");
  template <int I>
  using Cfg = typename detail::TunedConfig<Table, I, Epi>::type;

  static constexpr bool one_problem_class() {
    for (int i = 1; i < N; ++i) {
      ConfigSpec const &a = Table.entries[0].spec, &b = Table.entries[i].spec;
      if (a.a != b.a || a.b != b.b || a.d != b.d || a.a_k_major != b.a_k_major || a.b_k_major != b.b_k_major) return false;
    }
    return true;
  }
  static_assert(one_problem_class(),
                "gemm::Tuned: the table's entries differ in element types or layouts; use one table per types and layout "
                "(tessera-profile emit writes one per --dtype and --layout)");

 public:
  using Arguments = gemm::Arguments<Cfg<0>>;
  static constexpr int size = N;

  // The index of the entry `run` uses for args (-1 when no entry's Config can implement it).
  static int select(Arguments const& args) {
    int order[N];
    for (int i = 0; i < N; ++i) order[i] = i;
    auto const distance = [&](int i) {
      TunedEntry const& e = Table.entries[i];
      auto const d = [](int a, int b) { return std::log2(double(std::max(a, 1))) - std::log2(double(std::max(b, 1))); };
      double const dm = d(args.m, e.m), dn = d(args.n, e.n), dk = d(args.k, e.k);
      return dm * dm + dn * dn + dk * dk;
    };
    std::stable_sort(order, order + N, [&](int a, int b) { return distance(a) < distance(b); });
    for (int i : order)
      if (can_implement_at(i, args).ok()) return i;
    return -1;
  }

  static Status can_implement(Arguments const& args) {
    return select(args) >= 0 ? Status::success() : why_not(args);
  }

  static std::size_t workspace_size(Arguments const& args) {
    int const i = select(args);
    return i < 0 ? 0 : visit(i, [&]<int I>() { return Gemm<Cfg<I>>::workspace_size(entry_arguments<I>(args)); });
  }

  static Status run(Arguments const& args, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    int const i = select(args);
    if (i < 0) return why_not(args);
    return visit(i, [&]<int I>() { return Gemm<Cfg<I>>{}.run(entry_arguments<I>(args), workspace, stream); });
  }

  // The arguments as entry I runs them: its swap_ab, and its L2 hints and K split where the
  // caller left them automatic (kAuto, split_k = 0).
  template <int I>
  static Arguments entry_arguments(Arguments args) {
    constexpr TunedEntry const& e = Table.entries[I];
    if (e.swap_ab) args.swap_ab = true;
    if (args.l2_hint_a == L2Hint::kAuto) args.l2_hint_a = e.l2_hint_a;
    if (args.l2_hint_b == L2Hint::kAuto) args.l2_hint_b = e.l2_hint_b;
    if (args.split_k == 0) args.split_k = e.split_k;
    return args;
  }

 private:
  // f.template operator()<i>() for a run-time i.
  template <class F>
  static auto visit(int i, F&& f) {
    return visit_index<N>(i, std::forward<F>(f));
  }
  static Status can_implement_at(int i, Arguments const& args) {
    return visit(i, [&]<int I>() { return Gemm<Cfg<I>>::can_implement(entry_arguments<I>(args)); });
  }
  static Status why_not(Arguments const& args) {
    Status const first = can_implement_at(0, args);
    return Status(first.code(), "gemm::Tuned: no entry of the table can run this problem; the first entry says: " +
                                    first.message());
  }
};

}  // namespace tessera::gemm
