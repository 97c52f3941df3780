// The profiler's attention kernels behind one type-erased interface, as tuning/conv_registry.hpp
// has the convolutions': an AttentionKernel per profiler kernel (a Config and its mask), with its
// name, spec and static resource use, and can_implement / run over an AttentionProblem (void
// pointers; the element type, the mask and a window's bounds as values).
//
//   tuning::AttentionRegistry registry;
//   tuning::register_attention<spec>(registry);   // tuning/register_attention.hpp: each generated TU
//   for (auto const& k : registry.kernels())
//     if (k.can_implement(problem)) k.run(problem, stream);
//
// Host code, but it needs the CUDA runtime header (cudaStream_t); the kernels come from
// tuning/register_attention.hpp.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <type_traits>

#include "tessera/attention/masks.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/score_chain.hpp"
#include "tessera/core/status.hpp"
#include "tessera/tuning/attention_space.hpp"
#include "tessera/tuning/registry.hpp"

namespace tessera::tuning {

// An attention problem with its element type and mask as values (what attention::Attention<Cfg>::
// Arguments says with types). Q, K, V and O lie as the problem's strides say (variable lengths: its
// cu_seqlens, device memory); LSE (optional) as attention/problem.hpp says.
struct AttentionProblem {
  attention::Problem problem{};
  Dtype dtype = Dtype::kUnknown;  // of Q, K and V; O's too, but bf16 where they are kE4m3
  AttentionMask mask = AttentionMask::kNone;
  int window_left = -1, window_right = -1;  // kWindow's bounds (SlidingWindow<BottomRight>; < 0: unbounded)
  void const* q = nullptr;
  void const* k = nullptr;
  void const* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  float scale_q = 1.0f, scale_k = 1.0f, scale_v = 1.0f;  // kE4m3's per-tensor scales (1 for 16-bit tensors)
};

// The score chain of a profiler kernel's mask, and its value for a problem (a window's bounds).
template <AttentionMask M>
using MaskChain = std::conditional_t<
    M == AttentionMask::kCausal, attention::ScoreChain<attention::Causal<attention::BottomRight>>,
    std::conditional_t<M == AttentionMask::kCausalTopLeft, attention::ScoreChain<attention::Causal<attention::TopLeft>>,
                       std::conditional_t<M == AttentionMask::kWindow, attention::ScoreChain<attention::SlidingWindow<attention::BottomRight>>,
                                          attention::NoMask>>>;
template <AttentionMask M>
MaskChain<M> mask_chain(AttentionProblem const& p) {
  if constexpr (M == AttentionMask::kWindow) return MaskChain<M>{attention::SlidingWindow<attention::BottomRight>{p.window_left, p.window_right}};
  else return MaskChain<M>{};
}

// One profiler kernel's entry.
struct AttentionKernel {
  struct Ops {
    Status (*can_implement)(AttentionProblem const&);
    Status (*run)(AttentionProblem const&, cudaStream_t stream);
    Status (*attributes)(cudaFuncAttributes&);  // the kernel's, on the current device
  };
  AttentionSpec spec{};
  std::string name;
  int smem_bytes = 0;
  int threads = 0;
  Ops ops{};

  Status can_implement(AttentionProblem const& p) const { return ops.can_implement(p); }
  Status run(AttentionProblem const& p, cudaStream_t stream = nullptr) const { return ops.run(p, stream); }
  // The registers and local memory (spills) of the kernel as the GPU reports them.
  Status attributes(cudaFuncAttributes& out) const { return ops.attributes(out); }
};

using AttentionRegistry = Registry<AttentionKernel>;

}  // namespace tessera::tuning
