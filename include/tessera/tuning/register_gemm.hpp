// tuning::register_gemm<spec, statics>(registry): instantiates the configuration `spec` (a plain
// kernel, one with the run-time epilogue chain, one per static chain in `statics`) and adds its
// type-erased entry to the registry. The profiler's generated
// translation units each do this for one configuration of the space.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "tessera/gemm/config_of.hpp"
#include "tessera/gemm/gemm.hpp"
#include "tessera/tuning/gemm_registry.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tessera::tuning {

namespace detail {

template <class T>
FusedEpilogue<T> make_fused(EpilogueStages const& s, EpilogueOperands const& o, gemm::StorageOrder order, int batch_count,
                            std::int64_t batch_stride_d) {
  using epilogue::MatrixRef;
  auto const matrix = [&](void const* p, std::int64_t ld) {
    std::int64_t const bs = batch_count > 1 ? batch_stride_d : 0;
    return order == gemm::StorageOrder::kRowMajor ? MatrixRef<T>::row_major(static_cast<T const*>(p), ld, bs)
                                                  : MatrixRef<T>::column_major(static_cast<T const*>(p), ld, bs);
  };
  FusedStages<T> f;
  f.linear = {epilogue::LinearCombination<T>{o.alpha, o.beta, matrix(o.c, o.ldc)}, s.linear};
  f.bias = {epilogue::Bias<epilogue::PerColumn, T>{static_cast<T const*>(o.bias)}, s.bias};
  f.scale_shift = {epilogue::ScaleShift<epilogue::PerColumn, T>{static_cast<T const*>(o.scale), static_cast<T const*>(o.shift)},
                   s.scale_shift};
  f.activation = epilogue::AnyActivation{s.activation, o.clamp_lo, o.clamp_hi};
  f.residual = {epilogue::ResidualAdd<T>{matrix(o.residual, o.ldr)}, s.residual};
  return FusedEpilogue<T>(f);
}

template <class T>
using BiasStage = epilogue::Bias<epilogue::PerColumn, T>;

// The epilogue object of a Config's chain from the problem's operands.
template <class Epi, class T>
Epi make_epilogue(GemmProblem const& p) {
  auto const* bias = static_cast<T const*>(p.operands.bias);
  if constexpr (std::is_same_v<Epi, FusedEpilogue<T>>)
    return make_fused<T>(p.epilogue, p.operands, p.d_order, p.batch_count, p.batch_stride_d);
  else if constexpr (std::is_same_v<Epi, epilogue::Chain<BiasStage<T>>>)
    return Epi(BiasStage<T>{bias});
  else if constexpr (std::is_same_v<Epi, epilogue::Identity>)
    return Epi{};
  else
    return Epi(BiasStage<T>{bias}, {});  // bias and an activation without parameters
}

template <ConfigSpec S, unsigned Statics>
struct GemmOps {
  using Plain = gemm::ConfigOf<S>;
  using ED = typename Plain::ElementD;
  using Fused = gemm::ConfigOf<S, FusedEpilogue<ED>>;

  // f.template operator()<Cfg>() with the Config that runs the problem's epilogue: the plain one,
  // a static chain built for exactly its stages, or the run-time chain.
  template <class F>
  static auto dispatch(GemmProblem const& p, F&& f) {
    unsigned const k = static_epilogue_of(p.epilogue);
    if (!p.epilogue.any()) return f.template operator()<Plain>();
    if constexpr ((Statics & kStaticBias) != 0)
      if (k == kStaticBias) return f.template operator()<gemm::ConfigOf<S, epilogue::Chain<BiasStage<ED>>>>();
    if constexpr ((Statics & kStaticBiasRelu) != 0)
      if (k == kStaticBiasRelu) return f.template operator()<gemm::ConfigOf<S, epilogue::Chain<BiasStage<ED>, epilogue::Relu>>>();
    if constexpr ((Statics & kStaticBiasGelu) != 0)
      if (k == kStaticBiasGelu)
        return f.template operator()<gemm::ConfigOf<S, epilogue::Chain<BiasStage<ED>, epilogue::GeluTanh>>>();
    if constexpr ((Statics & kStaticBiasSilu) != 0)
      if (k == kStaticBiasSilu) return f.template operator()<gemm::ConfigOf<S, epilogue::Chain<BiasStage<ED>, epilogue::Silu>>>();
    return f.template operator()<Fused>();
  }

  template <class Cfg>
  static gemm::Arguments<Cfg> arguments(GemmProblem const& p, bool swap_ab) {
    gemm::Arguments<Cfg> a;
    a.m = p.m;
    a.n = p.n;
    a.k = p.k;
    a.a = static_cast<typename Cfg::ElementA const*>(p.a);
    a.lda = p.lda;
    a.b = static_cast<typename Cfg::ElementB const*>(p.b);
    a.ldb = p.ldb;
    a.d = static_cast<typename Cfg::ElementD*>(p.d);
    a.ldd = p.ldd;
    a.d_order = p.d_order;
    a.batch_count = p.batch_count;
    a.batch_stride_a = p.batch_stride_a;
    a.batch_stride_b = p.batch_stride_b;
    a.batch_stride_d = p.batch_stride_d;
    a.split_k = p.split_k;
    a.scale_a = p.scale_a;
    a.scale_b = p.scale_b;
    a.scale_d = p.scale_d;
    a.amax_d = p.amax_d;
    a.swap_ab = swap_ab;
    a.workspace_zeroed = p.workspace_zeroed;
    a.epilogue = make_epilogue<typename Cfg::Epilogue, ED>(p);
    return a;
  }

  // The problem's types and orders against the spec's; then Gemm::can_implement.
  static Status matches(GemmProblem const& p) {
    if (p.a_type != S.a || p.b_type != S.b || p.d_type != S.d || p.a_k_major != S.a_k_major || p.b_k_major != S.b_k_major)
      return Status::not_supported(name(S) + " computes " + describe_types(S.a, S.b, S.d, S.a_k_major, S.b_k_major) +
                                   "; the problem is " + describe_types(p.a_type, p.b_type, p.d_type, p.a_k_major, p.b_k_major) +
                                   ": pick a kernel of the problem's types and orders");
    return Status::success();
  }

  static Status can_implement(GemmProblem const& p, bool swap_ab) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return dispatch(p, [&]<class Cfg>() { return gemm::Gemm<Cfg>::can_implement(arguments<Cfg>(p, swap_ab)); });
  }
  static std::size_t workspace_size(GemmProblem const& p, bool swap_ab) {
    return dispatch(p, [&]<class Cfg>() { return gemm::Gemm<Cfg>::workspace_size(arguments<Cfg>(p, swap_ab)); });
  }
  static Status attributes(cudaFuncAttributes& out) { return gemm::Gemm<Plain>::kernel_attributes(out); }
  static Status run(GemmProblem const& p, bool swap_ab, void* workspace, cudaStream_t stream) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return dispatch(p, [&]<class Cfg>() { return gemm::Gemm<Cfg>{}.run(arguments<Cfg>(p, swap_ab), workspace, stream); });
  }
};

}  // namespace detail

// Adds the entry of the (valid) configuration S: a plain kernel, one with the run-time chain, and
// one per StaticEpilogue bit in Statics.
template <ConfigSpec S, unsigned Statics = kStaticBiasGelu>
void register_gemm(GemmRegistry& registry) {
  static_assert(gemm::check(S) == ConfigError::kNone, "tuning::register_gemm: the spec is invalid; register only the "
                                                      "valid candidates of gemm_space() (Candidate::valid())");
  using Ops = detail::GemmOps<S, Statics>;
  GemmKernel k;
  k.spec = S;
  k.name = name(S);
  k.smem_bytes = gemm::smem_bytes(S);
  k.threads = S.threads();
  k.can_swap = S.warp_specialized() && S.a == S.b && S.a_k_major == S.b_k_major;
  k.static_epilogues = Statics;
  k.ops = {&Ops::can_implement, &Ops::workspace_size, &Ops::run, &Ops::attributes};
  registry.add(std::move(k));
}

}  // namespace tessera::tuning
