// FNUZ fp8 has MFMA atoms on gfx94x only: a gfx90a Config of it is refused with the types that work.
// expect: gemm::Config: no MFMA atom multiplies these element types on this AMD target
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Gfx90a, tessera::float8_e4m3_fnuz_t, tessera::RowMajor, tessera::float8_e4m3_fnuz_t,
                                  tessera::ColumnMajor, tessera::half_t, float, tessera::gemm::BlockTile<128, 128, 64>,
                                  tessera::gemm::Warps<2, 2>, tessera::gemm::Stages<2>>;

int main() { return Bad::valid ? 0 : 1; }
