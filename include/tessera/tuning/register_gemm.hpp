// tuning::register_gemm<spec>(registry): instantiates the configuration `spec` (a plain and a
// fused-epilogue kernel) and adds its type-erased entry to the registry. The profiler's generated
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

template <ConfigSpec S>
struct GemmOps {
  using Plain = gemm::ConfigOf<S>;
  using ED = typename Plain::ElementD;
  using Fused = gemm::ConfigOf<S, FusedEpilogue<ED>>;

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
    if constexpr (!std::is_same_v<typename Cfg::Epilogue, epilogue::Identity>)
      a.epilogue = make_fused<ED>(p.epilogue, p.operands, p.d_order, p.batch_count, p.batch_stride_d);
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
    if (p.epilogue.any()) return gemm::Gemm<Fused>::can_implement(arguments<Fused>(p, swap_ab));
    return gemm::Gemm<Plain>::can_implement(arguments<Plain>(p, swap_ab));
  }
  static std::size_t workspace_size(GemmProblem const& p, bool swap_ab) {
    if (p.epilogue.any()) return gemm::Gemm<Fused>::workspace_size(arguments<Fused>(p, swap_ab));
    return gemm::Gemm<Plain>::workspace_size(arguments<Plain>(p, swap_ab));
  }
  static Status run(GemmProblem const& p, bool swap_ab, void* workspace, cudaStream_t stream) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    if (p.epilogue.any()) return gemm::Gemm<Fused>{}.run(arguments<Fused>(p, swap_ab), workspace, stream);
    return gemm::Gemm<Plain>{}.run(arguments<Plain>(p, swap_ab), workspace, stream);
  }
};

}  // namespace detail

// Adds the entry of the (valid) configuration S: a plain and a fused-epilogue kernel.
template <ConfigSpec S>
void register_gemm(GemmRegistry& registry) {
  static_assert(gemm::check(S) == ConfigError::kNone, "tuning::register_gemm: the spec is invalid; register only the "
                                                      "valid candidates of gemm_space() (Candidate::valid())");
  using Ops = detail::GemmOps<S>;
  GemmKernel k;
  k.spec = S;
  k.name = name(S);
  k.smem_bytes = gemm::smem_bytes(S);
  k.threads = S.threads();
  k.can_swap = S.warp_specialized() && S.a == S.b && S.a_k_major == S.b_k_major;
  k.ops = {&Ops::can_implement, &Ops::workspace_size, &Ops::run};
  registry.add(std::move(k));
}

}  // namespace tessera::tuning
