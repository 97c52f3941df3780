// What the GEMM examples share: random operands, a host reference in double precision, and the
// comparison that decides the example's exit status. Not part of the library. Builds with nvcc
// and with hipcc: the few runtime calls go through example::gpu_* below.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "tessera/core/numeric_types.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/gemm/gemm.hpp"

namespace example {

// Exits with the runtime's message when a CUDA / HIP call fails.
#define EXAMPLE_CUDA(expr)                                                                                  \
  do {                                                                                                      \
    ::tessera::runtime::Error _e = (expr);                                                                  \
    if (_e != ::tessera::runtime::kSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, ::tessera::runtime::error_string(_e)); \
      std::exit(1);                                                                                         \
    }                                                                                                       \
  } while (0)

// The runtime calls the examples make, for CUDA or HIP.
#if defined(TESSERA_HIP)
inline tessera::runtime::Error gpu_malloc(void** p, std::size_t bytes) { return hipMalloc(p, bytes); }
inline void gpu_free(void* p) { (void)hipFree(p); }
inline tessera::runtime::Error gpu_to_device(void* to, void const* from, std::size_t bytes) {
  return hipMemcpy(to, from, bytes, hipMemcpyHostToDevice);
}
inline tessera::runtime::Error gpu_to_host(void* to, void const* from, std::size_t bytes) {
  return hipMemcpy(to, from, bytes, hipMemcpyDeviceToHost);
}
inline tessera::runtime::Error gpu_synchronize() { return hipDeviceSynchronize(); }
inline tessera::runtime::Error gpu_device_count(int& count) { return hipGetDeviceCount(&count); }
inline constexpr char const* kGpuName = "HIP";
#else
inline tessera::runtime::Error gpu_malloc(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline void gpu_free(void* p) { (void)cudaFree(p); }
inline tessera::runtime::Error gpu_to_device(void* to, void const* from, std::size_t bytes) {
  return cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice);
}
inline tessera::runtime::Error gpu_to_host(void* to, void const* from, std::size_t bytes) {
  return cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost);
}
inline tessera::runtime::Error gpu_synchronize() { return cudaDeviceSynchronize(); }
inline tessera::runtime::Error gpu_device_count(int& count) { return cudaGetDeviceCount(&count); }
inline constexpr char const* kGpuName = "CUDA";
#endif

// True when a GPU is present; otherwise says so (the examples then exit 0 after printing).
inline bool have_gpu() {
  int count = 0;
  if (gpu_device_count(count) != tessera::runtime::kSuccess || count == 0) {
    std::printf("no %s device: nothing to run (the example compiled)\n", kGpuName);
    return false;
  }
  return true;
}

// An uninitialized device array of `count` elements.
template <class T>
T* device_array(std::size_t count) {
  void* p = nullptr;
  EXAMPLE_CUDA(gpu_malloc(&p, count * sizeof(T)));
  return static_cast<T*>(p);
}

// Values in [-1, 1] that bf16 represents exactly (multiples of 1/64), so that the reference sees the
// same inputs as the GPU.
inline std::vector<tessera::bfloat16_t> random_bf16(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-64, 64);
  std::vector<tessera::bfloat16_t> v(count);
  for (auto& x : v) x = tessera::bfloat16_t(float(d(rng)) / 64.0f);
  return v;
}

template <class T>
T* to_device(std::vector<T> const& host) {
  T* p = device_array<T>(host.size());
  EXAMPLE_CUDA(gpu_to_device(p, host.data(), host.size() * sizeof(T)));
  return p;
}

template <class T>
std::vector<T> to_host(T const* device, std::size_t count) {
  std::vector<T> host(count);
  EXAMPLE_CUDA(gpu_to_host(host.data(), device, count * sizeof(T)));
  return host;
}

// Random bf16 operands of a TN problem on the device (A row-major M x K, B column-major K x N, D
// row-major M x N), freed with the object; arguments<Config>() fills a GEMM's sizes and pointers.
struct TnOperands {
  int m, n, k;
  std::vector<tessera::bfloat16_t> a, b;  // host copies, for the reference
  tessera::bfloat16_t *d_a = nullptr, *d_b = nullptr, *d_d = nullptr;
  TnOperands(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_), a(random_bf16(std::size_t(m_) * k_, 1)), b(random_bf16(std::size_t(n_) * k_, 2)) {
    d_a = to_device(a);
    d_b = to_device(b);
    d_d = device_array<tessera::bfloat16_t>(std::size_t(m) * n);
  }
  ~TnOperands() {
    gpu_free(d_a);
    gpu_free(d_b);
    gpu_free(d_d);
  }
  TnOperands(TnOperands const&) = delete;
  TnOperands& operator=(TnOperands const&) = delete;
  template <class Config>
  tessera::gemm::Arguments<Config> arguments() const {
    tessera::gemm::Arguments<Config> args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.a = d_a;
    args.lda = k;
    args.b = d_b;
    args.ldb = k;
    args.d = d_d;
    args.ldd = n;
    return args;
  }
  std::vector<tessera::bfloat16_t> result() const { return to_host(d_d, std::size_t(m) * n); }
};

// A (m x k, row-major) times B (k x n, column-major: B(k, j) at j * k + k), in double.
inline double dot(std::vector<tessera::bfloat16_t> const& a, std::vector<tessera::bfloat16_t> const& b, int k, int i, int j) {
  double acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += double(float(a[std::size_t(i) * k + kk])) * double(float(b[std::size_t(j) * k + kk]));
  return acc;
}

// Compares every element of the m x n row-major bf16 result with want(i, j); the tolerance is
// bf16's rounding of the result plus float accumulation. Prints a summary; returns the exit status.
inline int compare(char const* what, std::vector<tessera::bfloat16_t> const& got, int m, int n,
                   std::function<double(int, int)> const& want) {
  int bad = 0;
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double const w = want(i, j), g = double(float(got[std::size_t(i) * n + j]));
      double const err = std::fabs(g - w);
      worst = std::fmax(worst, err);
      if (!(err <= std::ldexp(1.0, -7) * std::fabs(w) + 1e-3)) {
        if (bad < 5) std::printf("  mismatch at (%d, %d): got %g, want %g\n", i, j, g, w);
        ++bad;
      }
    }
  std::printf("%s: %d x %d checked against a double-precision host reference, %d mismatches, max |error| %.3g\n", what,
              m, n, bad, worst);
  return bad == 0 ? 0 : 1;
}

}  // namespace example
