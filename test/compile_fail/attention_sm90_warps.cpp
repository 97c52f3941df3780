// The Hopper kernel's workers are warpgroups: Warps<W> (the sm80 kernel's) names the other kernel.
// expect: attention::Config: the Hopper kernel's workers are Consumers<C> .warpgroups of 64 query rows.; use Consumers<2>, or arch::Sm80 for Warps<W>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm90, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 128>, at::Warps<8>, at::Stages<2>>;

int main() { return Bad::BQ; }
