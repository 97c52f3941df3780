// Host-side facts about an sm_90a kernel that every Hopper operation (the GEMM, the convolution,
// attention) asks before it launches one:
//
//   if (!arch::sm90::built_for_sm90a(attributes)) ...            // cudaFuncGetAttributes(&attributes, kernel)
//   cudaError_t e = arch::sm90::allow_smem_once(kernel, device, bytes);
//
// A kernel body that needs sm_90a (wgmma, setmaxnreg) is built, for any other target, as a marker
// instead: a static shared variable and nothing else (see gemm/sm90/kernel.hpp). Its attributes
// then show static shared memory, which the sm_90a body never has.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

namespace tessera::arch::sm90 {

// Whether `attributes` (cudaFuncGetAttributes of a kernel, for the current device) are those of
// its sm_90a body rather than the other targets' marker.
inline bool built_for_sm90a(cudaFuncAttributes const& attributes) { return attributes.sharedSizeBytes == 0; }

// Raises the kernel's dynamic shared-memory limit to `bytes`, once per device (the first launch on
// each; a decode-shape GEMM notices the call's cost on every launch).
template <class Kernel>
cudaError_t allow_smem_once(Kernel kernel, int device, int bytes) {
  static std::atomic<std::uint64_t> done{0};  // a bit per device, for devices 0 to 63
  std::uint64_t const bit = device < 64 ? std::uint64_t(1) << device : 0;
  if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return cudaSuccess;
  cudaError_t const e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e == cudaSuccess) done.fetch_or(bit, std::memory_order_release);
  return e;
}

}  // namespace tessera::arch::sm90
