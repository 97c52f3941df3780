// The sm80 attention kernel's host side: what the device and the problem must offer (compute
// capability 8.0 or newer, the Config's shared memory, code of the kernel in this binary, a grid
// it can launch) and the launch. attention::Attention<Config> (attention/attention.hpp) calls it
// for arch::Sm80 Configs, after the problem's and the arguments' own checks.
//
//   TESSERA_RETURN_IF_ERROR(sm80::Launch<Cfg>::can_implement(problem));
//   return sm80::Launch<Cfg>::run(problem, q, k, v, o, lse, chain, stream);
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tessera/arch/sm90/kernel_attributes.hpp"  // allow_smem_once
#include "tessera/attention/problem.hpp"
#include "tessera/attention/tile_grid.hpp"
#include "tessera/attention/sm80/kernel.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"

namespace tessera::attention::sm80 {

template <class Cfg>
struct Launch {
  using E = typename Cfg::Element;

  static Status can_implement(Problem const& p) {
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    TESSERA_RETURN_IF_ERROR(check_tile_grid(p, "the sm80 kernel"));
    int device = 0, major = 0;
    if (runtime::current_device(device) != runtime::kSuccess || (major = runtime::compute_capability_major(device)) == 0)
      return Status::device_error("attention::Attention: no CUDA device is available; run on a machine with an NVIDIA GPU");
    if (major < 8)
      return Status::not_supported("attention::Attention: the sm80 kernel needs compute capability 8.0 or newer (this device is " + s(major) +
                                   ".x); use a newer GPU");
    int const optin = runtime::max_shared_memory_per_block(device);
    if (Cfg::smem_bytes > optin)
      return Status::not_supported("attention::Attention: the Config needs " + s(Cfg::smem_bytes) + " bytes of shared memory, the device allows " +
                                   s(optin) + "; use fewer Stages or a smaller BlockTile");
    cudaFuncAttributes attributes{};
    if (cudaError_t const e = cudaFuncGetAttributes(&attributes, attention_kernel<Cfg>); e != cudaSuccess) {
      cudaGetLastError();  // clear the error the query left
      return Status::not_supported("attention::Attention: this binary holds no code of the sm80 attention kernel for this GPU (compute "
                                   "capability " + s(major) + ".x; " + cudaGetErrorString(e) +
                                   "); build for it: CMAKE_CUDA_ARCHITECTURES=80 or the device's own");
    }
    return Status::success();
  }

  static Status run(Problem const& p, E const* q, E const* k, E const* v, E* o, float* lse, typename Cfg::Chain const& chain,
                    cudaStream_t stream) {
    int const q_blocks = (p.seqlen_q + Cfg::BQ - 1) / Cfg::BQ;
    if (q_blocks == 0) return Status::success();  // no query: nothing to write
    Params<Cfg> const params = Params<Cfg>::make(p, q, k, v, o, lse, chain);
    int device = 0;
    (void)runtime::current_device(device);
    auto kernel = attention_kernel<Cfg>;
    cudaError_t err = arch::sm90::allow_smem_once(kernel, device, Cfg::smem_bytes);
    if (err == cudaSuccess) {
      kernel<<<dim3(unsigned(q_blocks), unsigned(p.heads), unsigned(p.batch)), Cfg::threads, Cfg::smem_bytes, stream>>>(params);
      err = cudaGetLastError();
    }
    if (err != cudaSuccess) return Status::device_error(std::string("attention::Attention: launch failed: ") + cudaGetErrorString(err));
    return Status::success();
  }
};

}  // namespace tessera::attention::sm80
