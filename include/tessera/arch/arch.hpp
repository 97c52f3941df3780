// Architecture tags and the feature macros that gate each instruction family.
//
// One macro per family, defined only in the device pass of a target that has the instructions:
//   TESSERA_ARCH_MMA_SM80   mma.sync m16n8k{8,16,32}, ldmatrix, cp.async     (sm_80 and later)
//   TESSERA_ARCH_WMMA       nvcuda::wmma 16x16x16 f16/bf16                     (sm_80 and later)
//   TESSERA_ARCH_SM90A      wgmma, setmaxnreg (sm_90a only)
// and on AMD (HIP device pass, the target's __gfx*__ macro):
//   TESSERA_ARCH_MFMA           v_mfma f16 / f32 (32x32 and 16x16)        gfx908, gfx90a, gfx94x
//   TESSERA_ARCH_MFMA_BF16_1K   v_mfma bf16_1k (4 bf16 per lane)          gfx90a, gfx94x
//   TESSERA_ARCH_MFMA_I8_K8     v_mfma_i32_32x32x8i8                      gfx908, gfx90a
//   TESSERA_ARCH_MFMA_GFX940    xf32, i32_32x32x16_i8, fp8 (FNUZ)         gfx940, gfx941, gfx942
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
#if defined(__HIP_DEVICE_COMPILE__)
#  if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#    define TESSERA_ARCH_MFMA 1
#    define TESSERA_ARCH_MFMA_BF16_1K 1
#    define TESSERA_ARCH_MFMA_GFX940 1
#  elif defined(__gfx90a__)
#    define TESSERA_ARCH_MFMA 1
#    define TESSERA_ARCH_MFMA_BF16_1K 1
#    define TESSERA_ARCH_MFMA_I8_K8 1
#  elif defined(__gfx908__)
#    define TESSERA_ARCH_MFMA 1
#    define TESSERA_ARCH_MFMA_I8_K8 1
#  endif
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
// AMD Instinct (CDNA2 MI200 / CDNA3 MI300): wavefronts of 64 lanes, 64 KB of LDS per workgroup.
// `gfx` is the target's number as written in hex (0x90a for gfx90a).
struct Gfx90a {
  static constexpr int gfx = 0x90a;
  static constexpr int wavefront = 64;
  static constexpr int max_lds_per_block = 64 * 1024;
};
struct Gfx940 {
  static constexpr int gfx = 0x940;
  static constexpr int wavefront = 64;
  static constexpr int max_lds_per_block = 64 * 1024;
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
