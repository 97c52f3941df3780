// The profiler's convolution kernels behind one type-erased interface, as tuning/gemm_registry.hpp
// has the GEMM's: a ConvKernel per configuration, with its name, spec and static resource use, and
// can_implement / workspace_size / run over a ConvProblem (void pointers, the direction and the
// element type as values).
//
//   tuning::ConvRegistry registry;
//   tuning::register_conv<spec>(registry);        // tuning/register_conv.hpp: each generated TU
//   for (auto const& k : registry.kernels())
//     if (k.can_implement(problem)) k.run(problem, workspace, stream);
//
// Each configuration is built with the plain epilogue (epilogue::Identity): a convolution's
// profile ranks its tiles; the header `tessera-profile emit` writes instantiates the user's chain.
// Host code, but it needs the CUDA runtime header (cudaStream_t); the kernels come from
// tuning/register_conv.hpp.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"
#include "tessera/tuning/conv_space.hpp"
#include "tessera/tuning/registry.hpp"

namespace tessera::tuning {

// A convolution with its direction and element type as values (what conv::Conv<Cfg>::Arguments
// says with types). Tensors are packed: x N D H W C, w K T R S (C / groups), y N Z P Q K; the
// direction reads two and writes the third (Fprop writes y, Dgrad x, Wgrad w).
struct ConvProblem {
  conv::Problem problem{};
  conv::Direction direction = conv::Direction::kFprop;
  Dtype dtype = Dtype::kUnknown;  // of x, w and y
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  int split_k = 0;  // 0: the convolution's automatic choice
};

// One configuration's entry.
struct ConvKernel {
  struct Ops {
    Status (*can_implement)(ConvProblem const&);
    std::size_t (*workspace_size)(ConvProblem const&);
    Status (*run)(ConvProblem const&, void* workspace, cudaStream_t stream);
    Status (*attributes)(cudaFuncAttributes&);  // the kernel's, on the current device
  };
  conv::ConfigSpec spec{};
  std::string name;
  int smem_bytes = 0;
  int threads = 0;
  Ops ops{};

  Status can_implement(ConvProblem const& p) const { return ops.can_implement(p); }
  std::size_t workspace_size(ConvProblem const& p) const { return ops.workspace_size(p); }
  Status run(ConvProblem const& p, void* workspace, cudaStream_t stream = nullptr) const { return ops.run(p, workspace, stream); }
  // The registers and local memory (spills) of the kernel as the GPU reports them.
  Status attributes(cudaFuncAttributes& out) const { return ops.attributes(out); }
};

using ConvRegistry = Registry<ConvKernel>;

}  // namespace tessera::tuning
