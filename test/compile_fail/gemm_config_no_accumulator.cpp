// A Config without its accumulator type: the BlockTile lands in its place (the 7th parameter).
// expect: gemm::Config: the accumulator type \(the 7th parameter, after D's type\) is missing; insert float
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm90, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, tessera::gemm::BlockTile<128, 256, 64>,
                                  tessera::gemm::Warpgroups<2>, tessera::gemm::Stages<4>>;

int main() { return Bad::valid ? 0 : 1; }
