// The sm90 kernel's k-tile is one 128-byte swizzle span: BlockTile K = 32 bf16 is half of one.
// expect: gemm::Config: the sm90 kernel's k-tile is one 128-byte swizzle span of K; use BlockTile K = 64 for 16-bit types
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 32>,
                                  tessera::gemm::Warpgroups<2>, tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
