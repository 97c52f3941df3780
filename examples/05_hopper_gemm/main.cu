// 05_hopper_gemm: D = GELU(A * B + bias) on an H100, at cuBLAS speed, with the bias and the GELU
// fused into the GEMM's epilogue.
//
// arch::Sm90 with gemm::Warpgroups<2> selects the Hopper kernel: TMA loads into a ring of
// Stages<4> shared-memory stages, wgmma on the tensor cores from two consumer warpgroups (64 rows
// of the 128 x 256 tile each), a producer warpgroup, persistent blocks, and an epilogue that runs
// the chain in registers and stores D with TMA. It needs code built for sm_90a (CMake:
// CMAKE_CUDA_ARCHITECTURES=90a); can_implement says so, with the fix, when the binary or the GPU
// cannot run it, and this example then runs the same chain with the sm80 kernel (arch::Sm80,
// gemm::Warps) and says which kernel ran.
//
// It checks a 1000 x 1500 x 520 problem against a host reference, then times 4096^3 (a sample of
// D's rows checked too) and prints TFLOP/s. Build: see README.md; run: ./05_hopper_gemm
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/example_util.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

using Epilogue = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>,  // + bias[col]
                                 epilogue::GeluTanh>;                             // GELU (tanh form)

// The Hopper kernel, as in README.md.
using Hopper = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                            gemm::BlockTile<128, 256, 64>, gemm::Warpgroups<2>, gemm::Stages<4>, Epilogue>;
// Where it cannot run: the mma.sync kernel, any GPU from sm_80 on.
using Ampere = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                            gemm::BlockTile<128, 256, 64>, gemm::Warps<2, 4>, gemm::Stages<3>, Epilogue>;

namespace {
double gelu(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

constexpr int kCannotRun = -1;

// Runs the GEMM of `Config` on m x n x k; checks `rows` rows of D (every row when rows >= m)
// against the host; with `time`, prints the median of 20 timed runs. Returns the exit status, or
// kCannotRun (having said why) where can_implement refuses the Config on this binary and GPU.
template <class Config>
int run(char const* kernel, int m, int n, int k, int rows, bool time) {
  example::TnOperands ops(m, n, k);
  auto const bias = example::random_bf16(std::size_t(n), 3);
  bfloat16_t* d_bias = example::to_device(bias);
  auto args = ops.arguments<Config>();
  args.epilogue = Epilogue{{d_bias}, {}};  // one initializer per stage, in the Chain's order
  gemm::Gemm<Config> op;
  if (Status const s = op.can_implement(args); !s) {
    std::printf("05_hopper_gemm: the %s cannot run here: %s\n", kernel, s.message().c_str());
    cudaFree(d_bias);
    return kCannotRun;
  }
  if (Status const s = op.run(args); !s) {
    std::printf("run: %s\n", s.message().c_str());
    cudaFree(d_bias);
    return 1;
  }
  EXAMPLE_CUDA(cudaDeviceSynchronize());
  auto const d = ops.result();
  // The rows checked: all, or `rows` spread over D.
  int const step = rows >= m ? 1 : m / rows;
  std::vector<bfloat16_t> sampled;
  int checked = 0;
  for (int i = 0; i < m && checked < rows; i += step, ++checked)
    sampled.insert(sampled.end(), d.begin() + std::ptrdiff_t(i) * n, d.begin() + std::ptrdiff_t(i + 1) * n);
  std::string const what = std::string("05_hopper_gemm (") + kernel + ", " + std::to_string(m) + " x " + std::to_string(n) +
                           " x " + std::to_string(k) + (step > 1 ? ", every " + std::to_string(step) + "th row" : "") + ")";
  int status = example::compare(what.c_str(), sampled, checked, n, [&](int r, int j) {
    return gelu(example::dot(ops.a, ops.b, k, r * step, j) + double(float(bias[std::size_t(j)])));
  });
  if (time && status == 0) {
    cudaEvent_t start, stop;
    EXAMPLE_CUDA(cudaEventCreate(&start));
    EXAMPLE_CUDA(cudaEventCreate(&stop));
    std::vector<float> ms(20);
    for (int warm = 0; warm < 5; ++warm) (void)op.run(args);
    for (auto& t : ms) {
      EXAMPLE_CUDA(cudaEventRecord(start));
      (void)op.run(args);
      EXAMPLE_CUDA(cudaEventRecord(stop));
      EXAMPLE_CUDA(cudaEventSynchronize(stop));
      EXAMPLE_CUDA(cudaEventElapsedTime(&t, start, stop));
    }
    std::sort(ms.begin(), ms.end());
    double const median = ms[ms.size() / 2];
    std::printf("05_hopper_gemm: %s, %d x %d x %d with bias + GELU: %.1f us, %.0f TFLOP/s (median of 20)\n", kernel, m, n, k,
                median * 1e3, 2.0 * m * n * k / (median * 1e-3) / 1e12);
  }
  cudaFree(d_bias);
  return status;
}
}  // namespace

int main() {
  if (!example::have_gpu()) return 0;
  int status = run<Hopper>("sm90 kernel (TMA + wgmma)", 1000, 1500, 520, 1000, false);
  if (status == kCannotRun) {
    std::printf("05_hopper_gemm: running the same chain with the sm80 kernel instead\n");
    return run<Ampere>("sm80 kernel (mma.sync)", 1000, 1500, 520, 1000, false) == 0 ? 0 : 1;
  }
  if (status == 0) status = run<Hopper>("sm90 kernel (TMA + wgmma)", 4096, 4096, 4096, 32, true);
  return status;
}
