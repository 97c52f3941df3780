// Head dimension 256 with blocks of 64 keys: two buffers of K and V take 128 KB of LDS.
// expect: attention::Config: two buffers of K and V pass the 64 KB of LDS a workgroup has
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<256>, at::BlockTile<64, 64>, at::Warps<2>, at::Stages<2>>;

int main() { return Bad::BQ; }
