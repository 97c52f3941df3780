// A block of 48 keys: not a power of two of whole MFMA atoms.
// expect: attention::Config: the gfx9 kernel's blocks of keys are 32, 64 or 128
#include "tessera/attention/config.hpp"

namespace at = tessera::attention;
using Bad = at::Config<tessera::arch::Gfx90a, tessera::bfloat16_t, at::HeadDim<128>, at::BlockTile<64, 48>, at::Warps<2>, at::Stages<2>>;

int main() { return Bad::BQ; }
