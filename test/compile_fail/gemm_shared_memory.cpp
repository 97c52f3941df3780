// Six stages of 128 x 256 x 64 bf16 tiles (48 KiB each) are more than an H100 block's 227 KiB; the
// message names the bytes (SharedMemoryOver<needed, allowed> in the compiler's context line).
// expect: SharedMemoryOver<[0-9]+, 232448>.*gemm::Config: the pipeline needs more shared memory than a block may have
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 256, 64>,
                                  tessera::gemm::Warpgroups<2>, tessera::gemm::Stages<6>>;

int main() { return Bad::valid ? 0 : 1; }
