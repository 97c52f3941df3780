// 01_fused_epilogue: D = GELU(A * B + bias) + residual, in one kernel.
//
// The epilogue is a Chain of stages applied to each accumulator in the kernel, before the store:
// here a per-column bias, the tanh GELU and a residual connection read from a second matrix. The
// stages' run-time parameters (pointers, scalars) travel in Arguments::epilogue, stage by stage.
// No extra pass over D: the fused GEMM costs what the plain one does (docs/performance.md).
// On NVIDIA GPUs this example's Config is the sm80 kernel (mma.sync), which runs on any GPU from
// sm_80 on; on a Hopper GPU, examples/05_hopper_gemm runs the sm90 kernel (TMA + wgmma,
// arch::Sm90 with gemm::Warpgroups), at cuBLAS's speed where this one reaches about 0.6 of it.
// Build: see README.md; run: ./01_fused_epilogue
#include <cmath>
#include <cstdio>

#include "../common/example_util.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

using Epilogue = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>,  // + bias[col]
                                 epilogue::GeluTanh,                              // GELU (tanh form)
                                 epilogue::ResidualAdd<bfloat16_t>>;                // + R(row, col)

using Config = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                            gemm::BlockTile<128, 256, 64>, gemm::Warps<2, 4>, gemm::Stages<3>, Epilogue>;

int main() {
  if (!example::have_gpu()) return 0;
  int const m = 777, n = 1030, k = 512;
  example::TnOperands ops(m, n, k);
  auto const bias = example::random_bf16(std::size_t(n), 3);
  auto const residual = example::random_bf16(std::size_t(m) * n, 4);
  bfloat16_t* d_bias = example::to_device(bias);
  bfloat16_t* d_residual = example::to_device(residual);

  auto args = ops.arguments<Config>();
  // One initializer per stage, in the Chain's order (GeluTanh has no parameters).
  args.epilogue = Epilogue{{d_bias}, {}, {epilogue::MatrixRef<bfloat16_t>::row_major(d_residual, n)}};

  if (Status const s = gemm::Gemm<Config>{}.run(args); !s) {
    std::printf("run: %s\n", s.message().c_str());
    return 1;
  }
  EXAMPLE_CUDA(cudaDeviceSynchronize());

  int const status = example::compare("01_fused_epilogue", ops.result(), m, n, [&](int i, int j) {
    double const x = example::dot(ops.a, ops.b, k, i, j) + double(float(bias[std::size_t(j)]));
    double const gelu = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return gelu + double(float(residual[std::size_t(i) * n + j]));
  });
  cudaFree(d_bias);
  cudaFree(d_residual);
  return status;
}
