// A Hopper convolution in clusters of two blocks.
// expect: conv::Config: the Hopper convolution takes no clusters yet; use ClusterShape<1, 1>
#include "tessera/conv/config.hpp"

using namespace tessera;
using Bad = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 64>,
                         gemm::Warpgroups<2, gemm::Cooperative, gemm::ClusterShape<2, 1>>, gemm::Stages<4>>;

int main() { return Bad::hopper ? 0 : 1; }
