// attention::Tuned: fused attention that picks its Config at run time from a table of profiled
// winners, the header `tessera-profile emit` writes from `profile attention` results (a TunedTable
// per element type, head dimensions and mask, and one of the sm80 kernel's winners beside it where
// sm80 Configs were profiled), as gemm::Tuned and conv::Tuned do for theirs.
//
//   #include "my_tuned_attention.hpp"   // written by tessera-profile emit: namespace my_tuned { ... bf16_hd128_causal ... }
//   using Mask = attention::ScoreChain<attention::Causal<attention::BottomRight>>;
//   using A = attention::Tuned<my_tuned::bf16_hd128_causal, Mask>;
//   A::Arguments args{attention::Problem::dense(b, h, h_kv, sq, sk, 128, attention::Layout::kBSHD), q, k, v, o};
//   if (Status s = A::run(args, nullptr, stream); !s) ... s.message()
//
// Each entry is a profiled problem's shape, its winning attention::ConfigSpec and the time it
// took. A problem runs with the entry of the same shape if there is one, else the entry nearest to
// it (squared distance over log2 of batch x heads, seqlen_q and seqlen_k) among those whose Config
// can implement it. A shape says whether its lengths varied (cu_seqlens; seqlen_q and seqlen_k are
// then the longest): a problem tries the entries of its own kind before the others, since a
// packed batch of mixed lengths does less work than the fixed-length problem of its longest
// sequences. Every entry's Config is instantiated with the given chain: the table says which tiles
// won on the profiled mask (its name and comment say which), the chain is the application's, with
// any stages of its own. The tables of fp8 winners (e4m3_...) take float8_e4m3_t Q, K and V with
// their per-tensor scales and write O in bfloat16_t; those of sm80 winners (..._sm80) run on any GPU
// from sm_80 (a build without sm_90a, where the Hopper entries of the other tables cannot run).
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "tessera/attention/attention.hpp"
#include "tessera/attention/config_of.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/core/status.hpp"
#include "tessera/core/visit_index.hpp"

namespace tessera::attention {

// The shape of a profiled problem (its head dimensions are the spec's).
struct TunedShape {
  int batch = 1, heads = 1, heads_kv = 1, seqlen_q = 0, seqlen_k = 0;
  bool variable = false;  // variable lengths: seqlen_q and seqlen_k are the longest sequences'
};

struct TunedEntry {
  TunedShape shape{};  // the problem it won
  ConfigSpec spec{};
  double profiled_us = 0;  // its time there, as the profiler measured it
};

template <int N>
struct TunedTable {
  TunedEntry entries[N];
  static constexpr int size = N;
};

constexpr bool same_shape(TunedShape const& a, Problem const& p) {
  return a.batch == p.batch && a.heads == p.heads && a.heads_kv == p.heads_kv && a.seqlen_q == p.seqlen_q && a.seqlen_k == p.seqlen_k &&
         a.variable == p.variable();
}

// The squared distance between a problem and an entry's shape: over log2 of batch x heads (the
// tiles' count with seqlen_q), seqlen_q and seqlen_k (the blocks a tile walks).
inline double tuned_distance(Problem const& p, TunedShape const& e) {
  auto const d = [](double x, double y) { return std::log2(std::max(x, 1.0)) - std::log2(std::max(y, 1.0)); };
  double const dh = d(double(p.batch) * p.heads, double(e.batch) * e.heads), dq = d(p.seqlen_q, e.seqlen_q), dk = d(p.seqlen_k, e.seqlen_k);
  return dh * dh + dq * dq + dk * dk;
}

namespace detail {
// Entry I's Config (field by field: GCC 12 crashes on Table.entries[I].spec as a template argument).
template <auto const& Table, int I, class Chain>
struct TunedConfig {
  static constexpr ConfigSpec s = Table.entries[I].spec;
  using type = typename TESSERA_DETAIL_ATTENTION_CONFIG_FROM(s, Chain);
};
}  // namespace detail

template <auto const& Table, class Chain_ = NoMask>
class Tuned {
  static constexpr int N = std::remove_cvref_t<decltype(Table)>::size;
  static_assert(N > 0, "attention::Tuned: the table is empty; emit it from a profile with at least one passing config");
  template <int I>
  using Cfg = typename detail::TunedConfig<Table, I, Chain_>::type;

  static constexpr bool one_problem_class() {
    for (int i = 1; i < N; ++i) {
      ConfigSpec const &a = Table.entries[0].spec, &b = Table.entries[i].spec;
      if (a.element != b.element || a.head_dim != b.head_dim || a.head_dim_v != b.head_dim_v) return false;
    }
    return true;
  }
  static_assert(one_problem_class(),
                "attention::Tuned: the table's entries differ in element type or head dimensions; use one table per type and head "
                "dimensions (tessera-profile emit writes one per --dtype, --dim and --mask)");

 public:
  using Element = typename Cfg<0>::Element;
  using Output = typename Cfg<0>::Output;  // Element, or bfloat16_t for fp8
  using Chain = Chain_;
  static constexpr int size = N;

  // As attention::Attention<Cfg>::Arguments (the same for every entry).
  struct Arguments {
    Problem problem;
    Element const* q = nullptr;
    Element const* k = nullptr;
    Element const* v = nullptr;
    Output* o = nullptr;
    float* lse = nullptr;  // optional
    Chain chain{};
    float scale_q = 1.0f, scale_k = 1.0f, scale_v = 1.0f;  // fp8's per-tensor scales; 1 otherwise
  };

  // The entries in the order select() tries them for a problem: those of its kind (fixed or
  // variable lengths) first; among them the same shape first, then by distance (tuned_distance);
  // ties in table order. Needs no GPU.
  static std::array<int, N> order(Problem const& p) {
    std::array<int, N> o{};
    for (int i = 0; i < N; ++i) o[std::size_t(i)] = i;
    auto const key = [&](int i) {
      TunedShape const& e = Table.entries[i].shape;
      return std::pair{e.variable != p.variable(), same_shape(e, p) ? -1.0 : tuned_distance(p, e)};
    };
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return key(a) < key(b); });
    return o;
  }

  // The entry `run` uses for args (-1 when no entry's Config can implement it).
  static int select(Arguments const& args) {
    for (int i : order(args.problem))
      if (can_implement_at(i, args).ok()) return i;
    return -1;
  }

  static Status can_implement(Arguments const& args) { return select(args) >= 0 ? Status::success() : why_not(args); }

  static std::size_t workspace_size(Arguments const& args) {
    int const i = select(args);
    return i < 0 ? 0 : visit(i, [&]<int I>() { return Attention<Cfg<I>>::workspace_size(entry_arguments<I>(args)); });
  }

  static Status run(Arguments const& args, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    int const i = select(args);
    if (i < 0) return why_not(args);
    return visit(i, [&]<int I>() { return Attention<Cfg<I>>{}.run(entry_arguments<I>(args), workspace, stream); });
  }

  // The arguments as entry I's Attention takes them.
  template <int I>
  static typename Attention<Cfg<I>>::Arguments entry_arguments(Arguments const& args) {
    return {args.problem, args.q, args.k, args.v, args.o, args.lse, args.chain, args.scale_q, args.scale_k, args.scale_v};
  }

 private:
  // f.template operator()<i>() for a run-time i.
  template <class F>
  static auto visit(int i, F&& f) {
    return visit_index<N>(i, std::forward<F>(f));
  }
  static Status can_implement_at(int i, Arguments const& args) {
    return visit(i, [&]<int I>() { return Attention<Cfg<I>>::can_implement(entry_arguments<I>(args)); });
  }
  static Status why_not(Arguments const& args) {
    Status const first = can_implement_at(0, args);
    return Status(first.code(), "attention::Tuned: no entry of the table can run this problem; the first entry says: " + first.message());
  }
};

}  // namespace tessera::attention
