// 128 queries of head dimension 128 do not fit in one buffer of 32 keys' K and V.
// expect: attention::Config: the gfx9 kernel passes Q through one buffer of K and V, which is smaller than Q's tile
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 32>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
