// bfloat16 inputs with a half accumulator: no mma.sync atom computes that.
// expect: gemm::Config: no mma.sync atom multiplies these element types
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, tessera::half_t,
                                  tessera::gemm::BlockTile<128, 128, 32>, tessera::gemm::Warps<2, 2>,
                                  tessera::gemm::Stages<3>>;

int main() { return Bad::valid ? 0 : 1; }
