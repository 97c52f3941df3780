// The attention kernels are NVIDIA's so far; an AMD tag is refused with the tags that work.
// expect: attention::Config: the attention kernels run on arch::Sm80 \(mma.sync; sm_80 and later\) or arch::Sm90
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<64, 64>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
