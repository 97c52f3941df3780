// The sm90 GEMM (TMA + wgmma, warp-specialized) against cuBLAS, measured in the same binary (TN:
// A row-major, B column-major, D row-major), bf16 and f16 with float accumulation.
//
// Floors on an H100 SXM (dense, datasheet): bf16/f16 ~990 TFLOP/s; 4096^3 is 137 GFLOP
// (0.14 ms) and moves at least 100 MB (0.03 ms at 3.35 TB/s): compute-bound. 8192 x 8192 x 1024
// is 137 GFLOP over 160 MB; 4096 x 14336 x 4096 and 4096 x 4096 x 14336 are 481 GFLOP each.
#include "gemm_bench.hpp"

using namespace tessera;
using namespace tessera::bench_gemm;

namespace {

template <class E, int BM, int BN, int WG, int S, class Schedule = gemm::Cooperative, int CM = 1, int CN = 1>
using Sm90Tn = gemm::Config<arch::Sm90, E, RowMajor, E, ColumnMajor, E, float, gemm::BlockTile<BM, BN, 64>,
                            gemm::Warpgroups<WG, Schedule, gemm::ClusterShape<CM, CN>>, gemm::Stages<S>>;

using Bf16 = Sm90Tn<bfloat16, 128, 256, 2, 4>;
using Bf16N128 = Sm90Tn<bfloat16, 128, 128, 2, 6>;
using F16 = Sm90Tn<tessera::half, 128, 256, 2, 4>;
using Bf16PingPong = Sm90Tn<bfloat16, 128, 128, 2, 5, gemm::PingPong>;
using Bf16PingPong64 = Sm90Tn<bfloat16, 64, 256, 2, 4, gemm::PingPong>;
using Bf16Cluster21 = Sm90Tn<bfloat16, 128, 256, 2, 4, gemm::Cooperative, 2, 1>;
using Bf16Cluster12 = Sm90Tn<bfloat16, 128, 256, 2, 4, gemm::Cooperative, 1, 2>;
using Bf16PingPong64Cluster = Sm90Tn<bfloat16, 64, 256, 2, 4, gemm::PingPong, 2, 1>;

void sm90_shapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 4096, 4096})->Args({8192, 8192, 8192})->Args({4096, 14336, 4096})->Args({4096, 4096, 14336});
  b->Args({8192, 8192, 1024});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
  b->ArgNames({"m", "n", "k"});
}

}  // namespace

// Names are "<problem>/<implementation>"; the report pairs implementations of one problem.
BENCHMARK(BM_tessera<Bf16>)->Name("gemm90_bf16_tn/tessera")->Apply(sm90_shapes);
BENCHMARK(BM_cublas<bfloat16, bfloat16, float>)->Name("gemm90_bf16_tn/cublas")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16N128>)->Name("gemm90_bf16_tn/tessera_128x128_s6")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong>)->Name("gemm90_bf16_tn/tessera_pingpong_128x128_s5")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong64>)->Name("gemm90_bf16_tn/tessera_pingpong_64x256_s4")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16Cluster21>)->Name("gemm90_bf16_tn/tessera_cluster2x1")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16Cluster12>)->Name("gemm90_bf16_tn/tessera_cluster1x2")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong64Cluster>)->Name("gemm90_bf16_tn/tessera_pingpong_64x256_s4_cluster2x1")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<F16>)->Name("gemm90_f16_tn/tessera")->Apply(sm90_shapes);
BENCHMARK(BM_cublas<tessera::half, tessera::half, float>)->Name("gemm90_f16_tn/cublas")->Apply(sm90_shapes);

TESSERA_BENCH_MAIN()
