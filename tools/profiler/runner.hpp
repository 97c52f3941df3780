// The device side of `tessera-profile profile gemm`: operands on the GPU filled with random
// non-zero values, a reference on the device (double accumulation, the same epilogue), and for each
// candidate: can_implement, one verified run over a poisoned D, then timed runs (device events,
// warm-up, L2 flushed before each, the median). conv_runner.hpp does the same for convolutions.
#pragma once

#include <functional>
#include <string>

#include "cost_model.hpp"
#include "cublas_baseline.hpp"
#include "options.hpp"
#include "report.hpp"
#include "tessera/tuning/epilogue_stages.hpp"
#include "tessera/tuning/gemm_registry.hpp"

namespace tessera::profiler {

struct TimingSettings {
  int warmup = 3;
  int min_iterations = 10;
  int max_iterations = 100;
  double target_ms = 30.0;  // timed runs per candidate: about this long, within the bounds above
  bool flush_l2 = true;
};

struct GemmSetup {
  ProblemTypes types;
  Layout layout;
  tuning::EpilogueStages epilogue;
  ProblemShape shape;
};

// Ok when a CUDA device is usable; else a message that says so and points to `list`.
Status check_gpu();

// What the GEMM and convolution runners share: the device's description, and each candidate's
// verified run over a poisoned output and its timed runs (device events, warm-up, the L2 cache
// flushed before each, the median). A CUDA error that poisons the context (an illegal address) is
// reported; later runs then return kError at once.
class DeviceRunner {
 public:
  explicit DeviceRunner(TimingSettings settings);
  ~DeviceRunner();
  DeviceRunner(DeviceRunner const&) = delete;
  DeviceRunner& operator=(DeviceRunner const&) = delete;

  std::string device_name() const;
  int compute_capability() const;  // 90 for an H100
  DeviceModel model() const;

 protected:
  struct Common;  // device_common.cuh
  static Result fail(Result r, Outcome o, std::string message);
  // kError when an earlier run left the GPU in error (then nothing runs), else r unchanged.
  Result not_run(Result r) const;
  // Allocates the L2 flush buffer (when flushing).
  Status prepare_flush();
  // One verified run over the poisoned output (launch(false)), then the timed runs (launch(true)).
  Result verify_and_time(Result r, std::function<Status(bool timed)> const& launch);
  TimingSettings settings_;
  Common* common_;
  std::string broken_;  // the sticky error, once one happened
};

class GemmRunner : public DeviceRunner {
 public:
  explicit GemmRunner(TimingSettings settings);
  ~GemmRunner();

  // Allocates and fills the operands of the problem and computes its reference.
  Status prepare(GemmSetup const& setup);
  // The problem as the registry's kernels take it (after prepare).
  tuning::GemmProblem const& problem() const { return problem_; }
  // Verifies then times one candidate on the prepared problem.
  Result run(tuning::GemmKernel const& kernel, bool swap_ab);
  // The same for cuBLASLt on the prepared problem (`--compare cublas`): skipped, with why, where
  // cuBLASLt has no such GEMM.
  Result run(CublasBaseline& cublas);

 private:
  struct Buffers;
  Result blank_result(std::string name) const;
  GemmSetup setup_{};
  tuning::GemmProblem problem_{};
  Buffers* buffers_;
};

}  // namespace tessera::profiler
