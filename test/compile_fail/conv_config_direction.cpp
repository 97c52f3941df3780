// A conv::Config whose direction parameter is not a direction tag.
// expect: conv::Config: the 6th parameter is the direction; use conv::Fprop, conv::Dgrad or conv::Wgrad
#include "tessera/conv/config.hpp"

using namespace tessera;
using Bad = conv::Config<arch::Sm80, bfloat16_t, bfloat16_t, bfloat16_t, float, gemm::Cooperative, gemm::BlockTile<128, 128, 32>,
                         gemm::Warps<2, 2>, gemm::Stages<3>>;

int main() { return Bad::direction == conv::Direction::kFprop ? 0 : 1; }
