// The gfx9 attention kernel's host side: what the device and the problem must offer (a device of
// the Config's target, the Config's LDS, a grid the kernel can launch, fixed lengths) and the
// launch. attention::Attention<Config> (attention/attention.hpp) calls it for arch::Gfx90a and
// arch::Gfx940 Configs under hipcc, after the problem's and the arguments' own checks.
//
//   TESSERA_RETURN_IF_ERROR(gfx9::Launch<Cfg>::can_implement(problem));
//   return gfx9::Launch<Cfg>::run(problem, q, k, v, o, lse, chain, stream);
// tessera-header: hip-only
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/attention/gfx9/kernel.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/tile_grid.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"

namespace tessera::attention::gfx9 {

template <class Cfg>
struct Launch {
  using E = typename Cfg::Element;

  static Status can_implement(Problem const& p) {
    TESSERA_RETURN_IF_ERROR(check_tile_grid(p, "the gfx9 kernel"));
    int device = 0;
    if (runtime::current_device(device) != runtime::kSuccess)
      return Status::device_error("attention::Attention: no HIP device is available; run on a machine with an AMD Instinct GPU");
    std::string const name = runtime::architecture_name(device);
    constexpr bool cdna3 = std::is_same_v<typename Cfg::Arch, arch::Gfx940>;
    if (cdna3 ? name.rfind("gfx94", 0) != 0 : name != "gfx90a")
      return Status::not_supported(std::string("attention::Attention: the Config is for ") + (cdna3 ? "arch::Gfx940 (gfx94x)" : "arch::Gfx90a") +
                                   " but this device is " + (name.empty() ? "unknown" : name) + "; use the tag of the device");
    return Status::success();
  }

  static Status run(Problem const& p, E const* q, E const* k, E const* v, E* o, float* lse, typename Cfg::Chain const& chain,
                    runtime::Stream stream) {
    int const q_blocks = (p.seqlen_q + Cfg::BQ - 1) / Cfg::BQ;
    if (q_blocks == 0) return Status::success();  // no query: nothing to write
    Params<Cfg> const params = Params<Cfg>::make(p, q, k, v, o, lse, chain);
    attention_kernel<Cfg><<<dim3(unsigned(q_blocks), unsigned(p.heads), unsigned(p.batch)), Cfg::threads, 0, stream>>>(params);
    if (hipError_t const err = hipGetLastError(); err != hipSuccess)
      return Status::device_error(std::string("attention::Attention: launch failed: ") + hipGetErrorString(err));
    return Status::success();
  }
};

}  // namespace tessera::attention::gfx9
