// Uses the package as a CUDA application would: the umbrella header alone, the Hopper GEMM with
// a fused bias + GELU (README.md's block). On a Hopper GPU it runs a 64 x 64 x 64 GEMM of ones
// (D = GELU(64 + 1) everywhere); elsewhere the Status says why not, and that is the check.
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace tessera;

using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh>;
using Cfg = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 256, 64>,
                         gemm::Warpgroups<2>, gemm::Stages<4>, Epi>;

int main() {
  int const n = 64;
  std::vector<bfloat16_t> ones(n * n, bfloat16_t(1.0f));
  bfloat16_t *a = nullptr, *b = nullptr, *d = nullptr, *bias = nullptr;
  if (cudaMalloc(&a, n * n * 2) != cudaSuccess || cudaMalloc(&b, n * n * 2) != cudaSuccess || cudaMalloc(&d, n * n * 2) != cudaSuccess ||
      cudaMalloc(&bias, n * 2) != cudaSuccess) {
    std::printf("consumer (CUDA): no device memory (no GPU here): built, not run\n");
    return 0;
  }
  cudaMemcpy(a, ones.data(), n * n * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b, ones.data(), n * n * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(bias, ones.data(), n * 2, cudaMemcpyHostToDevice);
  gemm::Arguments<Cfg> args;
  args.m = args.n = args.k = n;
  args.a = a; args.lda = n; args.b = b; args.ldb = n; args.d = d; args.ldd = n;
  args.epilogue = Epi{{bias}, {}};
  if (Status const s = gemm::Gemm<Cfg>::can_implement(args); !s) {
    std::printf("consumer (CUDA): the Hopper GEMM does not run here: %s\n", s.message().c_str());
    return s.code() == StatusCode::kNotSupported || s.code() == StatusCode::kDeviceError ? 0 : 1;
  }
  if (Status const s = gemm::Gemm<Cfg>{}.run(args); !s) {
    std::printf("consumer (CUDA): %s\n", s.message().c_str());
    return 1;
  }
  std::vector<bfloat16_t> out(n * n);
  cudaMemcpy(out.data(), d, n * n * 2, cudaMemcpyDeviceToHost);
  double const x = 65.0, want = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  int bad = 0;
  for (auto const& v : out) bad += std::fabs(double(float(v)) - want) > 0.5;
  std::printf("consumer (CUDA): the Hopper GEMM ran, %d of %d outputs off %g\n", bad, n * n, want);
  return bad == 0 ? 0 : 1;
}
