// The Warpgroups before the BlockTile.
// expect: gemm::Config: the BlockTile and the Warps / Warpgroups are swapped; pass gemm::BlockTile<M, N, K> 8th
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::Warpgroups<2>,
                                  tessera::gemm::BlockTile<128, 256, 64>, tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
