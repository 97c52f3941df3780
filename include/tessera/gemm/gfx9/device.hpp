// What the current HIP device must offer a gfx9 Config (gemm::Gemm and conv::Conv check it before
// launching): a device of the target its tag names (arch::Gfx90a: gfx90a; arch::Gfx940: gfx94x)
// and the LDS that the Config's two buffers take.
// tessera-header: hip-only
#pragma once

#include <string>

#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"

namespace tessera::gemm::gfx9 {

template <class Cfg>
Status check_device() {
  int device = 0;
  if (runtime::current_device(device) != runtime::kSuccess)
    return Status::device_error("no HIP device is available; run on a machine with an AMD Instinct GPU");
  std::string const name = runtime::architecture_name(device);
  constexpr bool cdna3 = Cfg::spec.gfx == 0x940;
  if (cdna3 ? name.rfind("gfx94", 0) != 0 : name != "gfx90a")
    return Status::not_supported(std::string("the Config is for ") + (cdna3 ? "arch::Gfx940 (gfx940, gfx941, gfx942)" : "arch::Gfx90a") +
                                 " but this device is " + (name.empty() ? "unknown" : name) + "; use the tag of the device (arch::" +
                                 (name.rfind("gfx94", 0) == 0 ? "Gfx940" : "Gfx90a") + " for gfx94x / gfx90a)");
  int const lds = runtime::max_shared_memory_per_block(device);
  if (Cfg::smem_bytes > lds)
    return Status::not_supported("the Config needs " + std::to_string(Cfg::smem_bytes) + " bytes of LDS, the device allows " +
                                 std::to_string(lds) + "; use a smaller BlockTile");
  return Status::success();
}

}  // namespace tessera::gemm::gfx9
