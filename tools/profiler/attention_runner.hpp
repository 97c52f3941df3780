// The device side of `tessera-profile profile attention`, as conv_runner.hpp is a convolution's:
// Q, K and V on the GPU, filled with random non-zero values (fp8: stored values in [-1, 1] with
// per-tensor scales); a reference on the device (each query's softmax over its full row of scores
// in double, through the same mask, on the values the kernels read -- fp8's stored values times
// their scales --, with the sum of p |v| per output for the tolerance, and the LSE); for a packed
// batch of variable lengths, its cu_seqlens on the device and every sequence's rows (empty and
// length-1 ones included); and for each candidate: can_implement, one verified run over poisoned
// O and LSE, then timed runs (DeviceRunner).
#pragma once

#include <string>

#include "options.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tessera/tuning/attention_registry.hpp"

namespace tessera::profiler {

struct AttentionSetup {
  ProblemTypes types;  // bf16 or f16: Q, K, V and O; e4m3: Q, K and V (O bf16)
  AttentionShape shape{};
};

// fp8's per-tensor scales in the profiler: the device test's (test/device/attention), different
// for each tensor so that a kernel that applies one to another's values fails verification.
inline constexpr float kFp8ScaleQ = 0.5f, kFp8ScaleK = 4.0f, kFp8ScaleV = 0.125f;

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
