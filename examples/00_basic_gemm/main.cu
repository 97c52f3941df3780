// 00_basic_gemm: D = A * B in bf16 with float accumulation, on the tensor cores.
//
// One Config type names everything the kernel is compiled for: the architecture, the element types
// and layouts of A and B, the output type, the accumulator, the block tile, the warps that share
// it and the depth of the shared-memory pipeline. Gemm<Config> checks the run-time arguments
// (can_implement says what is wrong and how to fix it) and launches. Any M, N, K works; this
// example uses sizes that are not multiples of the tile.
// The same source builds for AMD Instinct GPUs with hipcc: only the architecture tag (and the
// pipeline depth, which the gfx9 kernel fixes at two LDS buffers) differ.
// On NVIDIA GPUs this example's Config is the sm80 kernel (mma.sync), which runs on any GPU from
// sm_80 on; on a Hopper GPU, examples/05_hopper_gemm runs the sm90 kernel (TMA + wgmma,
// arch::Sm90 with gemm::Warpgroups), at cuBLAS's speed where this one reaches about 0.6 of it.
// Build: see README.md (the examples build with the default preset; for AMD, the `hip` preset
// builds 00_basic_gemm_gfx90a); run: ./00_basic_gemm
#include <cstdio>

#include "../common/example_util.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

#if defined(TESSERA_HIP)
using Arch = arch::Gfx90a;  // MFMA kernels: MI200 (gfx90a); arch::Gfx940 for MI300
constexpr int kStages = 2;  // LDS double buffering
#else
using Arch = arch::Sm80;    // mma.sync kernels: sm_80 and newer
constexpr int kStages = 4;  // 4 k-tiles in flight (cp.async)
#endif

// A row-major (M x K, "T"), B column-major (K x N, "N"): the TN layout of most inference GEMMs.
using Config = gemm::Config<Arch,
                            bfloat16_t, RowMajor,               // A
                            bfloat16_t, ColumnMajor,            // B
                            bfloat16_t,                         // D
                            float,                            // accumulator
                            gemm::BlockTile<128, 128, 32>,    // each block computes a 128 x 128 tile of D
                            gemm::Warps<2, 2>,                // 4 warps (wavefronts on AMD), 64 x 64 each
                            gemm::Stages<kStages>>;

int main() {
  if (!example::have_gpu()) return 0;
  int const m = 1000, n = 1200, k = 700;
  auto const a = example::random_bf16(std::size_t(m) * k, 1);
  auto const b = example::random_bf16(std::size_t(n) * k, 2);
  bfloat16_t* d_a = example::to_device(a);
  bfloat16_t* d_b = example::to_device(b);
  bfloat16_t* d_d = example::device_array<bfloat16_t>(std::size_t(m) * n);

  gemm::Arguments<Config> args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = d_a;
  args.lda = k;  // row-major A: a row is K elements
  args.b = d_b;
  args.ldb = k;  // column-major B: a column is K elements
  args.d = d_d;
  args.ldd = n;  // row-major D

  gemm::Gemm<Config> gemm_op;
  if (Status const s = gemm_op.can_implement(args); !s) {
    std::printf("can_implement: %s\n", s.message().c_str());
    return 1;
  }
  if (Status const s = gemm_op.run(args); !s) {  // on the default stream
    std::printf("run: %s\n", s.message().c_str());
    return 1;
  }
  EXAMPLE_CUDA(example::gpu_synchronize());

  // A mistake is reported, not launched: lda smaller than K.
  gemm::Arguments<Config> bad = args;
  bad.lda = k - 1;
  std::printf("with lda = %d, can_implement says: %s\n", k - 1, gemm_op.can_implement(bad).message().c_str());

  auto const d = example::to_host(d_d, std::size_t(m) * n);
  int const status =
      example::compare("00_basic_gemm", d, m, n, [&](int i, int j) { return example::dot(a, b, k, i, j); });
  example::gpu_free(d_a);
  example::gpu_free(d_b);
  example::gpu_free(d_d);
  return status;
}
