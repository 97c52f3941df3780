#include <cstdio>
#include "tessera/gemm/gemm.hpp"
using namespace tessera;
template <int CM, int CN, class Sch = gemm::Cooperative, int BM = 128>
using Cf = gemm::Config<arch::Sm90, bfloat16, RowMajor, bfloat16, ColumnMajor, bfloat16, float, gemm::BlockTile<BM, 256, 64>,
                       gemm::Warpgroups<2, Sch, gemm::ClusterShape<CM, CN>>, gemm::Stages<4>>;
template <class Cfg> void q(const char* name) {
  auto kernel = gemm::sm90::gemm_kernel<Cfg>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::smem_bytes);
  int n = -1;
  cudaError_t e = arch::sm90::max_active_clusters(n, kernel, dim3(Cfg::threads), Cfg::smem_bytes, Cfg::cluster_m * Cfg::cluster_n);
  printf("%s: max active clusters %d (%s), smem %d\n", name, n, cudaGetErrorString(e), Cfg::smem_bytes);
}
int main() { q<Cf<1,1>>("1x1"); q<Cf<2,1>>("2x1"); q<Cf<1,2>>("1x2"); q<Cf<2,1,gemm::PingPong,64>>("pp2x1"); }
