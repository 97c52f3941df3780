// Helpers for device tests: error-checked CUDA calls, poisoned device buffers, copy back.
#pragma once

#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#define TESSERA_CUDA_REQUIRE(expr)                                                   \
  do {                                                                               \
    cudaError_t _e = (expr);                                                         \
    INFO(#expr << ": " << cudaGetErrorString(_e));                                   \
    REQUIRE(_e == cudaSuccess);                                                      \
  } while (0)

// Launch-error and execution-error check after a kernel launch.
#define TESSERA_CUDA_REQUIRE_LAUNCH()                        \
  do {                                                       \
    TESSERA_CUDA_REQUIRE(cudaGetLastError());                \
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());           \
  } while (0)

namespace tessera::test {

// Fails the test (not skips it) when no GPU is present: device tests only run where one is.
inline void require_gpu() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  INFO("device tests need a CUDA GPU (cudaGetDeviceCount: " << cudaGetErrorString(e) << ", " << count << " devices)");
  REQUIRE((e == cudaSuccess && count > 0));
}

// A device buffer of n elements, every byte set to 0xA5 before use so that unwritten elements
// are visible.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    TESSERA_CUDA_REQUIRE(cudaMalloc(&ptr_, n * sizeof(T)));
    poison();
  }
  explicit DeviceBuffer(std::vector<T> const& host) : DeviceBuffer(host.size()) {
    TESSERA_CUDA_REQUIRE(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;

  void poison() { TESSERA_CUDA_REQUIRE(cudaMemset(ptr_, 0xA5, n_ * sizeof(T))); }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::vector<T> to_host() const {
    std::vector<T> h(n_);
    TESSERA_CUDA_REQUIRE(cudaMemcpy(h.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace tessera::test
