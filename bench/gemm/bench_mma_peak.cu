// The ceiling of mma.sync on this GPU: warps issuing independent m16n8k16 bf16 MMAs from registers,
// no memory traffic. Any mma.sync GEMM is bounded by this rate (wgmma's is higher on Hopper).
#include "bench_util.hpp"
#include "tessera/arch/sm80/mma.hpp"

namespace {

constexpr int kIters = 4096;

// Chains: independent accumulators per warp (8 cover the MMA latency; a 64x64 GEMM warp tile has 32).
template <int Chains>
__global__ void mma_loop(float* out, std::uint32_t seed) {
  constexpr int kChains = Chains;
  std::uint32_t a[4] = {seed, seed ^ 1u, seed ^ 2u, seed ^ 3u};
  std::uint32_t b[2] = {seed ^ 4u, seed ^ 5u};
  float acc[kChains][4] = {};
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) tessera::arch::Sm80_16x8x16_F32BF16BF16F32_TN::fma(acc[c], a, b, acc[c]);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.0f) out[threadIdx.x] = s;  // keeps the loop alive
}

// Arg: warps per multiprocessor (blocks of 256 threads). A GEMM with one 8-warp block per SM
// runs 8; the ceiling is taken at 32.
template <int Chains>
void BM_mma_sync_peak(benchmark::State& state) {
  int sms = 0;
  TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* out;
  TESSERA_BENCH_CUDA(cudaMalloc(&out, 1024 * sizeof(float)));
  int const threads = 256, blocks = sms * int(state.range(0)) / 8;
  tessera::bench::run_timed(state, [&] { mma_loop<Chains><<<blocks, threads>>>(out, 7u); });
  double const flops = double(blocks) * (threads / 32) * kIters * Chains * 2.0 * 16 * 8 * 16;
  state.counters["TFLOP/s"] = benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(out);
}

}  // namespace

BENCHMARK(BM_mma_sync_peak<8>)
    ->Name("mma_sync_bf16_16x8x16_peak/registers")
    ->ArgName("warps_per_sm")
    ->Arg(32)
    ->Arg(8)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_mma_sync_peak<32>)
    ->Name("mma_sync_bf16_16x8x16_peak_32chains/registers")
    ->ArgName("warps_per_sm")
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

TESSERA_BENCH_MAIN()
