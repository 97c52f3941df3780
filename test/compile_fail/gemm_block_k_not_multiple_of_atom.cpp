// BlockTile K = 24 is not a multiple of the bf16 atom's K = 16.
// expect: gemm::Config: BlockTile K is not a multiple of the MMA atom's K \(16 for 16-bit types, 8 for tf32, 32 for int8\) or of 16 bytes; use BlockTile K = 32 or 64
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 24>,
                                  tessera::gemm::Warps<2, 2>, tessera::gemm::Stages<3>>;

int main() { return Bad::valid ? 0 : 1; }
