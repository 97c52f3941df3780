// A Config without its Stages (the 10th parameter).
// expect: gemm::Config: the 10th parameter is not gemm::Stages<S> \(or it is missing\)
#include "tessera/gemm/config.hpp"

using Bad = tessera::gemm::Config<tessera::arch::Sm80, tessera::bfloat16_t, tessera::RowMajor, tessera::bfloat16_t,
                                  tessera::ColumnMajor, tessera::bfloat16_t, float, tessera::gemm::BlockTile<128, 128, 32>,
                                  tessera::gemm::Warps<2, 2>>;

int main() { return Bad::valid ? 0 : 1; }
