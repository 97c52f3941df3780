// The sm80 GEMM against cuBLAS, measured in the same binary (TN: A row-major, B column-major,
// D row-major), and GEMM + bias + GELU fused in our epilogue against cuBLAS followed by a
// separate bias + GELU kernel.
//
// Floors on an H100 SXM (dense, datasheet): bf16/f16 ~990 TFLOP/s with wgmma, of which mma.sync
// reaches roughly two thirds; 4096^3 is 137 GFLOP (0.14 ms at 990 TFLOP/s) and moves 100 MB.
#include "gemm_bench.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using namespace tessera;
using namespace tessera::bench_gemm;

namespace {

template <class EA, class ED, class Acc, int BM, int BN, int BK, int WM, int WN, int S, class Epi = epilogue::Identity>
using TnConfig = gemm::Config<arch::Sm90, EA, RowMajor, EA, ColumnMajor, ED, Acc, gemm::BlockTile<BM, BN, BK>,
                              gemm::Warps<WM, WN>, gemm::Stages<S>, Epi>;

// The headline configuration (fastest without spills on the H200 at 4096^3 and 8192^3) and variants.
// Every configuration here is also in test/ptxas/sm80_configs.cu, which fails CI if one spills.
using Bf16 = TnConfig<bfloat16_t, bfloat16_t, float, 128, 256, 64, 2, 4, 3>;
using Bf16BiasGelu = TnConfig<bfloat16_t, bfloat16_t, float, 128, 256, 64, 2, 4, 3, BiasGelu>;
using Bf16Bk32 = TnConfig<bfloat16_t, bfloat16_t, float, 128, 256, 32, 2, 4, 4>;
using Bf16Small = TnConfig<bfloat16_t, bfloat16_t, float, 128, 128, 32, 2, 2, 4>;
using Bf16Tall = TnConfig<bfloat16_t, bfloat16_t, float, 256, 128, 32, 4, 2, 4>;
using F16 = TnConfig<tessera::half_t, tessera::half_t, float, 128, 256, 64, 2, 4, 3>;
using Tf32 = TnConfig<float, float, float, 128, 256, 32, 2, 4, 3>;  // 128x128x32 spills on sm_90a
using S8 = TnConfig<std::int8_t, std::int32_t, std::int32_t, 128, 256, 64, 2, 4, 3>;

void BM_cublas_then_bias_gelu(benchmark::State& state) {
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<bfloat16_t, bfloat16_t>(m, n, k);
  int sms = 0;
  TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  bench::run_timed(state, [&] {
    cublas_gemm<bfloat16_t, bfloat16_t, float>(p);
    bias_gelu_kernel<<<sms * 4, 256>>>(p.d, p.bias, m, n);
  });
  set_flops(state, m, n, k);
}

}  // namespace

// Names are "<problem>/<implementation>"; the report pairs implementations of one problem.
BENCHMARK(BM_tessera<Bf16>)->Name("gemm_bf16_tn/tessera")->Apply(shapes);
BENCHMARK(BM_cublas<bfloat16_t, bfloat16_t, float>)->Name("gemm_bf16_tn/cublas")->Apply(shapes);
BENCHMARK(BM_tessera<Bf16Bk32>)->Name("gemm_bf16_tn/tessera_128x256x32_s4")->Apply(square_shapes);
BENCHMARK(BM_tessera<Bf16Small>)->Name("gemm_bf16_tn/tessera_128x128x32_s4")->Apply(square_shapes);
BENCHMARK(BM_tessera<Bf16Tall>)->Name("gemm_bf16_tn/tessera_256x128x32_s4")->Apply(square_shapes);
BENCHMARK(BM_tessera<F16>)->Name("gemm_f16_tn/tessera")->Apply(shapes);
BENCHMARK(BM_cublas<tessera::half_t, tessera::half_t, float>)->Name("gemm_f16_tn/cublas")->Apply(shapes);
BENCHMARK(BM_tessera<Tf32>)->Name("gemm_tf32_tn/tessera")->Apply(shapes);
BENCHMARK(BM_cublas<float, float, float>)->Name("gemm_tf32_tn/cublas")->Apply(shapes);
BENCHMARK(BM_tessera<S8>)->Name("gemm_s8_tn/tessera")->Apply(shapes);
BENCHMARK(BM_cublas<std::int8_t, std::int32_t, std::int32_t>)->Name("gemm_s8_tn/cublas")->Apply(shapes);
BENCHMARK(BM_tessera_bias_gelu<Bf16BiasGelu>)->Name("gemm_bf16_bias_gelu/tessera")->Apply(square_shapes);
BENCHMARK(BM_cublas_then_bias_gelu)->Name("gemm_bf16_bias_gelu/cublas+kernel")->Apply(square_shapes);

TESSERA_BENCH_MAIN()
