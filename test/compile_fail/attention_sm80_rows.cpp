// Each warp owns 16 query rows: 4 warps cannot cover 128.
// expect: attention::Config: each warp of the sm80 kernel owns 16 query rows; use BlockTile<16 \* W, ...> with Warps<W>
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<128, 64>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
