// Launches the persistent sm90 kernel, gemm_kernel<Cfg, Loader>, on the parameters its pieces
// made (gemm::Gemm for the GEMM; a convolution with its own loader the same way): as many blocks
// (or clusters) as fit on the device at once, one per multiprocessor at most (the stages fill
// shared memory), but no more than there are work units; where the caller left the raster group
// automatic, the one for that grid (auto_raster_group).
//
//   sm90::Params<Cfg, Loader> p{};   // each piece's make() fills its part
//   if (Status s = sm90::launch(p, /*auto_raster=*/true, stream); !s) ...
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/arch/sm90/cluster.hpp"
#include "tessera/arch/sm90/kernel_attributes.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/sm90/kernel.hpp"

namespace tessera::gemm::sm90 {


template <class Cfg, class Loader>
Status launch(Params<Cfg, Loader>& p, bool auto_raster, cudaStream_t stream) {
  static_assert(Kernel<Cfg, Loader>::smem_bytes == Cfg::smem_bytes, "gemm::sm90: shared-memory accounting differs from the Config's");
  auto kernel = gemm_kernel<Cfg, Loader>;
  constexpr int cluster = Cfg::cluster_m * Cfg::cluster_n;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = arch::sm90::allow_smem_once(kernel, device, Cfg::smem_bytes);
  int resident = 0;
  if (cluster > 1) {
    if (err == cudaSuccess) err = arch::sm90::max_active_clusters(resident, kernel, dim3(Cfg::threads), Cfg::smem_bytes, cluster);
  } else if (err == cudaSuccess) {
    resident = runtime::multiprocessors(device);
  }
  if (err == cudaSuccess && resident < 1 && cluster == 1) return Status::device_error("the device's multiprocessor count could not be read");
  if (err == cudaSuccess && resident < 1)
    return Status::not_supported("no cluster of " + std::to_string(cluster) + " blocks of this Config fits on the device; "
                                 "use ClusterShape<1, 1>");
  unsigned const blocks = unsigned(std::min<std::int64_t>(p.grid.total(), resident) * cluster);
  if (auto_raster) p.grid.raster_group = auto_raster_group(int(blocks) / cluster, Cfg::BM, Cfg::BN, Cfg::cluster_m, Cfg::cluster_n);
  if (err == cudaSuccess) {
    err = arch::sm90::launch_with_cluster(kernel, dim3(blocks), dim3(Cfg::threads), Cfg::smem_bytes, stream, cluster, p);
    if (err == cudaSuccess) err = cudaGetLastError();
  }
  if (err != cudaSuccess) return Status::device_error(std::string("kernel launch failed: ") + cudaGetErrorString(err));
  return Status::success();
}

}  // namespace tessera::gemm::sm90
