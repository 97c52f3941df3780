// Each wavefront owns 32 query rows: 2 wavefronts cannot cover 128.
// expect: attention::Config: each wavefront of the gfx9 kernel owns 32 query rows; use BlockTile<32 \* W, ...> with Warps<W>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 64>, at::Warps<2>, at::Stages<2>>;

int main() { return Bad::BQ; }
