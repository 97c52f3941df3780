// Two stages of 128 x 32 bf16 tiles for A and B (32 KiB) cannot hold the epilogue's float staging
// for eight 16 x 128 warp tiles, whose one atom row per warp takes 8 x 16 x 136 floats (68 KiB).
// expect: gemm::Config: the epilogue stages each warp's accumulators through the pipeline's shared memory, which is too small for one row of MMA atoms per warp; use more Stages or a larger BlockTile K
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 32>,
                                  tessera::gemm::Warps<8, 1>, tessera::gemm::Stages<2>>;

int main() { return Bad::valid ? 0 : 1; }
