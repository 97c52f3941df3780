// Warpgroups selects the wgmma + TMA kernel, which only Hopper has.
// expect: gemm::Config: Warpgroups \(the wgmma \+ TMA kernel\) needs arch::Sm90
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 64>,
                                  tessera::gemm::Warpgroups<2>, tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
