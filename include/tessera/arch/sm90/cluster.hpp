// Thread-block clusters (sm_90): the blocks of a cluster run at once on one GPC and reach each
// other's shared memory (TMA multicast, remote mbarrier arrivals, arch/sm90/mbarrier.hpp). Device
// side: the block's rank in its cluster and the cluster-wide barrier. Host side: the launch with a
// cluster shape (cudaLaunchKernelEx) and how many clusters of a kernel fit on the GPU at once.
//
//   launch_with_cluster(kernel, grid, block, smem, stream, /*cluster_x=*/2, params);
//   __global__ void kernel(...) { int rank = cluster_ctarank(); ...; cluster_sync(); }
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "tessera/arch/arch.hpp"

namespace tessera::arch::sm90 {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define TESSERA_CLUSTER_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_CLUSTER_BODY(...) TESSERA_UNREACHABLE("clusters need sm_90: build for sm_90a")
#endif

// This block's rank in its cluster (0 to the cluster's size - 1).
TESSERA_DEVICE inline int cluster_ctarank() {
  std::uint32_t rank = 0;
  TESSERA_CLUSTER_BODY("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return int(rank);
}

// The cluster-wide barrier in two halves (all threads of every block of the cluster take part):
// arrive releases this thread's earlier writes, wait acquires the others'.
TESSERA_DEVICE inline void cluster_arrive() { TESSERA_CLUSTER_BODY("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
TESSERA_DEVICE inline void cluster_wait() { TESSERA_CLUSTER_BODY("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
TESSERA_DEVICE inline void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

#undef TESSERA_CLUSTER_BODY

namespace detail {
// A launch configuration in clusters of cluster_x blocks along x (no attribute for 1).
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attribute[1]{};
  ClusterLaunch(dim3 grid, dim3 block, int smem, cudaStream_t stream, int cluster_x) {
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = std::size_t(smem);
    config.stream = stream;
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = unsigned(cluster_x);
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = cluster_x > 1 ? 1 : 0;
  }
  ClusterLaunch(ClusterLaunch const&) = delete;  // config.attrs points into this object
};
}  // namespace detail

// Launches kernel<<<grid, block, smem, stream>>>(args...) in clusters of cluster_x blocks along x
// (a plain launch for 1). grid.x must be a multiple of cluster_x.
template <class... Params, class... Args>
cudaError_t launch_with_cluster(void (*kernel)(Params...), dim3 grid, dim3 block, int smem, cudaStream_t stream, int cluster_x,
                                Args const&... args) {
  detail::ClusterLaunch const launch(grid, block, smem, stream, cluster_x);
  return cudaLaunchKernelEx(&launch.config, kernel, Params(args)...);
}

// How many clusters of cluster_x blocks of `kernel` (block threads, smem bytes each) the device can
// run at once (0 where none fits); the multiprocessor count divided by cluster_x at best.
template <class... Params>
cudaError_t max_active_clusters(int& out, void (*kernel)(Params...), dim3 block, int smem, int cluster_x) {
  detail::ClusterLaunch launch(dim3(unsigned(cluster_x)), block, smem, nullptr, cluster_x);
  launch.config.numAttrs = 1;  // the query needs the cluster shape even for 1
  return cudaOccupancyMaxActiveClusters(&out, kernel, &launch.config);
}

}  // namespace tessera::arch::sm90
