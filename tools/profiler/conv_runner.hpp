// The device side of `tessera-profile profile conv`, as runner.hpp's GemmRunner is a GEMM's: the
// two tensors a direction reads on the GPU, filled with random non-zero values; a direct
// convolution on the device as the reference (each output in double, with the sum of the
// magnitudes of its products for the tolerance); and for each candidate: can_implement, one
// verified run over the poisoned output, then timed runs (DeviceRunner).
#pragma once

#include <string>

#include "options.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/tuning/conv_registry.hpp"

namespace tessera::profiler {

struct ConvSetup {
  ProblemTypes types;  // bf16 or f16: x, w and y
  conv::Direction direction = conv::Direction::kFprop;
  conv::Problem problem{};
};

class ConvRunner : public DeviceRunner {
 public:
  explicit ConvRunner(TimingSettings settings);
  ~ConvRunner();

  // Allocates and fills the tensors the direction reads and computes the reference of the one it writes.
  Status prepare(ConvSetup const& setup);
  // The problem as the registry's kernels take it (after prepare): split_k = 0, the automatic split.
  tuning::ConvProblem const& problem() const { return problem_; }
  // Verifies then times one candidate on the prepared problem.
  Result run(tuning::ConvKernel const& kernel);
  // A result of the prepared problem for `kernel`, not run yet (operation, direction, problem, and
  // the implicit GEMM's m, n, k and batch = groups).
  Result blank_result(std::string kernel) const;

 private:
  struct Buffers;
  ConvSetup setup_{};
  tuning::ConvProblem problem_{};
  Buffers* buffers_;
};

}  // namespace tessera::profiler
