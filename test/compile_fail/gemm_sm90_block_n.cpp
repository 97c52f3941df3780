// The sm90 epilogue works in 16- or 32-column chunks: BlockTile N = 40 is neither a multiple of 16 nor of 32.
// expect: gemm::Config: BlockTile N is the wgmma N of the sm90 kernel, and its epilogue works in 16- or 32-column chunks
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 40, 64>,
                                  tessera::gemm::Warpgroups<2>, tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
