// Two stages of 128 x 16 and 16 x 128 bf16 tiles (16 KiB) cannot hold one 16-row round of the
// epilogue's float staging for four 64 x 64 warp tiles (4 x 16 x 72 floats = 18 KiB).
// expect: gemm::Config: the epilogue stages each warp's accumulators through the pipeline's shared memory, which is too small for one row of MMA atoms per warp; use more Stages or a larger BlockTile K
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16, tessera::RowMajor, tessera::bfloat16,
                                  tessera::ColumnMajor, tessera::bfloat16, float, tessera::gemm::BlockTile<128, 128, 16>,
                                  tessera::gemm::Warps<2, 2>, tessera::gemm::Stages<2>>;

int main() { return Bad::valid ? 0 : 1; }
