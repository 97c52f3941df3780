// A cluster of 2 x 2 blocks: the sm90 kernel shares one operand between two blocks at most.
// expect: gemm::Config: the sm90 kernel takes clusters of 1 x 1, 2 x 1 or 1 x 2 blocks
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 256, 64>,
                                  tessera::gemm::Warpgroups<2, tessera::gemm::Cooperative, tessera::gemm::ClusterShape<2, 2>>,
                                  tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
