// tuning::register_attention<spec>(registry): instantiates the profiler kernel `spec`
// (attention::Attention<attention::ConfigOf<spec.config, MaskChain<spec.mask>>>: the Hopper or the
// sm80 kernel, fp8 with the problem's per-tensor scales) and adds its type-erased entry to the
// registry. The profiler's generated translation units each do this for
// one kernel of the space (tools/profiler/attention_kernel.cu.in), as register_conv does for the
// convolutions'.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <type_traits>
#include <utility>

#include "tessera/attention/attention.hpp"
#include "tessera/attention/config_of.hpp"
#include "tessera/tuning/attention_registry.hpp"
#include "tessera/tuning/attention_space.hpp"

namespace tessera::tuning {

namespace detail {

template <AttentionSpec S>
struct AttentionOps {
  using Chain = MaskChain<S.mask>;
  using Cfg = attention::ConfigOf<S.config, Chain>;
  using Op = attention::Attention<Cfg>;
  using E = typename Cfg::Element;
  using O = typename Cfg::Output;  // (bfloat16_t for fp8)

  static typename Op::Arguments arguments(AttentionProblem const& p) {
    typename Op::Arguments a{p.problem, static_cast<E const*>(p.q), static_cast<E const*>(p.k), static_cast<E const*>(p.v),
                             static_cast<O*>(p.o), p.lse};
    a.chain = mask_chain<S.mask>(p);
    a.scale_q = p.scale_q, a.scale_k = p.scale_k, a.scale_v = p.scale_v;
    return a;
  }

  // The problem's element type and mask against the kernel's; then Attention::can_implement.
  static Status matches(AttentionProblem const& p) {
    if (p.dtype != S.config.element || p.mask != S.mask)
      return Status::not_supported(name(S) + " computes " + gemm::dtype_name(S.config.element) + " with mask " + attention_mask_name(S.mask) +
                                   "; the problem is " + gemm::dtype_name(p.dtype) + " with mask " + attention_mask_name(p.mask) +
                                   ": pick a kernel of the problem's type and mask");
    return Status::success();
  }

  static Status can_implement(AttentionProblem const& p) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return Op::can_implement(arguments(p));
  }
  static Status run(AttentionProblem const& p, cudaStream_t stream) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return Op{}.run(arguments(p), nullptr, stream);
  }
  static Status attributes(cudaFuncAttributes& out) {
    cudaError_t e = cudaSuccess;
    if constexpr (Cfg::sm80) e = cudaFuncGetAttributes(&out, attention::sm80::attention_kernel<Cfg>);
    else e = cudaFuncGetAttributes(&out, attention::sm90::attention_kernel<Cfg>);
    if (e == cudaSuccess) return Status::success();
    cudaGetLastError();  // clear the error the query left
    return Status::not_supported(std::string("no code of the kernel for this device: ") + cudaGetErrorString(e));
  }
};

}  // namespace detail

// Adds the entry of the (valid) profiler kernel S.
template <AttentionSpec S>
void register_attention(AttentionRegistry& registry) {
  static_assert(attention::check(S.config) == attention::ConfigError::kNone,
                "tuning::register_attention: the spec is invalid; register only the valid candidates of attention_space() "
                "(AttentionCandidate::valid())");
  using Ops = detail::AttentionOps<S>;
  AttentionKernel k;
  k.spec = S;
  k.name = name(S);
  k.smem_bytes = Ops::Cfg::smem_bytes;
  k.threads = Ops::Cfg::threads;
  k.ops = {&Ops::can_implement, &Ops::run, &Ops::attributes};
  registry.add(std::move(k));
}

}  // namespace tessera::tuning
