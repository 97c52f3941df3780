// The gfx9 kernel double-buffers LDS: a deeper pipeline is refused with the fix.
// expect: gemm::Config: the gfx9 kernel double-buffers LDS \(the next k-tile waits in registers\). use Stages<2>
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Gfx90a, tessera::half_t, tessera::RowMajor, tessera::half_t, tessera::ColumnMajor,
                                  tessera::half_t, float, tessera::gemm::BlockTile<128, 128, 32>, tessera::gemm::Warps<2, 2>,
                                  tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
