// Head dimension 256 with 128 queries and blocks of 128 keys: 320 KB of Q, K and V.
// expect: attention::Config: Q and the K and V ring pass the 163 KB of shared memory an sm_80 block has; use fewer Stages or a smaller BlockTile
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Sm80, tessera::bfloat16_t, at::HeadDim<256>, at::BlockTile<128, 128>, at::Warps<8>, at::Stages<2>>;

int main() { return Bad::BQ; }
