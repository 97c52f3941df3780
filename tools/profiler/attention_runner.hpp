// The device side of `tessera-profile profile attention`, as conv_runner.hpp is a convolution's:
// Q, K and V on the GPU, filled with random non-zero values; a reference on the device (each
// query's softmax over its full row of scores in double, through the same mask, with the sum of
// p |v| per output for the tolerance, and the LSE); and for each candidate: can_implement, one
// verified run over poisoned O and LSE, then timed runs (DeviceRunner).
#pragma once

#include <string>

#include "options.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tessera/tuning/attention_registry.hpp"

namespace tessera::profiler {

struct AttentionSetup {
  ProblemTypes types;  // bf16 or f16: Q, K, V and O
  AttentionShape shape{};
};

class AttentionRunner : public DeviceRunner {
 public:
  explicit AttentionRunner(TimingSettings settings);
  ~AttentionRunner();

  // Allocates and fills Q, K and V and computes the reference O and LSE.
  Status prepare(AttentionSetup const& setup);
  // The problem as the registry's kernels take it (after prepare).
  tuning::AttentionProblem const& problem() const { return problem_; }
  // Verifies then times one candidate on the prepared problem.
  Result run(tuning::AttentionKernel const& kernel);
  // A result of the prepared problem for `kernel`, not run yet.
  Result blank_result(std::string kernel) const;

 private:
  struct Buffers;
  AttentionSetup setup_{};
  tuning::AttentionProblem problem_{};
  Buffers* buffers_;
};

}  // namespace tessera::profiler
