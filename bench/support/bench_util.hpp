// Timing for benches: CUDA events around one launch, the L2 flushed before each, and the device
// and its ceilings recorded in the benchmark context.
//
//   BENCHMARK(f)->UseManualTime()->Repetitions(…)->ReportAggregatesOnly(true): each iteration
//   flushes L2, records events around one launch, and reports that time; Google Benchmark then
//   gives the median over repetitions.
#pragma once

#include <chrono>
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#define TESSERA_BENCH_CUDA(expr)                                                                 \
  do {                                                                                           \
    cudaError_t _e = (expr);                                                                     \
    if (_e != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(_e)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace tessera::bench {

// Writes a buffer larger than L2 so that the next kernel starts with a cold cache.
class L2Flusher {
 public:
  L2Flusher() {
    int dev = 0, l2 = 0;
    TESSERA_BENCH_CUDA(cudaGetDevice(&dev));
    TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    bytes_ = std::size_t(l2) * 2;
    TESSERA_BENCH_CUDA(cudaMalloc(&buf_, bytes_));
  }
  ~L2Flusher() { cudaFree(buf_); }
  void flush(cudaStream_t s = nullptr) { TESSERA_BENCH_CUDA(cudaMemsetAsync(buf_, 0, bytes_, s)); }

 private:
  void* buf_ = nullptr;
  std::size_t bytes_ = 0;
};

namespace detail {
__device__ inline unsigned mix(unsigned s) {  // a 32-bit finalizer (MurmurHash3's)
  s ^= s >> 16;
  s *= 0x85ebca6bu;
  s ^= s >> 13;
  s *= 0xc2b2ae35u;
  s ^= s >> 16;
  return s;
}
// Element i of stream `seed`: standard normal values (Box-Muller over two hashed uniforms), full
// mantissas like real activations, for floating-point T; integers -7 to 7 but 0 for integral T.
template <class T>
__global__ void fill_kernel(T* p, std::size_t count, unsigned seed) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned const h = mix(unsigned(i) ^ mix(unsigned(i >> 32) + seed * 0x9e3779b9u));
    if constexpr (std::is_integral_v<T>) {
      int const v = int(h % 15u) - 7;
      p[i] = T(v == 0 ? 1 : v);
    } else {
      float const u1 = (float(h >> 8) + 1.0f) * (1.0f / 16777217.0f), u2 = float(mix(h ^ 0x5bd1e995u) >> 8) * (1.0f / 16777216.0f);
      p[i] = T(sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
    }
  }
}
}  // namespace detail

// Fills `count` elements at device pointer p with detail::fill_kernel's values (random normal for
// floating-point types), on the device: a host fill of 100 M values takes seconds on one core, paid
// again at each change of problem under the benches' random interleaving.
template <class T>
void fill_random(T* p, std::size_t count, unsigned seed) {
  detail::fill_kernel<<<1024, 256>>>(p, count, seed);
  TESSERA_BENCH_CUDA(cudaGetLastError());
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
}

// Times `launch()` with events after an L2 flush; returns seconds.
template <class Launch>
double time_once(L2Flusher& flusher, Launch&& launch) {
  cudaEvent_t start, stop;
  TESSERA_BENCH_CUDA(cudaEventCreate(&start));
  TESSERA_BENCH_CUDA(cudaEventCreate(&stop));
  flusher.flush();
  TESSERA_BENCH_CUDA(cudaEventRecord(start));
  launch();
  TESSERA_BENCH_CUDA(cudaEventRecord(stop));
  TESSERA_BENCH_CUDA(cudaGetLastError());
  TESSERA_BENCH_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  TESSERA_BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3;
}

// Runs `launch` in a benchmark loop with manual timing; warms up first.
template <class Launch>
void run_timed(benchmark::State& state, Launch&& launch) {
  static L2Flusher flusher;
  for (int i = 0; i < 3; ++i) launch();  // warm-up: module load, first-touch
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
  for (auto _ : state) state.SetIterationTime(time_once(flusher, launch));
}

// The host's cost of one call that enqueues GPU work (argument checks, parameter set-up, the
// launch), timed on the host with the device idle before each call, so that a full launch queue
// never blocks it: what a small problem pays on top of its kernel. The work it enqueued runs
// untimed between iterations.
template <class Call>
void run_host_timed(benchmark::State& state, Call&& call) {
  for (int i = 0; i < 100; ++i) call();  // warm-up: module load, one-time set-up, caches
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
  for (auto _ : state) {
    TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
    auto const t0 = std::chrono::steady_clock::now();
    call();
    auto const t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
}

// Device name and ceilings in the benchmark context (printed in the header and in JSON output).
inline void add_device_context() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return;
  benchmark::AddCustomContext("device", p.name);
  benchmark::AddCustomContext("sm_count", std::to_string(p.multiProcessorCount));
  benchmark::AddCustomContext("l2_bytes", std::to_string(p.l2CacheSize));
}

}  // namespace tessera::bench

// The main() of every bench binary: the device and its ceilings in the context, then the benchmarks.
#define TESSERA_BENCH_MAIN()                   \
  int main(int argc, char** argv) {            \
    benchmark::Initialize(&argc, argv);        \
    tessera::bench::add_device_context();      \
    benchmark::RunSpecifiedBenchmarks();       \
    benchmark::Shutdown();                     \
    return 0;                                  \
  }
