// The sm80 kernel's workers are warps: Consumers<C> (warpgroups) is the Hopper kernel's.
// expect: attention::Config: the sm80 kernel's workers are Warps<W> .warps of 16 query rows.; use Warps<4> with BlockTile<64, ...>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 128>, at::Consumers<2>, at::Stages<2>>;

int main() { return Bad::BQ; }
