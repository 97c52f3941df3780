// A Hopper Dgrad in clusters of two blocks along M with a 64-wide tile: its B (the filters, read
// N-major) is shared in whole 64-column blocks, so a tile of 64 columns cannot be split in two.
// expect: gemm::Config: the sm90 kernel takes clusters of 1 x 1, 2 x 1 or 1 x 2 blocks
#include "tessera/conv/config.hpp"

using namespace tessera;
using Bad = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Dgrad, gemm::BlockTile<128, 64, 64>,
                         gemm::Warpgroups<2, gemm::Cooperative, gemm::ClusterShape<2, 1>>, gemm::Stages<8>>;

int main() { return Bad::hopper ? 0 : 1; }
