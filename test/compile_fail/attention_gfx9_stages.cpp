// The gfx9 kernel double-buffers K and V in LDS: three stages are refused.
// expect: attention::Config: the gfx9 kernel double-buffers K and V in LDS; use Stages<2>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<64, 64>, at::Warps<2>, at::Stages<3>>;

int main() { return Bad::BQ; }
