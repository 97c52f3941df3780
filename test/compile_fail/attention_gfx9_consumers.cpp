// The gfx9 kernel's workers are wavefronts: Consumers<C> (warpgroups) is the Hopper kernel's.
// expect: attention::Config: the gfx9 kernel's workers are Warps<W> .wavefronts of 32 query rows.
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 64>, at::Consumers<2>, at::Stages<2>>;

int main() { return Bad::BQ; }
