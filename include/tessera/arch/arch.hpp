// Architecture tags and the feature macros that gate each instruction family.
//
// One macro per family, defined only in the device pass of a target that has the instructions:
//   TESSERA_ARCH_MMA_SM80   mma.sync m16n8k{8,16,32}, ldmatrix, cp.async     (sm_80 and later)
//   TESSERA_ARCH_WMMA       nvcuda::wmma 16x16x16 f16/bf16                     (sm_80 and later)
//   TESSERA_ARCH_SM90A      wgmma, setmaxnreg (sm_90a only)
// Code behind a macro has a loud fallback (TESSERA_UNREACHABLE), never a silent no-op.
#pragma once

#include "tessera/core/config.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#  define TESSERA_ARCH_MMA_SM80 1
#  define TESSERA_ARCH_WMMA 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#  define TESSERA_ARCH_SM90A 1
#endif

namespace tessera::arch {

// Tags that select atoms, pipelines and kernels. `cc` is the compute capability times ten.
struct Sm80 {
  static constexpr int cc = 80;
  static constexpr int max_smem_per_block = 163 * 1024;  // opt-in limit on A100 (227 KB on H100)
};
struct Sm90 {
  static constexpr int cc = 90;
  static constexpr int max_smem_per_block = 227 * 1024;
};

// A block-wide barrier (device code; loud on the host, where no block exists).
TESSERA_DEVICE inline void sync_threads() {
#if TESSERA_DEVICE_PASS
  __syncthreads();
#else
  TESSERA_UNREACHABLE("sync_threads is device code");
#endif
}

}  // namespace tessera::arch
