// The few GPU runtime calls the device-level APIs make (gemm::Gemm), under one spelling for the
// CUDA runtime and HIP: the current device and its properties, errors, and asynchronous memsets.
//
//   int device = 0, sms = 0;
//   if (runtime::current_device(device) == runtime::kSuccess) sms = runtime::multiprocessors(device);
// tessera-header: gpu-runtime
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "tessera/core/config.hpp"

#if defined(TESSERA_HIP)
#  include <hip/hip_runtime.h>
#else
#  include <cuda_runtime.h>
#endif

namespace tessera::runtime {

#if defined(TESSERA_HIP)
using Error = hipError_t;
using Stream = hipStream_t;
inline constexpr Error kSuccess = hipSuccess;
inline Error current_device(int& device) { return hipGetDevice(&device); }
inline char const* error_string(Error e) { return hipGetErrorString(e); }
inline Error last_error() { return hipGetLastError(); }
inline Error memset_async(void* p, int value, std::size_t bytes, Stream s) { return hipMemsetAsync(p, value, bytes, s); }
// 0 where the query fails (the callers treat it as "unknown").
inline int multiprocessors(int device) {
  int v = 0;
  return hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess ? v : 0;
}
inline int max_shared_memory_per_block(int device) {
  int v = 0;
  return hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerBlock, device) == hipSuccess ? v : 0;
}
// The device's architecture as the compiler names it: "gfx90a", "gfx942" ("" where unknown).
inline std::string architecture_name(int device) {
  hipDeviceProp_t prop{};
  if (hipGetDeviceProperties(&prop, device) != hipSuccess) return "";
  std::string name = prop.gcnArchName;  // "gfx90a:sramecc+:xnack-": the target, then its features
  return name.substr(0, name.find(':'));
}
#else
using Error = cudaError_t;
using Stream = cudaStream_t;
inline constexpr Error kSuccess = cudaSuccess;
inline Error current_device(int& device) { return cudaGetDevice(&device); }
inline char const* error_string(Error e) { return cudaGetErrorString(e); }
inline Error last_error() { return cudaGetLastError(); }
inline Error memset_async(void* p, int value, std::size_t bytes, Stream s) { return cudaMemsetAsync(p, value, bytes, s); }
namespace detail {
// Attribute A of `device`, queried once per device and kept (attributes do not change): the GEMM's
// checks read a few on every call, and a decode-sized GEMM's host time notices each runtime call.
// 0 where the query fails (asked again next time).
template <cudaDeviceAttr A>
int cached_attribute(int device) {
  constexpr int kDevices = 64;
  static std::atomic<int> values[kDevices]{};
  int v = 0;
  if (device < 0 || device >= kDevices) return cudaDeviceGetAttribute(&v, A, device) == cudaSuccess ? v : 0;
  if ((v = values[device].load(std::memory_order_relaxed)) != 0) return v;
  if (cudaDeviceGetAttribute(&v, A, device) != cudaSuccess) return 0;
  values[device].store(v, std::memory_order_relaxed);
  return v;
}
}  // namespace detail

inline int multiprocessors(int device) { return detail::cached_attribute<cudaDevAttrMultiProcessorCount>(device); }
// The opt-in limit (above the default 48 KB), which the kernels raise themselves to.
inline int max_shared_memory_per_block(int device) {
  return detail::cached_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(device);
}
inline int compute_capability_major(int device) { return detail::cached_attribute<cudaDevAttrComputeCapabilityMajor>(device); }
// "sm_90" ("" where unknown).
inline std::string architecture_name(int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return "";
  return "sm_" + std::to_string(major) + std::to_string(minor);
}
#endif

}  // namespace tessera::runtime
