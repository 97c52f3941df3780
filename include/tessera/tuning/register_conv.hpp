// tuning::register_conv<spec>(registry): instantiates the convolution configuration `spec`
// (conv::Conv<conv::ConfigOf<spec>>, plain epilogue) and adds its type-erased entry to the
// registry. The profiler's generated translation units each do this for one configuration of the
// space (tools/profiler/conv_kernel.cu.in), as register_gemm does for the GEMM's.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "tessera/conv/config_of.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/tuning/conv_registry.hpp"
#include "tessera/tuning/conv_space.hpp"

namespace tessera::tuning {

namespace detail {

template <conv::ConfigSpec S>
struct ConvOps {
  using Cfg = conv::ConfigOf<S>;
  using Op = conv::Conv<Cfg>;

  static typename Op::Arguments arguments(ConvProblem const& p) {
    typename Op::Arguments a;
    a.problem = p.problem;
    a.x = static_cast<typename Cfg::ElementX*>(p.x);
    a.w = static_cast<typename Cfg::ElementW*>(p.w);
    a.y = static_cast<typename Cfg::ElementY*>(p.y);
    a.split_k = p.split_k;
    return a;
  }

  // The problem's direction and type against the spec's; then Conv::can_implement.
  static Status matches(ConvProblem const& p) {
    if (p.direction != S.direction || p.dtype != S.x())
      return Status::not_supported(name(S) + " computes " + conv::direction_name(S.direction) + " " + gemm::dtype_name(S.x()) +
                                   "; the problem is " + conv::direction_name(p.direction) + " " + gemm::dtype_name(p.dtype) +
                                   ": pick a kernel of the problem's direction and type");
    return Status::success();
  }

  static Status can_implement(ConvProblem const& p) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return Op::can_implement(arguments(p));
  }
  static std::size_t workspace_size(ConvProblem const& p) { return Op::workspace_size(arguments(p)); }
  static Status run(ConvProblem const& p, void* workspace, cudaStream_t stream) {
    TESSERA_RETURN_IF_ERROR(matches(p));
    return Op{}.run(arguments(p), workspace, stream);
  }
  static Status attributes(cudaFuncAttributes& out) {
    cudaError_t e;
    if constexpr (Op::hopper) e = cudaFuncGetAttributes(&out, gemm::sm90::gemm_kernel<typename Op::GemmCfg, typename Op::Loader90>);
    else e = cudaFuncGetAttributes(&out, gemm::sm80::loader_kernel<typename Op::GemmCfg, typename Op::Loader>);
    if (e == cudaSuccess) return Status::success();
    cudaGetLastError();  // clear the error the query left
    return Status::not_supported(std::string("no code of the kernel for this device: ") + cudaGetErrorString(e));
  }
};

}  // namespace detail

// Adds the entry of the (valid) convolution configuration S.
template <conv::ConfigSpec S>
void register_conv(ConvRegistry& registry) {
  static_assert(conv::check(S) == conv::ConfigError::kNone, "tuning::register_conv: the spec is invalid; register only the "
                                                            "valid candidates of conv_space() (ConvCandidate::valid())");
  using Ops = detail::ConvOps<S>;
  ConvKernel k;
  k.spec = S;
  k.name = name(S);
  k.smem_bytes = Ops::Op::GemmCfg::smem_bytes;
  k.threads = S.gemm.threads();
  k.ops = {&Ops::can_implement, &Ops::workspace_size, &Ops::run, &Ops::attributes};
  registry.add(std::move(k));
}

}  // namespace tessera::tuning
