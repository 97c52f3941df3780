// The sm80 kernel's K and V ring takes 2 to 4 stages.
// expect: attention::Config: the sm80 kernel's K and V ring takes 2 to 4 stages; use Stages<2>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::bfloat16_t, at::HeadDim<64>, at::BlockTile<64, 64>, at::Warps<4>, at::Stages<5>>;

int main() { return Bad::BQ; }
