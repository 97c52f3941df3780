// A block of keys that is not whole k-steps of P V.
// expect: attention::Config: a block of keys is whole k-steps of P V .16 keys.; use BlockTile<..., 64>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<64, 40>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
