// fp8 attention (V transposed by the Hopper kernel's producer) is refused on the sm80 kernel.
// expect: attention::Config: fp8 attention is the Hopper kernel's; use arch::Sm90, or bfloat16_t / half_t
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::float8_e4m3_t, at::HeadDim<128>, at::BlockTile<64, 64>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
