// The profiler's kernels behind one type-erased interface: a GemmKernel per configuration, with
// its name, spec and static resource use, and can_implement / workspace_size / run over a
// GemmProblem (void pointers, the types and orders as values, the epilogue as EpilogueStages).
//
//   tuning::GemmRegistry registry;
//   tuning::register_gemm<spec>(registry);        // tuning/register_gemm.hpp: each generated TU
//   for (auto const& k : registry.kernels())
//     if (k.can_implement(problem, false)) k.run(problem, false, workspace, stream);
//
// Each configuration is built twice: with epilogue::Identity (the plain GEMM, timed as users will
// compile it) and with FusedEpilogue, every shipped stage behind a run-time switch in one
// out-of-line call per element, so that one kernel serves every `--epilogue`. That kernel is
// slower than a static chain (2 to 5 times the plain GEMM's time on an H100, where a static
// bias + GELU costs about 16%): its times rank configurations for a fused problem, they do not
// predict the static chain's. The header `tessera-profile emit` writes instantiates the user's own
// static chain.
// Host code, but it needs the CUDA runtime header (cudaStream_t); the kernels come from
// tuning/register_gemm.hpp.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/status.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/storage_order.hpp"
#include "tessera/gemm/config_check.hpp"
#include "tessera/tuning/epilogue_stages.hpp"
#include "tessera/tuning/gemm_space.hpp"
#include "tessera/tuning/registry.hpp"

namespace tessera::tuning {

// The fused epilogue of the profiler's kernels: the stages of EpilogueStages, each switched at run
// time, in one stage evaluated out of line. (Inlined, every stage's code and the switch over the
// activations were repeated for each accumulator the kernel's epilogue unrolls, and the code
// overflowed the instruction cache: a 2048 x 2048 x 520 GEMM took 180 us instead of 20.) Its
// tensors are of D's element type; C and R are in D's order.
template <class T>
struct FusedStages {
  epilogue::Optional<epilogue::LinearCombination<T>> linear{};
  epilogue::Optional<epilogue::Bias<epilogue::PerColumn, T>> bias{};
  epilogue::Optional<epilogue::ScaleShift<epilogue::PerColumn, T>> scale_shift{};
  epilogue::AnyActivation activation{};
  epilogue::Optional<epilogue::ResidualAdd<T>> residual{};

  TESSERA_HOST_DEVICE TESSERA_NOINLINE float operator()(float x, epilogue::Coord const& c) const {
    return residual(activation(scale_shift(bias(linear(x, c), c), c), c), c);
  }
};

template <class T>
using FusedEpilogue = epilogue::Chain<FusedStages<T>>;

// The device operands of the epilogue's stages (those of stages not run may be null).
struct EpilogueOperands {
  float alpha = 1.0f, beta = 0.0f;
  void const* c = nullptr;  // M x N in D's order, leading dimension ldc
  std::int64_t ldc = 0;
  void const* bias = nullptr;  // N values
  void const* scale = nullptr;
  void const* shift = nullptr;
  float clamp_lo = 0.0f, clamp_hi = 0.0f;
  void const* residual = nullptr;  // M x N in D's order, leading dimension ldr
  std::int64_t ldr = 0;
};

// A GEMM problem with its types and orders as values (what gemm::Arguments says with types).
struct GemmProblem {
  int m = 0, n = 0, k = 0, batch_count = 1;
  Dtype a_type = Dtype::kUnknown, b_type = Dtype::kUnknown, d_type = Dtype::kUnknown;
  bool a_k_major = true, b_k_major = true;  // row-major A, column-major B
  void const* a = nullptr;
  std::int64_t lda = 0;
  void const* b = nullptr;
  std::int64_t ldb = 0;
  void* d = nullptr;
  std::int64_t ldd = 0;
  gemm::StorageOrder d_order = gemm::StorageOrder::kRowMajor;
  std::int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_d = 0;
  int split_k = 0;  // 0: the GEMM's automatic choice
  EpilogueStages epilogue{};
  EpilogueOperands operands{};
  float const *scale_a = nullptr, *scale_b = nullptr, *scale_d = nullptr;
  float* amax_d = nullptr;
  bool workspace_zeroed = false;
};

// "bf16 x bf16 -> bf16, A row-major, B column-major".
inline std::string describe_types(Dtype a, Dtype b, Dtype d, bool a_k_major, bool b_k_major) {
  return std::string(gemm::dtype_name(a)) + " x " + gemm::dtype_name(b) + " -> " + gemm::dtype_name(d) + ", A " +
         (a_k_major ? "row" : "column") + "-major, B " + (b_k_major ? "column" : "row") + "-major";
}

// One configuration's entry. A candidate of the profiler is an entry and a swap_ab flag (sm90
// entries whose A and B share type and order can also run the transposed problem).
struct GemmKernel {
  struct Ops {
    Status (*can_implement)(GemmProblem const&, bool swap_ab);
    std::size_t (*workspace_size)(GemmProblem const&, bool swap_ab);
    Status (*run)(GemmProblem const&, bool swap_ab, void* workspace, cudaStream_t stream);
    Status (*attributes)(cudaFuncAttributes&);  // the plain kernel's, on the current device
  };
  ConfigSpec spec{};
  std::string name;
  int smem_bytes = 0;
  int threads = 0;
  bool can_swap = false;
  unsigned static_epilogues = 0;  // the StaticEpilogue kernels built besides the plain and run-time ones

  // Whether a problem with these stages runs a kernel compiled for them (else the run-time chain).
  bool has_static(EpilogueStages const& e) const {
    return !e.any() || (static_epilogue_of(e) & static_epilogues) != 0;
  }
  Ops ops{};

  Status can_implement(GemmProblem const& p, bool swap_ab) const { return ops.can_implement(p, swap_ab); }
  std::size_t workspace_size(GemmProblem const& p, bool swap_ab) const { return ops.workspace_size(p, swap_ab); }
  Status run(GemmProblem const& p, bool swap_ab, void* workspace, cudaStream_t stream = nullptr) const {
    return ops.run(p, swap_ab, workspace, stream);
  }
  // The registers and local memory (spills) of the plain kernel as the GPU reports them.
  Status attributes(cudaFuncAttributes& out) const { return ops.attributes(out); }
};

using GemmRegistry = Registry<GemmKernel>;

}  // namespace tessera::tuning
