// Conversion of a float tensor to bfloat16 / half / fp8 e4m3: tessera's types against CUDA's
// intrinsics in the same binary, and against a device-to-device copy of the same bytes.
//
// The floor: the kernel reads 4 bytes and writes 2 (1 for fp8) per element; at 64M elements that
// is 403 MB (336 MB for fp8): memory-bound, so "as fast as the intrinsic" means the same GB/s.
// H200, 2026-11-21: the copy row moves 4.10 TB/s (98 us); bf16/f16 conversion 3.92 TB/s (103 us,
// 96% of the copy), e4m3 3.79 TB/s, the same as CUDA's intrinsics to within 0.1%. On an H100
// (~3.0 TB/s copy) expect about 0.13 ms.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "bench_util.hpp"
#include "tessera/core/numeric_types.hpp"

namespace {

constexpr int kElements = 64 << 20;

enum class Impl { kTessera, kCuda };

template <class Out, Impl I>
__device__ Out convert_one(float x) {
  if constexpr (I == Impl::kTessera) {
    if constexpr (sizeof(Out) == 2 && std::is_same_v<Out, tessera::bfloat16_t>) return tessera::bfloat16_t(x);
    else if constexpr (std::is_same_v<Out, tessera::half_t>) return tessera::half_t(x);
    else return tessera::float8_e4m3_t(x);
  } else {
    if constexpr (std::is_same_v<Out, tessera::bfloat16_t>) return Out::from_bits(__bfloat16_as_ushort(__float2bfloat16_rn(x)));
    else if constexpr (std::is_same_v<Out, tessera::half_t>) return Out::from_bits(__half_as_ushort(__float2half_rn(x)));
    else return Out::from_bits(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
  }
}

// Each thread converts 4 consecutive floats: one 16-byte load, one 8- (or 4-) byte store.
template <class Out, Impl I>
__global__ void convert_kernel(float4 const* __restrict__ in, Out* __restrict__ out, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 const v = in[i];
    struct alignas(4 * sizeof(Out)) Quad { Out e[4]; } q;
    q.e[0] = convert_one<Out, I>(v.x);
    q.e[1] = convert_one<Out, I>(v.y);
    q.e[2] = convert_one<Out, I>(v.z);
    q.e[3] = convert_one<Out, I>(v.w);
    reinterpret_cast<Quad*>(out)[i] = q;
  }
}

struct Buffers {
  float* in = nullptr;
  void* out = nullptr;
  Buffers() {
    TESSERA_BENCH_CUDA(cudaMalloc(&in, kElements * sizeof(float)));
    TESSERA_BENCH_CUDA(cudaMalloc(&out, kElements * sizeof(float)));
    // random-ish, non-zero data: a hash of the index spread over [-1000, 1000)
    std::vector<float> h(kElements);
    unsigned s = 12345u;
    for (auto& x : h) {
      s = s * 1664525u + 1013904223u;
      x = float(int(s >> 8) % 2000000) * 1e-3f - 1000.0f;
    }
    TESSERA_BENCH_CUDA(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

template <class Out, Impl I>
void BM_convert(benchmark::State& state) {
  auto& b = buffers();
  int const n4 = kElements / 4;
  int sms = 0;
  TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  tessera::bench::run_timed(state, [&] {
    convert_kernel<Out, I><<<sms * 8, 256>>>(reinterpret_cast<float4 const*>(b.in), static_cast<Out*>(b.out), n4);
  });
  double const bytes = double(kElements) * (sizeof(float) + sizeof(Out));
  state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_copy_reference(benchmark::State& state) {
  auto& b = buffers();
  std::size_t const bytes = std::size_t(kElements) * 3;  // read+write 6 bytes per element, like bf16
  tessera::bench::run_timed(state, [&] {
    TESSERA_BENCH_CUDA(cudaMemcpyAsync(b.out, b.in, bytes, cudaMemcpyDeviceToDevice));
  });
  state.counters["GB/s"] = benchmark::Counter(2.0 * double(bytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

#define TESSERA_CONVERT_BENCH(OUT, IMPL, NAME)                  \
  BENCHMARK(BM_convert<OUT, IMPL>)                              \
      ->Name(NAME)                                              \
      ->UseManualTime()                                         \
      ->Unit(benchmark::kMicrosecond)                           \
      ->Repetitions(15)                                         \
      ->ReportAggregatesOnly(true)

TESSERA_CONVERT_BENCH(tessera::bfloat16_t, Impl::kTessera, "convert_f32_bf16/tessera");
TESSERA_CONVERT_BENCH(tessera::bfloat16_t, Impl::kCuda, "convert_f32_bf16/cuda");
TESSERA_CONVERT_BENCH(tessera::half_t, Impl::kTessera, "convert_f32_f16/tessera");
TESSERA_CONVERT_BENCH(tessera::half_t, Impl::kCuda, "convert_f32_f16/cuda");
TESSERA_CONVERT_BENCH(tessera::float8_e4m3_t, Impl::kTessera, "convert_f32_e4m3/tessera");
TESSERA_CONVERT_BENCH(tessera::float8_e4m3_t, Impl::kCuda, "convert_f32_e4m3/cuda");
BENCHMARK(BM_copy_reference)
    ->Name("copy_6B_per_element/cudaMemcpy")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(15)
    ->ReportAggregatesOnly(true);

TESSERA_BENCH_MAIN()
