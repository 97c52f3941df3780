// The sm90 GEMM (TMA + wgmma, warp-specialized) against cuBLAS, measured in the same binary (TN:
// A row-major, B column-major, D row-major), bf16 and f16 with float accumulation.
//
// Floors on an H100 SXM (dense, datasheet): bf16/f16 ~990 TFLOP/s; 4096^3 is 137 GFLOP
// (0.14 ms) and moves at least 100 MB (0.03 ms at 3.35 TB/s): compute-bound. 8192 x 8192 x 1024
// is 137 GFLOP over 160 MB; 4096 x 14336 x 4096 and 4096 x 4096 x 14336 are 481 GFLOP each.
//
// Decode shapes (M = 1 to 128) are bound by reading B: N x K bf16 is 34 MB for 4096^2 (10 us at
// 3.35 TB/s) and 117 MB for 4096 x 14336 (35 us); they report GB/s, next to a device-to-device
// copy of B's bytes (gemm90_copy: bytes read + written per second) measured in the same binary.
// GEMM + bias + GELU fused in our epilogue runs against cuBLASLt's fused GELU_BIAS epilogue.
// fp8 e4m3 (into bf16) runs against cuBLASLt's fp8 GEMM, with and without its fast accumulation:
// 8192^3 is 1.1 PFLOP against ~1980 TFLOP/s dense fp8 (0.56 ms).
#include "gemm_bench.hpp"

using namespace tessera;
using namespace tessera::bench_gemm;

namespace {

template <class E, int BM, int BN, int WG, int S, class Schedule = gemm::Cooperative, int CM = 1, int CN = 1>
using Sm90Tn = gemm::Config<arch::Sm90, E, RowMajor, E, ColumnMajor, E, float, gemm::BlockTile<BM, BN, 64>,
                            gemm::Warpgroups<WG, Schedule, gemm::ClusterShape<CM, CN>>, gemm::Stages<S>>;

using Bf16 = Sm90Tn<bfloat16_t, 128, 256, 2, 4>;
using Bf16N128 = Sm90Tn<bfloat16_t, 128, 128, 2, 6>;
using F16 = Sm90Tn<tessera::half_t, 128, 256, 2, 4>;
using Bf16PingPong = Sm90Tn<bfloat16_t, 128, 128, 2, 5, gemm::PingPong>;
using Bf16PingPong64 = Sm90Tn<bfloat16_t, 64, 256, 2, 4, gemm::PingPong>;
using Bf16Cluster21 = Sm90Tn<bfloat16_t, 128, 256, 2, 4, gemm::Cooperative, 2, 1>;
using Bf16Cluster12 = Sm90Tn<bfloat16_t, 128, 256, 2, 4, gemm::Cooperative, 1, 2>;
using Bf16PingPong64Cluster = Sm90Tn<bfloat16_t, 64, 256, 2, 4, gemm::PingPong, 2, 1>;
using Bf16Decode = Sm90Tn<bfloat16_t, 64, 128, 1, 8>;
// Narrower tiles: more blocks without split-K (no partials, no counters) for N = 4096.
using Bf16Decode64 = Sm90Tn<bfloat16_t, 64, 64, 1, 12>;
using Bf16Decode32 = Sm90Tn<bfloat16_t, 64, 32, 1, 16>;
// With swap_ab: the tile's 128 rows over N (the weights), its 32 columns over M.
using Bf16DecodeSwap = Sm90Tn<bfloat16_t, 128, 32, 2, 8>;
using Bf16DecodeSwap64 = Sm90Tn<bfloat16_t, 64, 32, 1, 12>;
// M = 128 in one tile row (two consumers), so that B is read once (and streamed: L2 evict-first).
using Bf16Decode128x64 = Sm90Tn<bfloat16_t, 128, 64, 2, 8>;
// N = 14336 in 128 tiles of 112 columns: one wave over 132 multiprocessors, no second partial one
// (64-column tiles make 224: 92 multiprocessors take two and 40 one).
using Bf16Decode112 = Sm90Tn<bfloat16_t, 64, 112, 1, 9>;
using Bf16Decode128x112 = Sm90Tn<bfloat16_t, 128, 112, 2, 7>;
// fp8 e4m3 x e4m3 into bf16: BlockTile K = 128 (one 128-byte span), the headline's shape otherwise.
using Fp8 = gemm::Config<arch::Sm90, float8_e4m3_t, RowMajor, float8_e4m3_t, ColumnMajor, bfloat16_t, float,
                         gemm::BlockTile<128, 256, 128>, gemm::Warpgroups<2>, gemm::Stages<4>>;  // one consumer: 64-row tiles for M <= 64
using Bf16BiasGelu = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                                  gemm::BlockTile<128, 256, 64>, gemm::Warpgroups<2>, gemm::Stages<4>, BiasGelu>;

// The decode shapes' dispatch: gemm::Tuned over the configs below, each entry the winner of its
// problem among the bench's decode rows on the H100 (2026-11-21, commit 0857b87: L2 evict-first
// on the weights), in the format `tessera-profile emit` writes; the 4096^3 and 8192^3 entries keep
// the headline config for large problems. (Nearest is by log2 M, N, K: M = 128 needs entries of
// its own, or the M = 64 ones win.) N = K = 14336: 112-column tiles with B loaded without an L2
// hint (2026-11-22, same-call probe with the bench's flush: evict-first 156.7 / 156.2 / 160.6 us
// at M = 1 / 64 / 128 against 153.6 / 151.2 / 153.9 without). M = 128, N = K = 4096: 128 x 64
// (B in one tile row, read once), faster than 64 x 64 in the 2026-11-22 runs of 5c08fbe and 138b673,
// and unsplit: its 64 tiles leave 68 multiprocessors idle, yet the automatic split in two (128
// units, the partial sums through global memory) ran slower (same-call probe, 5 rounds of 11
// flushed launches, medians, us: unsplit 21.8, split 23.6, cuBLAS 22.8; at K = 14336 the split
// stays ahead: 56.2 against 60.5).
constexpr gemm::TunedEntry decode_entry(int m, int n, int k, gemm::ConfigSpec spec, bool swap, double us,
                                        gemm::L2Hint hint_b = gemm::L2Hint::kAuto, int split_k = 0) {
  return gemm::TunedEntry{m, n, k, spec, swap, us, gemm::L2Hint::kAuto, hint_b, split_k};
}
inline constexpr gemm::TunedTable<14> decode_table{{
    decode_entry(1, 4096, 4096, Bf16DecodeSwap64::spec, true, 21.3),
    decode_entry(1, 14336, 14336, Bf16Decode112::spec, false, 153.6, gemm::L2Hint::kNormal),
    decode_entry(16, 4096, 14336, Bf16DecodeSwap64::spec, true, 52.0),
    decode_entry(16, 14336, 4096, Bf16DecodeSwap64::spec, true, 49.6),
    decode_entry(64, 4096, 4096, Bf16Decode32::spec, false, 19.9),
    decode_entry(64, 4096, 14336, Bf16Decode32::spec, false, 51.3),
    decode_entry(64, 14336, 4096, Bf16Decode64::spec, false, 50.7),
    decode_entry(64, 14336, 14336, Bf16Decode112::spec, false, 151.2, gemm::L2Hint::kNormal),
    decode_entry(128, 4096, 4096, Bf16Decode128x64::spec, false, 21.8, gemm::L2Hint::kAuto, 1),
    decode_entry(128, 4096, 14336, Bf16Decode128x64::spec, false, 55.5),
    decode_entry(128, 14336, 4096, Bf16Decode128x64::spec, false, 52.3),
    decode_entry(128, 14336, 14336, Bf16Decode128x112::spec, false, 153.9, gemm::L2Hint::kNormal),
    decode_entry(4096, 4096, 4096, Bf16::spec, false, 170.4),
    decode_entry(8192, 8192, 8192, Bf16::spec, false, 1361.0),
}};
using DecodeTuned = gemm::Tuned<decode_table>;

// M in {1, 16, 64, 128} with N, K in {4096, 14336}.
void decode_shapes(benchmark::internal::Benchmark* b) {
  for (int m : {1, 16, 64, 128})
    for (int n : {4096, 14336})
      for (int k : {4096, 14336}) b->Args({m, n, k});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
  b->ArgNames({"m", "n", "k"});
}

// A device-to-device copy of N x K bf16 (B's bytes): the bandwidth decode shapes can hope for.
void BM_copy(benchmark::State& state) {
  std::size_t const bytes = std::size_t(state.range(1)) * std::size_t(state.range(2)) * sizeof(bfloat16_t);
  void *src = nullptr, *dst = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&src, bytes));
  TESSERA_BENCH_CUDA(cudaMalloc(&dst, bytes));
  TESSERA_BENCH_CUDA(cudaMemset(src, 1, bytes));
  bench::run_timed(state, [&] { TESSERA_BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  state.counters["GB/s"] = benchmark::Counter(2.0 * double(bytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(src);
  cudaFree(dst);
}

void sm90_shapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 4096, 4096})->Args({8192, 8192, 8192})->Args({4096, 14336, 4096})->Args({4096, 4096, 14336});
  b->Args({8192, 8192, 1024});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
  b->ArgNames({"m", "n", "k"});
}

}  // namespace

// Names are "<problem>/<implementation>"; the report pairs implementations of one problem.
BENCHMARK(BM_tessera<Bf16>)->Name("gemm90_bf16_tn/tessera")->Apply(sm90_shapes);
BENCHMARK(BM_cublas<bfloat16_t, bfloat16_t, float>)->Name("gemm90_bf16_tn/cublas")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16N128>)->Name("gemm90_bf16_tn/tessera_128x128_s6")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong>)->Name("gemm90_bf16_tn/tessera_pingpong_128x128_s5")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong64>)->Name("gemm90_bf16_tn/tessera_pingpong_64x256_s4")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16Cluster21>)->Name("gemm90_bf16_tn/tessera_cluster2x1")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16Cluster12>)->Name("gemm90_bf16_tn/tessera_cluster1x2")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<Bf16PingPong64Cluster>)->Name("gemm90_bf16_tn/tessera_pingpong_64x256_s4_cluster2x1")->Apply(sm90_shapes);
BENCHMARK(BM_tessera<F16>)->Name("gemm90_f16_tn/tessera")->Apply(sm90_shapes);
BENCHMARK(BM_cublas<tessera::half_t, tessera::half_t, float>)->Name("gemm90_f16_tn/cublas")->Apply(sm90_shapes);


// The host's cost of a call (no kernel time): the decode table's dispatch and cuBLAS's.
void call_shapes(benchmark::internal::Benchmark* b) {
  b->Args({1, 1, 1})->Args({16, 4096, 4096})->ArgNames({"m", "n", "k"});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
}
BENCHMARK(BM_call_tessera_tuned<DecodeTuned>)->Name("gemm90_bf16_call/tessera")->Apply(call_shapes);
BENCHMARK(BM_call_cublas<bfloat16_t, bfloat16_t, float>)->Name("gemm90_bf16_call/cublas")->Apply(call_shapes);

BENCHMARK(BM_tessera_tuned<DecodeTuned>)->Name("gemm90_bf16_decode/tessera")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16>)->Name("gemm90_bf16_decode/tessera_128x256_s4")->Apply(decode_shapes);
BENCHMARK(BM_cublas<bfloat16_t, bfloat16_t, float>)->Name("gemm90_bf16_decode/cublas")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode>)->Name("gemm90_bf16_decode/tessera_64x128_s8")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode64>)->Name("gemm90_bf16_decode/tessera_64x64_s12")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode32>)->Name("gemm90_bf16_decode/tessera_64x32_s16")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16DecodeSwap, true>)->Name("gemm90_bf16_decode/tessera_swap_128x32_s8")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16DecodeSwap64, true>)->Name("gemm90_bf16_decode/tessera_swap_64x32_s12")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode128x64>)->Name("gemm90_bf16_decode/tessera_128x64_s8")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode112>)->Name("gemm90_bf16_decode/tessera_64x112_s9")->Apply(decode_shapes);
BENCHMARK(BM_tessera<Bf16Decode128x112>)->Name("gemm90_bf16_decode/tessera_128x112_s7")->Apply(decode_shapes);
BENCHMARK(BM_copy)->Name("gemm90_copy/b_bytes")->Args({1, 4096, 4096})->Args({1, 4096, 14336})->Args({1, 14336, 14336})
    ->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true)
    ->ArgNames({"m", "n", "k"});
BENCHMARK(BM_tessera<Bf16>)->Name("gemm90_bf16_bias_gelu/tessera_plain")->Apply(square_shapes);
BENCHMARK(BM_tessera_bias_gelu<Bf16BiasGelu>)->Name("gemm90_bf16_bias_gelu/tessera")->Apply(square_shapes);
BENCHMARK(BM_cublaslt<LtOp::kGeluBias, bfloat16_t, bfloat16_t>)->Name("gemm90_bf16_bias_gelu/cublaslt")->Apply(square_shapes);
BENCHMARK(BM_tessera<Fp8>)->Name("gemm90_e4m3_tn/tessera")->Apply(square_shapes);
BENCHMARK(BM_cublaslt<LtOp::kPlain, float8_e4m3_t, bfloat16_t>)->Name("gemm90_e4m3_tn/cublaslt")->Apply(square_shapes);
BENCHMARK(BM_cublaslt<LtOp::kPlainFastAccum, float8_e4m3_t, bfloat16_t>)->Name("gemm90_e4m3_tn/cublaslt_fast_accum")->Apply(square_shapes);

TESSERA_BENCH_MAIN()
