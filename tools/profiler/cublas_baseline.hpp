// `profile --compare cublas`: the same problem through cuBLASLt (cublasLtMatmul with the
// heuristic's first algorithm, its fused epilogue where it has one: alpha * AB + beta * C, + bias,
// ReLU or GELU), verified against the same reference and timed the same way as the kernels.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "report.hpp"
#include "tessera/core/status.hpp"
#include "tessera/tuning/gemm_registry.hpp"

namespace tessera::profiler {

class CublasBaseline {
 public:
  CublasBaseline();
  ~CublasBaseline();
  CublasBaseline(CublasBaseline const&) = delete;
  CublasBaseline& operator=(CublasBaseline const&) = delete;

  // Plans the problem: not_supported, with what cuBLASLt lacks, where it has no such GEMM (a fused
  // stage it does not offer: scale-and-shift, residual, SiLU, sigmoid, clamp, erf GELU).
  Status plan(tuning::GemmProblem const& p);
  // The planned GEMM on `stream`.
  Status run(cudaStream_t stream = nullptr) const;

 private:
  struct Plan;
  Plan* plan_;
};

}  // namespace tessera::profiler
