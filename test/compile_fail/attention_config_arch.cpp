// An architecture the attention kernels do not run on is refused with the tags that work.
// expect: attention::Config: the attention kernels run on arch::Sm80 \(mma.sync. sm_80 and later\), arch::Sm90 \(Hopper\) or arch::Gfx90a / arch::Gfx940
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
struct Sm70 {
  static constexpr int cc = 70;
};
using Bad = at::Config<Sm70, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<64, 64>, at::Warps<4>, at::Stages<2>>;

int main() { return Bad::BQ; }
