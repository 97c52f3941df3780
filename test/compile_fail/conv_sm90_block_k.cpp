// A Hopper convolution whose k-tile is 32 channels of 16 bits: half a swizzle span (the GEMM Config says so, once).
// expect: gemm::Config: the sm90 kernel.s k-tile is one 128-byte swizzle span of K; use BlockTile K = 64 for 16-bit types
#include "tessera/conv/config.hpp"

using namespace tessera;
using Bad = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 32>,
                         gemm::Warpgroups<2>, gemm::Stages<4>>;

int main() { return Bad::hopper ? 0 : 1; }
