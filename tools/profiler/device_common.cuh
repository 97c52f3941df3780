// What the profiler's device runners share (runner.cu: GEMMs, conv_runner.cu: convolutions):
// operands filled with random non-zero values, the comparison of an output with its reference,
// growing device allocations, and DeviceRunner's buffers (the output, its reference, the workspace,
// the L2 flush buffer, the timing events).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runner.hpp"
#include "tessera/core/rounding.hpp"

namespace tessera::profiler {

inline std::string cuda_message(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

template <class T>
__host__ __device__ double to_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) return double(x);
  else return double(x.to_float());
}

__device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Values v / 64 in [-1, 1] (v a non-zero integer; e4m3 rounds them) and integers in -127..127:
// varied bits, as real data has (the tensor cores draw more power, and may clock lower, on them than
// on a few repeated values), and the reference reads the values as stored.
template <class T>
__global__ void fill_kernel(T* p, std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t const h = mix((std::uint64_t(seed) << 40) ^ i);
    if constexpr (std::is_integral_v<T>) {
      int const v = int(h % 255) - 127;
      p[i] = T(v == 0 ? 1 : v);
    } else {
      int const v = int(h % 129) - 64;
      p[i] = T(float(v == 0 ? 1 : v) / 64.0f);
    }
  }
}

template <class T>
void fill(T* p, std::size_t count, std::uint32_t seed) {
  if (count == 0) return;
  fill_kernel<<<unsigned(std::min<std::size_t>((count + 255) / 256, 4096)), 256>>>(p, count, seed);
}

// A device allocation that grows.
struct Allocation {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  cudaError_t reserve(std::size_t want) {
    if (want <= bytes) return cudaSuccess;
    cudaFree(ptr);
    ptr = nullptr;
    bytes = 0;
    cudaError_t const e = cudaMalloc(&ptr, want);
    if (e == cudaSuccess) bytes = want;
    return e;
  }
  ~Allocation() { cudaFree(ptr); }
};

// An output element passes when |have - want| <= 2 u_out |want| + subnormal + 8 u_acc mag + 1e-6 +
// extra, mag the sum of the magnitudes of its products.
struct Tolerance {
  double u_out, subnormal, u_acc, extra;
};

// Counts the elements of the output off the reference by more than the tolerance and keeps the
// largest |error| / tolerance (as float bits: non-negative floats order as integers).
template <class ED>
__global__ void compare_kernel(ED const* d, double const* want, float const* mag, std::size_t count, Tolerance t, unsigned* worst,
                               unsigned long long* bad) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    double const have = to_double(d[i]), w = want[i];
    double const tol = 2 * t.u_out * fabs(w) + t.subnormal + 8 * t.u_acc * double(mag[i]) + 1e-6 + t.extra;
    double const r = fabs(have - w) / tol;
    float const ratio = r <= 3.0e38 ? float(r) : INFINITY;  // NaN and overflow count as infinitely wrong
    if (!(ratio <= 1.0f)) atomicAdd(bad, 1ull);
    atomicMax(worst, __float_as_uint(ratio));
  }
}

// A comparison's counters in `check` (the largest |error| / tolerance as float bits, then the count
// off the reference): zeroed, filled by launch(worst, bad) (a comparison kernel), read back.
template <class Launch>
Status count_off(Allocation& check, Launch&& launch, unsigned& worst, unsigned long long& bad) {
  auto* w = static_cast<unsigned*>(check.ptr);
  auto* n = reinterpret_cast<unsigned long long*>(static_cast<char*>(check.ptr) + 8);
  cudaMemset(check.ptr, 0, 16);
  launch(w, n);
  cudaMemcpy(&worst, w, sizeof(unsigned), cudaMemcpyDeviceToHost);
  if (cudaError_t e = cudaMemcpy(&bad, n, sizeof(bad), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return Status::device_error("comparing with the reference failed: " + cuda_message(e));
  return Status::success();
}

// A second output a runner checks after the first (attention's LSE): poisoned before each verified
// run, then compared; `compare` gives the largest |error| / tolerance (as float bits) and the count
// of values off the reference.
struct SecondOutput {
  std::string name;  // "LSE"
  std::size_t count = 0;
  std::function<void()> poison;
  std::function<Status(unsigned& worst, unsigned long long& bad)> compare;
};

struct DeviceRunner::Common {
  // The output a candidate writes (poisoned before its verified run), its reference (want) and the
  // sums of |products| per element (mag), the candidate's workspace, the buffer written to flush
  // the L2 cache, the comparison's counters.
  Allocation out, want, mag, workspace, flush, check;
  std::vector<cudaEvent_t> start, stop;
  std::size_t out_count = 0;
  int out_bytes = 0;
  Tolerance tolerance{};
  Status (*compare)(Common&, unsigned& worst, unsigned long long& bad) = nullptr;
  std::optional<SecondOutput> second;  // set by the runner whose kernels write one

  // Sizes the output, its reference and the counters for `count` elements of ED, and the
  // comparison of ED.
  template <class ED>
  cudaError_t use_output(std::size_t count, Tolerance t) {
    out_count = count;
    out_bytes = int(sizeof(ED));
    tolerance = t;
    compare = [](Common& c, unsigned& worst, unsigned long long& bad) -> Status {
      return count_off(
          c.check,
          [&](unsigned* w, unsigned long long* n) {
            compare_kernel<ED><<<unsigned(std::min<std::size_t>((c.out_count + 255) / 256, 8192)), 256>>>(
                static_cast<ED const*>(c.out.ptr), static_cast<double const*>(c.want.ptr), static_cast<float const*>(c.mag.ptr),
                c.out_count, c.tolerance, w, n);
          },
          worst, bad);
    };
    std::size_t const n = std::max<std::size_t>(count, 1);
    for (auto [x, bytes] : {std::pair{&out, n * sizeof(ED)}, std::pair{&want, n * sizeof(double)}, std::pair{&mag, n * sizeof(float)},
                            std::pair{&check, std::size_t(64)}})
      if (cudaError_t e = x->reserve(std::max<std::size_t>(bytes, 16)); e != cudaSuccess) return e;
    return cudaSuccess;
  }
};

}  // namespace tessera::profiler
