// BlockTile K = 16 is one bf16 k-step: the mainloop's fragment double-buffering needs an even number.
// expect: gemm::Config: BlockTile K holds an odd number of MMA k-steps, and the mainloop double-buffers fragments over pairs of k-steps; use an even multiple of the atom's K
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 16>,
                                  tessera::gemm::Warps<2, 2>, tessera::gemm::Stages<3>>;

int main() { return Bad::valid ? 0 : 1; }
